// The assembled platform: firmware CPU -> interconnect -> {NPU registers,
// DMA channel pages, sim-control device}; the DMA channels fill and drain
// the NPU's stream FIFOs and share the DDR controller with the CPU (the two
// ACP channels through one ACP port); the NPU's idle-or-error line goes back
// to the CPU. The NPU module owns L2, its stream FIFOs and its units.
#pragma once

#include <array>
#include <memory>
#include <systemc>

#include "infra/trace/trace_hub.h"
#include "models/memory/common/port_merger.h"
#include "models/memory/ddr/ddr_controller.h"
#include "models/memory/dma/dma_channel.h"
#include "models/npu/npu.h"
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
  std::array<std::unique_ptr<mem::dma_channel>, PCCX_DMA_CHANNELS> dma;
  mem::port_merger acp;

  // The stream FIFO behind DMA channel `channel`: the weight FIFOs behind
  // HP0..HP3, the CDC FIFOs of ACP_FMAP and ACP_RESULT (owned by the NPU).
  mem::stream_fifo& fifo(unsigned channel) { return npu.stream_fifo(channel); }
  // The NPU's state in words, for a message about a run that cannot go on:
  // halted at an error (which, on what), work in flight, or idle.
  std::string npu_state() const;

 private:
  sc_core::sc_signal<bool> npu_irq_;
};

}  // namespace pccx::vp
