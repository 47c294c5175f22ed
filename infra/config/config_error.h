// Error reporting for configuration loading.
//
// Every problem is phrased as "<source>: <JSON pointer>: <what>", where the
// source is the file or --set that supplied the offending value. Problems
// are collected rather than thrown one at a time, so a user fixing a config
// file sees all of its mistakes in one run.
#pragma once

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace pccx::config {

// Thrown for any bad configuration input; what() holds every problem found,
// one per line.
class config_error : public std::runtime_error {
 public:
  explicit config_error(std::vector<std::string> messages);
  const std::vector<std::string>& messages() const { return messages_; }

 private:
  std::vector<std::string> messages_;
};

// Where a value came from. layer orders the sources (0 = compiled-in
// defaults, then files, then --set) so that an error involving several
// values can blame the one the user touched last.
struct source_ref {
  std::string name;
  int layer = 0;
};

// Appends one reference token to a JSON pointer, escaping '~' and '/'.
std::string append_pointer(const std::string& base, const std::string& token);

// Collects the problems of one load.
class diagnostics {
 public:
  // Maps a JSON pointer to the source of the value found there.
  using locator = std::function<source_ref(const std::string& pointer)>;

  diagnostics() = default;
  explicit diagnostics(locator locate) : locate_(std::move(locate)) {}

  // Source given explicitly; an empty pointer is left out of the message.
  void report(const std::string& source, const std::string& pointer, const std::string& what);
  // Source looked up from the pointer.
  void report(const std::string& pointer, const std::string& what);
  // A problem involving several values: blamed on the pointer whose value
  // came from the latest layer (the first one on ties).
  void report_any(const std::vector<std::string>& pointers, const std::string& what);

  std::size_t count() const { return messages_.size(); }
  bool empty() const { return messages_.empty(); }
  const std::vector<std::string>& messages() const { return messages_; }
  void throw_if_any() const;

 private:
  source_ref locate(const std::string& pointer) const;

  locator locate_;
  std::vector<std::string> messages_;
};

// Handed to a config struct's validate() for cross-field checks. Fields are
// named relative to the struct ("npu_base", "banks/0/name"), so a struct
// does not need to know where it sits in the tree.
class validator {
 public:
  validator(diagnostics& diag, std::string base) : diag_(diag), base_(std::move(base)) {}

  void fail(const std::string& field, const std::string& what);
  void fail(std::initializer_list<std::string> fields, const std::string& what);
  // Absolute pointer of a field of this struct.
  std::string pointer(const std::string& field) const;

 private:
  diagnostics& diag_;
  std::string base_;
};

}  // namespace pccx::config
