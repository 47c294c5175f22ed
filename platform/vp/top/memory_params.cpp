#include "vp/top/memory_params.h"

#include <stdexcept>

namespace pccx::vp {

using sc_core::SC_NS;
using sc_core::sc_time;

pccx::mem::ddr_params make_ddr_params(const pccx::config::platform_config& cfg) {
  const config::ddr_config& d = cfg.ddr;
  mem::ddr_params p;

  mem::ddr_dram_params& dram = p.dram;
  dram.model = d.model == "fixed" ? mem::efficiency_model::fixed : mem::efficiency_model::derived;
  dram.data_rate_mtps = d.data_rate_mtps;
  dram.bus_bits = d.bus_bits;
  dram.burst_length = d.burst_length;
  dram.page_bytes = d.page_bytes;
  dram.cl = d.timing.cl;
  dram.cwl = d.timing.cwl;
  dram.trcd = d.timing.trcd;
  dram.trp = d.timing.trp;
  dram.tccd_s = d.timing.tccd_s;
  dram.twtr_l = d.timing.twtr_l;
  dram.trfc_ns = d.timing.trfc_ns;
  dram.trefi_ns = d.timing.trefi_ns;
  dram.row_switch_exposed = d.row_switch_exposed;
  dram.rw_batch_bytes = d.rw_batch_bytes;
  dram.controller_efficiency = d.controller_efficiency;
  dram.interconnect_efficiency = d.interconnect_efficiency;
  dram.fixed_efficiency = d.fixed_efficiency;

  p.base = cfg.memory_map.ddr_base;
  p.size = cfg.memory_map.ddr_size;
  p.functional = cfg.simulation.mode == "functional";
  p.read_latency = sc_time(d.read_latency_ns, SC_NS);
  p.write_latency = sc_time(d.write_latency_ns, SC_NS);
  p.arbitration = d.arbitration;
  if (d.port_weights.size() != p.port_weights.size())
    throw std::invalid_argument("ddr.port_weights must have one entry per port");
  for (size_t i = 0; i < p.port_weights.size(); ++i) p.port_weights[i] = d.port_weights[i];

  const double axi_hz = cfg.clocks.axi_mhz * 1e6;
  for (auto hp : {mem::ddr_port::hp0, mem::ddr_port::hp1, mem::ddr_port::hp2, mem::ddr_port::hp3})
    p.port_cap_bytes_per_s[static_cast<size_t>(hp)] = d.hp_bytes_per_cycle * axi_hz;
  p.port_cap_bytes_per_s[static_cast<size_t>(mem::ddr_port::acp)] = d.acp_bytes_per_cycle * axi_hz;
  p.port_cap_bytes_per_s[static_cast<size_t>(mem::ddr_port::cpu)] = d.cpu_gbps * 1e9;

  p.activity_horizon = sc_time(static_cast<double>(cfg.simulation.quantum_ns), SC_NS);
  p.window = sc_time(cfg.stats.window_ns, SC_NS);
  return p;
}

}  // namespace pccx::vp
