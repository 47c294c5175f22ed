#include "models/memory/ddr/ddr_params.h"

#include <stdexcept>

namespace pccx::mem {

using sc_core::SC_NS;
using sc_core::sc_time;

ddr_params make_ddr_params(const config::ddr_config& d, const ddr_surroundings& s) {
  ddr_params p;
  p.dram = d;
  p.base = s.base;
  p.size = s.size;
  p.functional = s.functional;
  p.read_latency = sc_time(d.controller.read_latency_ns, SC_NS);
  p.write_latency = sc_time(d.controller.write_latency_ns, SC_NS);
  p.arbitration = d.arbitration;
  if (d.port_weights.size() != p.port_weights.size())
    throw std::invalid_argument("ddr.port_weights must have one entry per port");
  for (size_t i = 0; i < p.port_weights.size(); ++i) p.port_weights[i] = d.port_weights[i];

  const double axi_hz = s.axi_mhz * 1e6;
  for (auto hp : {ddr_port::hp0, ddr_port::hp1, ddr_port::hp2, ddr_port::hp3})
    p.port_cap_bytes_per_s[static_cast<size_t>(hp)] = d.hp_bytes_per_cycle * axi_hz;
  p.port_cap_bytes_per_s[static_cast<size_t>(ddr_port::acp)] = d.acp_bytes_per_cycle * axi_hz;
  p.port_cap_bytes_per_s[static_cast<size_t>(ddr_port::cpu)] = d.cpu_gbps * 1e9;

  p.activity_horizon = sc_time(static_cast<double>(s.quantum_ns), SC_NS);
  p.window = sc_time(s.window_ns, SC_NS);
  return p;
}

}  // namespace pccx::mem
