// The configuration section of the GEMV engine (`npu.gemv`), owned by the
// model: its keys, defaults, ranges and checks. The unit's parameters hold it
// as it is (gemv_unit_params::section), so each default is written here only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "infra/config/config_schema.h"

namespace pccx::config {

struct gemv_config {
  std::uint32_t macs_per_core_per_cycle = 32;
  std::uint32_t pipeline_latency_cycles = 6;
  std::uint32_t scale_group = 0;
  std::vector<std::uint32_t> weight_fifos = {2, 3};
  bool head_parallel = true;

  template <class V>
  void visit(V& v) {
    v.field("macs_per_core_per_cycle", macs_per_core_per_cycle,
            "MACs per GEMV core per clock (32 INT4 weights)",
            range(1, 1024, "at least 1 (ceil(K / width) clocks a row); 1,024 is a modelling cap"));
    v.field("pipeline_latency_cycles", pipeline_latency_cycles,
            "5-stage reduction tree plus output register",
            range(0, 1000, "0 = no pipeline (RTL: 6); 1,000 is a modelling cap"));
    v.field("scale_group", scale_group,
            "Weights per BF16 scale with w_scale; 0 = one scale per output row",
            range(0, 65535, "0 = one scale per row; a group spans at most the 16-bit K field"));
    v.field("weight_fifos", weight_fifos,
            "HP channels whose weight FIFOs feed the GEMV (row n from the (n mod count)-th)",
            items(1, 4), range(0, 3, "HP0 to HP3: the four HP channels with a weight FIFO"));
    v.field("head_parallel", head_parallel,
            "Accept parallel_lane bit 4: head-parallel partitioning (activation row m on core "
            "m mod cores, weight rows broadcast)");
  }
  void validate(validator& check) const;
};

inline void gemv_config::validate(validator& check) const {
  for (std::size_t i = 0; i < weight_fifos.size(); ++i) {
    if (weight_fifos[i] > 3)
      check.fail("weight_fifos/" + std::to_string(i),
                 "must name an HP channel 0..3, found " + std::to_string(weight_fifos[i]));
    for (std::size_t j = 0; j < i; ++j)
      if (weight_fifos[j] == weight_fifos[i])
        check.fail("weight_fifos/" + std::to_string(i),
                   "HP channel " + std::to_string(weight_fifos[i]) + " is listed twice");
  }
}

}  // namespace pccx::config
