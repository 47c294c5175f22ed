#include "models/memory/ddr/dram/dram_energy.h"

#include <algorithm>

namespace pccx::mem {

dram_energy_costs dram_energy_costs::of(const config::ddr_energy_config& e, uint32_t devices,
                                        const dram_timing& t) {
  // mA x V x ns = pJ.
  const double pj = 1e-12 * devices * e.vdd;
  const double rc = t.ns(t.rc), ras = t.ns(t.ras), burst = t.ns(t.burst);
  dram_energy_costs k;
  k.activate_j = pj * std::max(0.0, e.idd0_ma * rc - (e.idd3n_ma * ras + e.idd2n_ma * (rc - ras)));
  k.read_burst_j = pj * std::max(0.0, e.idd4r_ma - e.idd3n_ma) * burst;
  k.write_burst_j = pj * std::max(0.0, e.idd4w_ma - e.idd3n_ma) * burst;
  k.refresh_j = pj * std::max(0.0, e.idd5b_ma - e.idd3n_ma) * t.ns(t.rfc);
  k.active_clock_j = pj * e.idd3n_ma * t.tck_ns;
  k.precharged_clock_j = pj * e.idd2n_ma * t.tck_ns;
  return k;
}

dram_energy energy_of(const dram_energy_costs& k, const dram_commands& c, int64_t elapsed_clocks,
                      int64_t precharged_clocks) {
  dram_energy e;
  e.activate_j = k.activate_j * static_cast<double>(c.activates);
  e.read_j = k.read_burst_j * static_cast<double>(c.read_bursts);
  e.write_j = k.write_burst_j * static_cast<double>(c.write_bursts);
  e.refresh_j = k.refresh_j * static_cast<double>(c.refreshes);
  const int64_t precharged = std::clamp<int64_t>(precharged_clocks, 0, elapsed_clocks);
  e.background_j = k.active_clock_j * static_cast<double>(elapsed_clocks - precharged) +
                   k.precharged_clock_j * static_cast<double>(precharged);
  return e;
}

nlohmann::ordered_json to_json(const dram_energy& e) {
  nlohmann::ordered_json j;
  j["activate_mj"] = e.activate_j * 1e3;
  j["read_mj"] = e.read_j * 1e3;
  j["write_mj"] = e.write_j * 1e3;
  j["refresh_mj"] = e.refresh_j * 1e3;
  j["background_mj"] = e.background_j * 1e3;
  j["total_mj"] = e.total_j() * 1e3;
  return j;
}

}  // namespace pccx::mem
