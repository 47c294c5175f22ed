// A trace file in JSON Lines: one JSON object per line. The file is
// written whole or not at all (io::output_file): close() puts it in place
// and reports a write error. Opening a path that cannot be written throws.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "infra/io/output_file.h"

namespace pccx::trace {

class jsonl_trace {
 public:
  explicit jsonl_trace(const std::string& path);  // throws io::output_error
  jsonl_trace(const jsonl_trace&) = delete;
  jsonl_trace& operator=(const jsonl_trace&) = delete;

  void write(const nlohmann::ordered_json& record);
  // Every record on disk under its name; throws io::output_error naming the
  // file when a write failed. Without it the file is left out.
  void close() { out_.commit(); }
  const std::string& path() const { return out_.path(); }
  uint64_t records() const { return records_; }

 private:
  io::output_file out_;
  uint64_t records_ = 0;
};

}  // namespace pccx::trace
