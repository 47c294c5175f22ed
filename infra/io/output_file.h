// A file the platform writes (a trace, a summary, a table, a plot), written
// whole or not at all: the bytes go to a temporary file next to PATH, which
// commit() renames over PATH once everything reached the disk, so a reader
// never sees half a file and a failed write never leaves one behind. A path
// that is not a regular file or a new one (/dev/stdout, /dev/full) is
// written in place. Any failure (cannot open, a write error such as a full
// disk, cannot rename) throws output_error naming PATH and the reason.
#pragma once

#include <fstream>
#include <stdexcept>
#include <string>

namespace pccx::io {

class output_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class output_file {
 public:
  // `what` names the file in messages ("trace file", "summary").
  explicit output_file(std::string path, std::string what = "output file");
  ~output_file();  // an uncommitted file is removed
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;

  std::ostream& stream() { return out_; }
  const std::string& path() const { return path_; }
  // Flushes, checks every write succeeded and renames into place.
  void commit();

 private:
  [[noreturn]] void fail(const std::string& reason) const;

  std::string path_, what_, temp_;  // temp_ empty: written in place
  std::ofstream out_;
  bool committed_ = false;
};

// The whole of `text` into `path`, as above.
void write_output(const std::string& path, const std::string& text,
                  const std::string& what = "output file");

}  // namespace pccx::io
