// The configuration converted once into what the models consume: clock
// periods and latencies as sc_time, limits as the decoder's structs.
#pragma once

#include <array>
#include <systemc>
#include <vector>

#include "platform/config/platform_config.h"
#include "models/memory/ddr/ddr_params.h"
#include "models/memory/dma/dma_channel.h"
#include "models/memory/l2/l2_memory.h"
#include "models/npu/core/npu_params.h"
#include "models/npu/units/gemm_unit.h"
#include "models/npu/units/gemv_unit.h"
#include "models/npu/units/memcpy_unit.h"
#include "models/npu/units/sfu_unit.h"
#include "pccx_dma.h"
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

  // Memory system.
  bool functional = true;  // simulation.mode
  mem::ddr_params ddr;
  mem::l2_params l2;
  std::array<mem::dma_channel_params, PCCX_DMA_CHANNELS> dma;
  uint64_t weight_fifo_bytes = 0;
  uint64_t acp_fifo_bytes = 0;
  npu::memcpy_unit_params memcpy;
  npu::sfu_unit_params sfu;
  npu::gemv_unit_params gemv;
  npu::gemm_unit_params gemm;
  std::vector<unsigned> gemv_weight_fifos;  // HP channel numbers
};

runtime_params to_runtime(const config::platform_config& cfg);

}  // namespace pccx::vp
