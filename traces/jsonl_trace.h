// A trace file in JSON Lines: one JSON object per line, flushed on close.
// Opening a path that cannot be written is a user error and throws.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace pccx::trace {

class jsonl_trace {
 public:
  explicit jsonl_trace(const std::string& path);  // throws std::runtime_error
  ~jsonl_trace();
  jsonl_trace(const jsonl_trace&) = delete;
  jsonl_trace& operator=(const jsonl_trace&) = delete;

  void write(const nlohmann::ordered_json& record);
  const std::string& path() const { return path_; }
  uint64_t records() const { return records_; }

 private:
  std::string path_;
  std::ofstream out_;
  uint64_t records_ = 0;
};

}  // namespace pccx::trace
