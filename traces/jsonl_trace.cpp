#include "traces/jsonl_trace.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace pccx::trace {

jsonl_trace::jsonl_trace(const std::string& path) : path_(path), out_(path, std::ios::trunc) {
  if (!out_)
    throw std::runtime_error("cannot open trace file '" + path +
                             "' for writing: " + std::strerror(errno));
}

jsonl_trace::~jsonl_trace() {
  out_.flush();
}

void jsonl_trace::write(const nlohmann::ordered_json& record) {
  out_ << record.dump() << '\n';
  ++records_;
}

}  // namespace pccx::trace
