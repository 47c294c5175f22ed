// Runtime parameters of the DDR4 controller model, converted once from the
// configuration (platform/vp/top/memory_params.cpp): latencies and windows as
// sc_time, port caps in bytes per second, DRAM timing as the JEDEC numbers the
// efficiency derivation (ddr_efficiency.h) consumes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <systemc>

#include "memory/common/traffic.h"

namespace pccx::mem {

enum class efficiency_model { derived, fixed };

// Inputs of the efficiency derivation. Timing in tCK unless the name says ns.
struct ddr_dram_params {
  efficiency_model model = efficiency_model::derived;
  uint32_t data_rate_mtps = 2400;
  uint32_t bus_bits = 64;
  uint32_t burst_length = 8;
  uint32_t page_bytes = 8192;
  uint32_t cl = 16;
  uint32_t cwl = 16;
  uint32_t trcd = 16;
  uint32_t trp = 16;
  uint32_t tccd_s = 4;
  uint32_t twtr_l = 9;
  double trfc_ns = 350.0;
  double trefi_ns = 7800.0;
  double row_switch_exposed = 1.0;
  uint32_t rw_batch_bytes = 2048;
  double controller_efficiency = 0.75;
  double interconnect_efficiency = 0.85;
  double fixed_efficiency = 0.57;
};

struct ddr_params {
  ddr_dram_params dram;
  // DDR as the initiators address it: [base, base + size).
  uint64_t base = 0;
  uint64_t size = 0x100000000ull;
  // functional: real bytes in a sparse store; false (timing): no data is kept.
  bool functional = true;
  // Added after the transfer (pipelined: the port is free at transfer end).
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
};

}  // namespace pccx::mem
