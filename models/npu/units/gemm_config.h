// The configuration section of the GEMM array (`npu.gemm`), owned by the
// model: its keys, defaults and ranges. The unit's parameters hold it as it
// is (gemm_unit_params::section), so each default is written here only.
#pragma once

#include <cstdint>

#include "infra/config/config_schema.h"

namespace pccx::config {

struct gemm_config {
  std::uint32_t tile_load_cycles = 32;
  std::uint32_t systolic_latency_cycles = 64;
  std::uint32_t drain_limit = 1024;
  std::uint32_t drain_cycles = 4;
  std::uint32_t act_buffer_bytes = 1048576;
  std::uint32_t acc_buffer_entries = 262144;
  std::uint32_t weight_block_bytes = 131072;

  template <class V>
  void visit(V& v) {
    v.field("tile_load_cycles", tile_load_cycles,
            "Cycles to load a 32 x 64 INT4 weight tile into the array",
            range(1, 100000,
                  "a load takes time (RTL: one K row a clock, 32); 100,000 is a modelling cap"));
    v.field("systolic_latency_cycles", systolic_latency_cycles,
            "Array fill and drain latency per N-tile (SYSTOLIC_TOTAL_LATENCY)",
            range(0, 100000, "0 = no fill latency (RTL: 64); 100,000 is a modelling cap"));
    v.field("drain_limit", drain_limit,
            "Accumulations before the array drains (1,024 per the README, 4,096 per the doc); "
            "longer K is split",
            range(1, 1048576,
                  "at least 1 (windows = ceil(K / limit)); past the 16-bit K field, one window"));
    v.field("drain_cycles", drain_cycles, "Cycles per extra drain window",
            range(0, 100000, "0 = free drains (default 4); 100,000 is a modelling cap"));
    v.field(
        "act_buffer_bytes", act_buffer_bytes,
        "Activation buffer the L2 streams into, K-slice by K-slice; an instruction's M*K "
        "INT8 activations must fit (1 MiB holds the 917,504 BF16 of the default L2)",
        range(1u, 1048576u,
              "at least a byte; the 17-bit L2 address holds at most 1 Mi BF16, so M*K fits 1 MiB"));
    v.field("acc_buffer_entries", acc_buffer_entries,
            "Partial sums held across K-tiles: the first N-group has max(1, min(N-tiles, "
            "entries / (M * 64))) N-tiles that share each streamed activation slice",
            range(1u, 16777216u,
                  "at least 1; G stops at 4 N-tiles, and 4 x 64 x M (16-bit) stays below 2^24"));
    v.field("weight_block_bytes", weight_block_bytes,
            "Weight block buffer per FIFO: an N-tile's 32 weight columns are held whole "
            "(32 x the column's bytes); an instruction whose N-tile does not fit is refused "
            "(split K), and the first N-group holds at most as many N-tiles as fit",
            range(16u, 16777216u,
                  "at least one beat; 16 MiB caps the buffer (a 65,535-wide K column is 32 KiB)"));
  }
};

}  // namespace pccx::config
