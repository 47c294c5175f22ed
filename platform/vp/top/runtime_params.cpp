#include "platform/vp/top/runtime_params.h"

#include "pccx_simctl.h"
#include "platform/vp/top/memory_params.h"

namespace pccx::vp {

using sc_core::SC_NS;
using sc_core::sc_time;

runtime_params to_runtime(const config::platform_config& cfg) {
  runtime_params rt;
  rt.npu.section = cfg.npu;
  rt.npu.core_period = sc_time(1000.0 / cfg.clocks.core_mhz, SC_NS);
  rt.npu.strict = cfg.simulation.strict;
  rt.npu.lint = cfg.simulation.lint;
  rt.npu.inject_fault_at = cfg.simulation.inject_npu_fault_at;
  rt.npu.gemv_quantum = sc_time(static_cast<double>(cfg.simulation.gemv_quantum_ns), SC_NS);

  rt.cpu.mmio_base = cfg.memory_map.npu_base;
  rt.cpu.stack_bytes = static_cast<size_t>(cfg.cpu.stack_kib) * 1024u;
  rt.cpu.clock_mhz = cfg.cpu.clock_mhz;
  rt.cpu.cycles_per_instruction = cfg.cpu.cycles_per_instruction;
  rt.cpu.livelock_reads = cfg.simulation.livelock_reads;
  rt.cpu.elf.npu_base = cfg.memory_map.npu_base;
  rt.cpu.elf.ddr_base = cfg.memory_map.ddr_base;
  rt.cpu.elf.ddr_size = cfg.memory_map.ddr_size;
  rt.cpu.elf.stack_bytes = uint64_t{cfg.cpu.elf_stack_kib} * 1024u;
  rt.quantum = sc_time(static_cast<double>(cfg.simulation.quantum_ns), SC_NS);
  rt.max_time = sc_time(static_cast<double>(cfg.simulation.max_time_ms), sc_core::SC_MS);
  rt.mmio_read_latency = sc_time(static_cast<double>(cfg.cpu.mmio_read_ns), SC_NS);
  rt.mmio_write_latency = sc_time(static_cast<double>(cfg.cpu.mmio_write_ns), SC_NS);
  rt.npu_base = cfg.memory_map.npu_base;
  rt.npu_regs_size = PCCX_NPU_REGS_SIZE;
  rt.simctl_base = cfg.memory_map.npu_base + PCCX_SIMCTL_OFFSET;
  rt.simctl_size = 0x1000;

  const bool functional = cfg.simulation.functional();
  rt.datapath = {functional, cfg.dma};
  rt.ddr = make_ddr_params(cfg);
  for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch) {
    mem::dma_channel_params& d = rt.dma[ch];
    d = mem::dma_channel_params::for_page(ch);
    d.ddr_base = cfg.memory_map.ddr_base;
    d.ddr_size = cfg.memory_map.ddr_size;
    d.section = cfg.dma;
    d.functional = functional;
  }
  return rt;
}

}  // namespace pccx::vp
