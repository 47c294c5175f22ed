#include "vp/top/platform_top.h"

namespace pccx::vp {

platform_top::platform_top(const runtime_params& rt, trace::trace_hub& traces,
                           std::ostream* console)
    : bus("bus"),
      cpu("cpu", rt.cpu, control, bus, &traces),
      npu("npu", rt.npu, &traces),
      simctl("simctl", control, &traces, console),
      npu_irq_("npu_irq") {
  cpu.bus.bind(bus.cpu);

  bus.add_region({"npu", rt.npu_base, rt.npu_regs_size, rt.mmio_read_latency, rt.mmio_write_latency,
                  &npu::npu_register_bank::register_name});
  bus.targets.bind(npu.mmio());
  // Sim-control accesses are free: it exists only to observe and steer the run.
  bus.add_region({"simctl", rt.simctl_base, rt.simctl_size, sc_core::SC_ZERO_TIME,
                  sc_core::SC_ZERO_TIME, &sim_control::register_name});
  bus.targets.bind(simctl.mmio);

  npu.irq(npu_irq_);
  cpu.npu_irq(npu_irq_);

  if (rt.npu.strict) {
    npu.cmd().on_error = [this, limits = rt.npu.limits](const npu::npu_error& e) {
      control.fail("strict mode: NPU error " + isa::error_name(e.code) + " on instruction #" +
                   std::to_string(e.seq) + " (" + isa::disassemble(e.word, limits) +
                   "): " + e.detail);
    };
  }
}

}  // namespace pccx::vp
