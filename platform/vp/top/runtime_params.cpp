#include "platform/vp/top/runtime_params.h"

#include "pccx_simctl.h"
#include "platform/config/decode_limits.h"
#include "platform/vp/top/memory_params.h"

namespace pccx::vp {

using sc_core::SC_NS;
using sc_core::sc_time;

runtime_params to_runtime(const config::platform_config& cfg) {
  runtime_params rt;
  npu::npu_params& n = rt.npu;
  n.core_period = sc_time(1000.0 / cfg.clocks.core_mhz, SC_NS);
  n.cmd_fifo_depth = cfg.npu.cmd_fifo_depth;
  n.decode_cycles = cfg.npu.decode_cycles;
  n.issue_cycles = cfg.npu.issue_cycles;
  n.cache_write_cycles = cfg.npu.constant_cache.write_cycles;
  n.limits = config::decode_limits_of(cfg);
  n.gemv_sfu_chaining = cfg.npu.sfu.gemv_chaining;
  for (size_t b = 0; b < cfg.npu.constant_cache.banks.size() && b < n.cache_bank_names.size(); ++b)
    n.cache_bank_names[b] = cfg.npu.constant_cache.banks[b].name;
  n.strict = cfg.simulation.strict;

  rt.cpu.mmio_base = cfg.memory_map.npu_base;
  rt.cpu.stack_bytes = static_cast<size_t>(cfg.cpu.stack_kib) * 1024u;
  rt.quantum = sc_time(static_cast<double>(cfg.simulation.quantum_ns), SC_NS);
  rt.max_time = sc_time(static_cast<double>(cfg.simulation.max_time_ms), sc_core::SC_MS);
  rt.mmio_read_latency = sc_time(static_cast<double>(cfg.cpu.mmio_read_ns), SC_NS);
  rt.mmio_write_latency = sc_time(static_cast<double>(cfg.cpu.mmio_write_ns), SC_NS);
  rt.npu_base = cfg.memory_map.npu_base;
  rt.npu_regs_size = PCCX_NPU_REGS_SIZE;
  rt.simctl_base = cfg.memory_map.npu_base + PCCX_SIMCTL_OFFSET;
  rt.simctl_size = 0x1000;

  rt.datapath.functional = cfg.simulation.functional();
  rt.ddr = make_ddr_params(cfg);
  rt.datapath.l2.section = cfg.npu.l2;
  rt.datapath.l2.period = n.core_period;
  rt.datapath.l2.functional = rt.datapath.functional;
  for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch) {
    mem::dma_channel_params& d = rt.dma[ch];
    d = mem::dma_channel_params::for_page(ch);
    d.ddr_base = cfg.memory_map.ddr_base;
    d.ddr_size = cfg.memory_map.ddr_size;
    d.section = cfg.dma;
    d.functional = rt.datapath.functional;
  }
  rt.datapath.weight_fifo_bytes = cfg.dma.weight_fifo_bytes;
  rt.datapath.acp_fifo_bytes = cfg.dma.acp_fifo_bytes;
  rt.datapath.memcpy.chunk_words = cfg.npu.memcpy.chunk_words;
  const auto& kv = cfg.npu.kv;
  rt.datapath.memcpy.kv_key = config::to_kv_format(kv.key, kv.head_dim);
  rt.datapath.memcpy.kv_value = config::to_kv_format(kv.value, kv.head_dim);
  rt.datapath.memcpy.kv_elements_per_cycle = kv.append_elements_per_cycle;
  rt.datapath.memcpy.kv_rotation_adds_per_cycle = kv.rotation_adds_per_cycle;
  rt.datapath.memcpy.core_period = n.core_period;

  rt.datapath.sfu.section = cfg.npu.sfu;
  rt.datapath.sfu.core_period = n.core_period;
  rt.datapath.sfu.functional = rt.datapath.functional;

  const auto& gemv = cfg.npu.gemv;
  rt.datapath.gemv.core_period = n.core_period;
  rt.datapath.gemv.cores = cfg.npu.gemv_cores;
  rt.datapath.gemv.section = gemv;
  rt.datapath.gemv.functional = rt.datapath.functional;
  rt.datapath.gemv.kv_key = rt.datapath.memcpy.kv_key;
  rt.datapath.gemv.kv_value = rt.datapath.memcpy.kv_value;
  rt.datapath.gemv.dequant_elements_per_cycle = kv.dequant_elements_per_cycle;

  rt.datapath.gemm = npu::make_gemm_params(cfg.npu.gemm, n.core_period, rt.datapath.functional);
  return rt;
}

}  // namespace pccx::vp
