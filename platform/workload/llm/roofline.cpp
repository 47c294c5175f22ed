#include "platform/workload/llm/roofline.h"

#include <algorithm>
#include <stdexcept>

namespace pccx::llm {

roofline decode_roofline(const model_config& m, const kv_formats& f, uint64_t context,
                         const roofline_inputs& in) {
  return roofline_of(weight_bytes_per_token(m).records, kv_read_bytes_per_token(m, f, context),
                     kv_bytes_per_token(m, f),
                     weight_macs_per_token(m) + attention_macs_per_token(m, context), in);
}

roofline roofline_of(uint64_t weight_bytes, uint64_t kv_read_bytes, uint64_t kv_write_bytes,
                     uint64_t macs, const roofline_inputs& in) {
  if (!(in.ddr_bytes_per_second > 0) || !(in.macs_per_second > 0))
    throw std::invalid_argument("roofline: bandwidth and MAC rate must be positive");
  roofline r;
  r.weight_bytes = weight_bytes;
  r.kv_read_bytes = kv_read_bytes;
  r.kv_write_bytes = kv_write_bytes;
  r.macs = macs;
  r.memory_seconds = static_cast<double>(r.bytes()) / in.ddr_bytes_per_second;
  r.compute_seconds = static_cast<double>(r.macs) / in.macs_per_second;
  r.bound_seconds = std::max(r.memory_seconds, r.compute_seconds);
  r.memory_bound = r.memory_seconds >= r.compute_seconds;
  r.max_mac_utilisation = r.compute_seconds / r.bound_seconds;
  return r;
}

}  // namespace pccx::llm
