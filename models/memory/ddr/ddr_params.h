// Runtime parameters of the DDR4 controller model, converted once from its
// configuration section (ddr_config.h) by make_ddr_params(): latencies and
// windows as sc_time, port caps in bytes per second; the DRAM's organisation,
// map and timing stay the section itself, as the DRAM model reads it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <systemc>

#include "models/memory/common/traffic.h"
#include "models/memory/ddr/ddr_config.h"

namespace pccx::mem {

using config::dram_model;

struct ddr_params {
  config::ddr_config dram;  // the ddr section: organisation, map, timing, queues, currents
  // DDR as the initiators address it: [base, base + size).
  uint64_t base = 0;
  uint64_t size = 0x100000000ull;
  // functional: real bytes in a sparse store; false (timing): no data is kept.
  bool functional = true;
  // The PS path outside the DRAM, added after the transfer (pipelined: the
  // port is free at transfer end); ddr.controller.*_latency_ns.
  sc_core::sc_time read_latency = sc_core::sc_time(100.0, sc_core::SC_NS);
  sc_core::sc_time write_latency = sc_core::sc_time(40.0, sc_core::SC_NS);
  // Policy name, see make_arbitration_policy().
  std::string arbitration = "round_robin";
  std::array<double, kDdrPorts> port_weights{1, 1, 1, 1, 1, 1};
  // Own bandwidth limit of each port (hp0..hp3, acp: width x AXI clock).
  std::array<double, kDdrPorts> port_cap_bytes_per_s{4e9, 4e9, 4e9, 4e9, 4e9, 2e9};
  // A port counts as busy for this long after its last transfer ends: how far
  // a decoupled initiator can run ahead of the others (the quantum).
  sc_core::sc_time activity_horizon = sc_core::sc_time(1000.0, sc_core::SC_NS);
  // Window of the bandwidth time series.
  sc_core::sc_time window = sc_core::sc_time(10000.0, sc_core::SC_NS);
  // A second series for plots whose window follows the run's length: it
  // starts at kPlotWindow and doubles to stay within kPlotWindows windows,
  // so a run of microseconds and one of seconds both show their shape.
  bool plot_series = false;
};

// What the controller needs from outside its own section: where DDR sits in
// the NPU's address space, the run's mode and quantum, the AXI clock of the
// HP and ACP ports and the statistics window.
struct ddr_surroundings {
  uint64_t base = 0;
  uint64_t size = 0x100000000ull;
  bool functional = true;
  double axi_mhz = 250.0;
  uint64_t quantum_ns = 1000;
  double window_ns = 10000.0;
};

// Throws std::invalid_argument when port_weights does not have one entry per port.
ddr_params make_ddr_params(const config::ddr_config& d, const ddr_surroundings& s);

}  // namespace pccx::mem
