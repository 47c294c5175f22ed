// Runtime parameters of the NPU, converted once from the configuration
// (clock periods as sc_time, counts as integers).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <systemc>

#include "models/npu/isa/instruction.h"

namespace pccx::npu {

struct npu_params {
  sc_core::sc_time core_period = sc_core::sc_time(2.5, sc_core::SC_NS);
  uint32_t cmd_fifo_depth = 8;
  uint32_t decode_cycles = 1;  // decoder register stage
  uint32_t issue_cycles = 1;   // scheduler stage
  uint32_t cache_write_cycles = 1;
  std::array<std::string, 4> cache_bank_names{"fmap_shape", "weight_shape", "head_scale",
                                              "channel_scale"};
  isa::decode_limits limits;      // L2 size, cores, CVO limits, enabled banks
  bool strict = false;            // an NPU error ends the run instead of latching
  bool gemv_sfu_chaining = true;  // npu.sfu.gemv_chaining: the direct GEMV -> SFU path
};

}  // namespace pccx::npu
