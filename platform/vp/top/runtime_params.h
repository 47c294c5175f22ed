// The configuration converted once into what the models consume: clock
// periods and latencies as sc_time, limits as the decoder's structs.
#pragma once

#include <systemc>

#include "config/platform_config.h"
#include "npu/core/npu_params.h"
#include "vp/cpu/firmware_cpu.h"

namespace pccx::vp {

struct runtime_params {
  npu::npu_params npu;
  firmware_cpu::params cpu;
  sc_core::sc_time quantum;
  sc_core::sc_time max_time;
  sc_core::sc_time mmio_read_latency;
  sc_core::sc_time mmio_write_latency;
  uint64_t npu_base = 0;
  uint64_t npu_regs_size = 0;
  uint64_t simctl_base = 0;
  uint64_t simctl_size = 0;
};

runtime_params to_runtime(const config::platform_config& cfg);

}  // namespace pccx::vp
