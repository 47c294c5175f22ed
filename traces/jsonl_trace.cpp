#include "traces/jsonl_trace.h"

namespace pccx::trace {

jsonl_trace::jsonl_trace(const std::string& path) : out_(path, "trace file") {}

void jsonl_trace::write(const nlohmann::ordered_json& record) {
  out_.stream() << record.dump() << '\n';
  ++records_;
}

}  // namespace pccx::trace
