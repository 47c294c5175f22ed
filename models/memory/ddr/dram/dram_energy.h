// DRAM energy by the IDD method of the DDR4 data sheets: each command and
// each clock of background costs its current above (or at) the standby
// current, times VDD, per device.
//
//   activate  VDD x (IDD0 x tRC - (IDD3N x tRAS + IDD2N x (tRC - tRAS)))
//   read      VDD x (IDD4R - IDD3N) x BL/2 x tCK per burst
//   write     VDD x (IDD4W - IDD3N) x BL/2 x tCK per burst
//   refresh   VDD x (IDD5B - IDD3N) x tRFC per refresh
//   background VDD x (IDD3N x active clocks + IDD2N x precharged clocks) x tCK
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "models/memory/ddr/ddr_config.h"
#include "models/memory/ddr/dram/dram_rank.h"
#include "models/memory/ddr/dram/dram_timing.h"

namespace pccx::mem {

// Joules of one command of each kind, for every device of the rank.
struct dram_energy_costs {
  double activate_j = 0;
  double read_burst_j = 0;
  double write_burst_j = 0;
  double refresh_j = 0;
  double active_clock_j = 0;      // background, a row open
  double precharged_clock_j = 0;  // background, every bank closed

  static dram_energy_costs of(const config::ddr_energy_config& e, uint32_t devices,
                              const dram_timing& t);
};

struct dram_energy {
  double activate_j = 0, read_j = 0, write_j = 0, refresh_j = 0, background_j = 0;
  double total_j() const { return activate_j + read_j + write_j + refresh_j + background_j; }
};

dram_energy energy_of(const dram_energy_costs& k, const dram_commands& c, int64_t elapsed_clocks,
                      int64_t precharged_clocks);

nlohmann::ordered_json to_json(const dram_energy& e);

}  // namespace pccx::mem
