// A JSON document built from layers (compiled-in defaults, --config files,
// --set overrides) that remembers which layer supplied each value, so an
// error found later, while binding or validating, can name the file or
// --set the user has to fix.
//
// Merge rule: objects merge key by key (recursively); any other value,
// arrays included, replaces what was there.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "infra/config/config_error.h"

namespace pccx::config {

class layered_json {
 public:
  explicit layered_json(nlohmann::json defaults, std::string defaults_name = "built-in defaults");

  // Deep-merges one layer named `source` (a file path, usually).
  void merge(const nlohmann::json& layer, const std::string& source);
  // Reads and merges a file; a missing file, a syntax error or a top level
  // that is not an object is reported to diag and the layer skipped.
  void merge_file(const std::string& path, diagnostics& diag);
  // Applies one "a.b.c=value" override; the source is "--set a.b.c=value".
  // value is taken as JSON when it parses as JSON, otherwise as a string.
  // Numeric segments index arrays ("banks.2.enabled"). Keys that do not
  // exist are created, so the binder reports them as unknown with a
  // suggestion, like unknown keys in files.
  void apply_set(const std::string& assignment, diagnostics& diag);

  const nlohmann::json& doc() const { return doc_; }
  // Source of the value at pointer (of its nearest recorded ancestor).
  source_ref origin_of(const std::string& pointer) const;
  // The source to name for a problem at `pointer`: its origin, or the
  // latest layer that set anything below it.
  source_ref blame_of(const std::string& pointer) const;
  // Suitable for diagnostics' constructor.
  diagnostics::locator locator() const;

 private:
  void merge_into(nlohmann::json& dst, const nlohmann::json& src, const std::string& ptr,
                  const source_ref& from);
  void set_origin(const std::string& ptr, const source_ref& from);

  nlohmann::json doc_;
  std::map<std::string, source_ref> origins_;  // JSON pointer -> source
  int next_layer_ = 1;
};

// Parses a JSON file. Syntax errors are reported as "path:line:column: reason".
std::optional<nlohmann::json> read_json_file(const std::string& path, diagnostics& diag);

// Writes text to path ("-" = stdout); throws config_error naming the path.
void write_text_file(const std::string& text, const std::string& path);

}  // namespace pccx::config
