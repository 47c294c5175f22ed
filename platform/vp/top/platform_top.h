// The assembled platform: firmware CPU -> interconnect -> {NPU registers,
// DMA channel pages, sim-control device}; the DMA channels and the CPU share
// the DDR controller (the two ACP channels through one ACP port); the MEMCPY
// unit moves data between L2 and the ACP stream FIFOs; the NPU's
// idle-or-error line goes back to the CPU. Compute units plug in here.
#pragma once

#include <array>
#include <memory>
#include <systemc>

#include "models/memory/common/port_merger.h"
#include "models/memory/ddr/ddr_controller.h"
#include "models/memory/dma/dma_channel.h"
#include "models/memory/dma/stream_fifo.h"
#include "models/memory/l2/l2_memory.h"
#include "models/npu/core/npu.h"
#include "models/npu/units/gemm_unit.h"
#include "models/npu/units/gemv_unit.h"
#include "models/npu/units/memcpy_unit.h"
#include "models/npu/units/sfu_unit.h"
#include "infra/trace/trace_hub.h"
#include "platform/vp/bus/address_router.h"
#include "platform/vp/cpu/firmware_cpu.h"
#include "platform/vp/simctl/sim_control.h"
#include "platform/vp/top/run_control.h"
#include "platform/vp/top/runtime_params.h"

namespace pccx::vp {

// A plain object rather than a module, so the modules' hierarchical names
// (npu.cmd, cpu, simctl) are the names logs, traces and --log use.
class platform_top {
 public:
  platform_top(const runtime_params& rt, trace::trace_hub& traces, std::ostream* console);

  run_control control;
  address_router bus;
  firmware_cpu cpu;
  npu::npu npu;
  sim_control simctl;
  mem::ddr_controller ddr;
  mem::l2_memory l2;
  // One stream FIFO per DMA channel: the weight FIFOs behind HP0..HP3, the
  // CDC FIFOs of ACP_FMAP and ACP_RESULT.
  std::array<std::unique_ptr<mem::stream_fifo>, PCCX_DMA_CHANNELS> fifos;
  std::array<std::unique_ptr<mem::dma_channel>, PCCX_DMA_CHANNELS> dma;
  mem::port_merger acp;
  npu::memcpy_unit memcpy;
  npu::sfu_unit sfu;
  npu::gemv_unit gemv;
  npu::gemm_unit gemm;

  mem::stream_fifo& fifo(unsigned channel) { return *fifos.at(channel); }

 private:
  sc_core::sc_signal<bool> npu_irq_;
};

}  // namespace pccx::vp
