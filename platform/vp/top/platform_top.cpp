#include "platform/vp/top/platform_top.h"

namespace pccx::vp {

namespace {
const char* const kChannelNames[PCCX_DMA_CHANNELS] = {"hp0", "hp1",      "hp2",
                                                      "hp3", "acp_fmap", "acp_result"};

std::unique_ptr<mem::stream_fifo> make_fifo(const runtime_params& rt, unsigned ch) {
  const bool hp = ch <= PCCX_DMA_HP3;
  return std::make_unique<mem::stream_fifo>(std::string(kChannelNames[ch]) + "_fifo",
                                            hp ? rt.weight_fifo_bytes : rt.acp_fifo_bytes,
                                            rt.functional);
}

std::vector<mem::stream_fifo*> pick_fifos(decltype(platform_top::fifos)& all,
                                          const std::vector<unsigned>& channels) {
  std::vector<mem::stream_fifo*> picked;
  for (unsigned ch : channels) picked.push_back(all.at(ch).get());
  return picked;
}

decltype(platform_top::fifos) make_fifos(const runtime_params& rt) {
  decltype(platform_top::fifos) f;
  for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch) f[ch] = make_fifo(rt, ch);
  return f;
}
}  // namespace

platform_top::platform_top(const runtime_params& rt, trace::trace_hub& traces,
                           std::ostream* console)
    : bus("bus"),
      cpu("cpu", rt.cpu, control, bus, &traces),
      npu("npu", rt.npu, &traces),
      simctl("simctl", control, &traces, console),
      ddr("ddr", rt.ddr),
      l2("l2", rt.l2),
      fifos(make_fifos(rt)),
      acp("acp"),
      memcpy("dma", rt.memcpy, l2, *fifos[PCCX_DMA_ACP_FMAP], *fifos[PCCX_DMA_ACP_RESULT]),
      sfu("sfu", rt.sfu, l2, npu.counters()),
      gemv("gemv", rt.gemv, l2, pick_fifos(fifos, rt.gemv_weight_fifos), npu.counters()),
      gemm("gemm", rt.gemm, l2, pick_fifos(fifos, {PCCX_DMA_HP0, PCCX_DMA_HP1}), npu.counters()),
      npu_irq_("npu_irq") {
  cpu.bus.bind(bus.cpu);
  cpu.ddr.bind(ddr.port(mem::ddr_port::cpu));

  bus.add_region({"npu", rt.npu_base, rt.npu_regs_size, rt.mmio_read_latency, rt.mmio_write_latency,
                  &npu::npu_register_bank::register_name});
  bus.targets.bind(npu.mmio());
  for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch) {
    dma[ch] = std::make_unique<mem::dma_channel>(kChannelNames[ch], rt.dma[ch], *fifos[ch]);
    bus.add_region({std::string("dma.") + kChannelNames[ch], rt.npu_base + PCCX_DMA_PAGE_OFFSET(ch),
                    PCCX_DMA_PAGE_SIZE, rt.mmio_read_latency, rt.mmio_write_latency,
                    &mem::dma_channel::register_name});
    bus.targets.bind(dma[ch]->mmio);
    if (ch <= PCCX_DMA_HP3)
      dma[ch]->ddr.bind(ddr.port(static_cast<mem::ddr_port>(ch)));
    else
      dma[ch]->ddr.bind(acp.in);
  }
  acp.out.bind(ddr.port(mem::ddr_port::acp));
  npu.bind_unit(npu::unit_kind::dma, memcpy);
  npu.bind_unit(npu::unit_kind::sfu, sfu);
  npu.bind_unit(npu::unit_kind::gemv, gemv);
  npu.bind_unit(npu::unit_kind::gemm, gemm);
  // findemax: the GEMV engine hands its row maximum to the SFU's e_max register.
  gemv.emax.subscribe([this](float e_max) { sfu.set_emax(e_max); });
  ddr.set_trace(traces.channel("ddr"));
  // Sim-control accesses are free: it exists only to observe and steer the run.
  bus.add_region({"simctl", rt.simctl_base, rt.simctl_size, sc_core::SC_ZERO_TIME,
                  sc_core::SC_ZERO_TIME, &sim_control::register_name});
  bus.targets.bind(simctl.mmio);

  npu.irq(npu_irq_);
  cpu.npu_irq(npu_irq_);

  // The NPU's DDR byte counters cover its own ports, not the CPU's.
  ddr.accesses.subscribe([this](const mem::ddr_access& a) {
    if (a.port == mem::ddr_port::cpu) return;
    npu.counters().add(a.write ? PCCX_PERF_DDR_WR_BYTES : PCCX_PERF_DDR_RD_BYTES, a.bytes);
  });

  if (rt.npu.strict) {
    for (auto& ch : dma)
      ch->faults.subscribe([this](const mem::dma_fault& f) {
        control.fail("strict mode: DMA channel " + std::string(kChannelNames[f.page]) +
                     " descriptor #" + std::to_string(f.seq) + ": " + f.reason);
      });
    npu.cmd().errors.subscribe([this, limits = rt.npu.limits](const npu::npu_error& e) {
      control.fail("strict mode: NPU error " + isa::error_name(e.code) + " on instruction #" +
                   std::to_string(e.seq) + " (" + isa::disassemble(e.word, limits) +
                   "): " + e.detail);
    });
  }
}

}  // namespace pccx::vp
