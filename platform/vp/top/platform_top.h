// The assembled platform: firmware CPU -> interconnect -> {NPU registers,
// sim-control device}, and the NPU's idle-or-error line back to the CPU.
// Later subsystems (DDR controller, DMA channels, compute units) are bound
// here.
#pragma once

#include <systemc>

#include "npu/core/npu.h"
#include "trace/trace_hub.h"
#include "vp/bus/address_router.h"
#include "vp/cpu/firmware_cpu.h"
#include "vp/simctl/sim_control.h"
#include "vp/top/run_control.h"
#include "vp/top/runtime_params.h"

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

 private:
  sc_core::sc_signal<bool> npu_irq_;
};

}  // namespace pccx::vp
