#include "platform/vp/top/platform_top.h"

#include "infra/text/hex.h"

namespace pccx::vp {

platform_top::platform_top(const runtime_params& rt, trace::trace_hub& traces,
                           std::ostream* console)
    : bus("bus"),
      cpu("cpu", rt.cpu, control, bus, &traces),
      npu("npu", rt.npu, &traces, &rt.datapath),
      simctl("simctl", control, &traces, console),
      ddr("ddr", rt.ddr),
      acp("acp"),
      npu_irq_("npu_irq") {
  cpu.bus.bind(bus.cpu);
  cpu.ddr.bind(ddr.port(mem::ddr_port::cpu));

  bus.add_region({"npu", rt.npu_base, rt.npu_regs_size, rt.mmio_read_latency, rt.mmio_write_latency,
                  &npu::npu_register_bank::register_name});
  bus.targets.bind(npu.mmio());
  for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch) {
    dma[ch] = std::make_unique<mem::dma_channel>(npu::dma_channel_name(ch), rt.dma[ch], fifo(ch));
    bus.add_region({std::string("dma.") + npu::dma_channel_name(ch),
                    rt.npu_base + PCCX_DMA_PAGE_OFFSET(ch), PCCX_DMA_PAGE_SIZE,
                    rt.mmio_read_latency, rt.mmio_write_latency, &mem::dma_channel::register_name});
    bus.targets.bind(dma[ch]->mmio);
    if (ch <= PCCX_DMA_HP3)
      dma[ch]->ddr.bind(ddr.port(static_cast<mem::ddr_port>(ch)));
    else
      dma[ch]->ddr.bind(acp.in);
  }
  acp.out.bind(ddr.port(mem::ddr_port::acp));
  ddr.set_trace(traces.channel("ddr"));
  // Sim-control accesses are free: it exists only to observe and steer the run.
  bus.add_region({"simctl", rt.simctl_base, rt.simctl_size, sc_core::SC_ZERO_TIME,
                  sc_core::SC_ZERO_TIME, &sim_control::register_name});
  bus.targets.bind(simctl.mmio);
  simctl.cpu_instructions = [this] { return cpu.instructions(); };

  npu.irq(npu_irq_);
  cpu.npu_irq(npu_irq_);

  // The NPU's DDR byte counters cover its own ports, not the CPU's.
  ddr.accesses.subscribe([this](const mem::ddr_access& a) {
    if (a.port == mem::ddr_port::cpu) return;
    npu.counters().add(a.write ? PCCX_PERF_DDR_WR_BYTES : PCCX_PERF_DDR_RD_BYTES, a.bytes);
  });

  // What can end a polling loop: an instruction retiring, a device's DDR
  // transfer, bytes through a stream FIFO.
  cpu.set_progress_probe([this] {
    uint64_t moved = npu.cmd().retired() + npu.counters().value(PCCX_PERF_DDR_RD_BYTES) +
                     npu.counters().value(PCCX_PERF_DDR_WR_BYTES);
    for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch)
      moved += fifo(ch).statistics().bytes_pushed + fifo(ch).statistics().bytes_popped;
    return moved;
  });
  cpu.describe_platform_state = [this] { return npu_state(); };

  cpu.describe_instruction = [limits = rt.npu.limits()](uint64_t word) {
    return isa::disassemble(word, limits);
  };
  // The driver lint sees the DMA queues and the firmware's waits.
  npu.lint().channel_has_work = [this](unsigned ch) {
    return dma[ch]->has_work_at(sc_core::sc_time_stamp()) ||
           (ch == PCCX_DMA_ACP_FMAP && fifo(ch).level() > 0);
  };
  cpu.idle_waits.subscribe(
      [this](const firmware_cpu::wait_idle_record& w) { npu.lint().sync_ended(w.result == -1); });
  if (rt.npu.lint == npu::lint_mode::error)
    npu.lint().warnings.subscribe([this](const npu::lint_warning& w) {
      control.fail("lint error: " + w.text());
    });

  // A write the NPU will never take ends the run at its first cause.
  npu.hung_writes().subscribe([this](const std::string& what) {
    control.fail("firmware " + cpu.firmware_name() + ": " + what);
  });

  if (rt.npu.strict) {
    for (auto& ch : dma)
      ch->faults.subscribe([this](const mem::dma_fault& f) {
        control.fail("strict mode: DMA channel " + std::string(npu::dma_channel_name(f.page)) +
                     " descriptor #" + std::to_string(f.seq) + ": " + f.reason);
      });
    npu.cmd().errors.subscribe([this, limits = rt.npu.limits()](const npu::npu_error& e) {
      control.fail("strict mode: NPU error " + isa::error_name(e.code) + " on instruction #" +
                   std::to_string(e.seq) + " (" + isa::disassemble(e.word, limits) +
                   "): " + e.detail);
    });
  }
}

std::string platform_top::npu_state() const {
  const npu::command_processor& cmd = npu.cmd();
  if (const npu::npu_error* e = cmd.error())
    return "the NPU is halted at " + isa::error_name(e->code) + " on instruction #" +
           std::to_string(e->seq) + " (" + text::hex_word(e->word) + ": " + e->detail +
           "), latched at the first error and never cleared, and CMD_IN holds " +
           std::to_string(npu.fifo().level()) + " words";
  if (cmd.in_flight() > 0)
    return "the NPU holds " + std::to_string(cmd.in_flight()) +
           " instructions in flight that cannot finish";
  return "the NPU is idle (" + std::to_string(cmd.retired()) + " instructions retired)";
}

}  // namespace pccx::vp
