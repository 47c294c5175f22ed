// The lower bound of one decode step from the configuration alone: the
// bytes the step must move from DDR at the effective bandwidth, against the
// MACs it must do at the GEMV engine's peak. The simulated latency can never
// be lower (a test holds the platform to it); the ratio of the two says how
// much the platform's structure costs beyond the unavoidable.
#pragma once

#include <cstdint>

#include "platform/workload/llm/model_config.h"
#include "platform/workload/llm/model_shapes.h"

namespace pccx::llm {

struct roofline_inputs {
  double ddr_bytes_per_second = 11.003e9;  // effective, all traffic (the DDR model's figure)
  double macs_per_second = 51.2e9;         // GEMV peak: cores x MACs/clock x clock
};

struct roofline {
  uint64_t weight_bytes = 0;    // matrix records, embedding and per-layer rows
  uint64_t kv_read_bytes = 0;   // every layer's span of its source cache
  uint64_t kv_write_bytes = 0;  // the token's records in every storing layer
  uint64_t macs = 0;            // matrices (dense) + attention
  double memory_seconds = 0;    // bytes / bandwidth
  double compute_seconds = 0;   // MACs / peak
  double bound_seconds = 0;     // the larger
  bool memory_bound = false;
  // MAC utilisation of the GEMV engine if the step ran at the bound.
  double max_mac_utilisation = 0;
  uint64_t bytes() const { return weight_bytes + kv_read_bytes + kv_write_bytes; }
};

roofline decode_roofline(const model_config& m, const kv_formats& f, uint64_t context,
                         const roofline_inputs& in);
// The bound of any step from its bytes and MACs (std::invalid_argument for
// a bandwidth or MAC rate that is not positive).
roofline roofline_of(uint64_t weight_bytes, uint64_t kv_read_bytes, uint64_t kv_write_bytes,
                     uint64_t macs, const roofline_inputs& in);

}  // namespace pccx::llm
