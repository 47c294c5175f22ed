// The configuration converted once into what the models consume: clock
// periods and latencies as sc_time, limits as the decoder's structs.
#pragma once

#include <array>
#include <systemc>
#include <vector>

#include "models/memory/ddr/ddr_params.h"
#include "models/memory/dma/dma_channel.h"
#include "models/npu/core/npu_params.h"
#include "models/npu/npu.h"
#include "pccx_dma.h"
#include "platform/config/platform_config.h"
#include "platform/vp/cpu/firmware_cpu.h"

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

  // The NPU's datapath: L2, stream FIFOs, execution units.
  npu::npu_datapath_params datapath;
  // Memory system.
  mem::ddr_params ddr;
  std::array<mem::dma_channel_params, PCCX_DMA_CHANNELS> dma;
};

runtime_params to_runtime(const config::platform_config& cfg);

}  // namespace pccx::vp
