// The JEDEC timing of ddr.timing in whole DRAM clocks (nCK), as the DRAM
// model counts time: nanosecond parameters are rounded up to clocks of
// tCK = 2000 / data_rate_mtps ns, as a controller programs them.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "models/memory/ddr/ddr_config.h"

namespace pccx::mem {

struct dram_timing {
  double tck_ns = 0;
  uint32_t burst_bytes = 0;  // bus width x burst length
  uint32_t burst = 0;        // data bus clocks of one burst (BL / 2)
  uint32_t cl = 0, cwl = 0, ccd_s = 0, ccd_l = 0;
  uint32_t rcd = 0, rp = 0, ras = 0, rc = 0;
  uint32_t rrd_s = 0, rrd_l = 0, faw = 0;
  uint32_t wtr_s = 0, wtr_l = 0, wr = 0, rtp = 0;
  uint32_t rfc = 0;
  uint64_t refi = 0;

  static dram_timing of(const config::ddr_config& c);
  // Clocks of `ns`, rounded up (a hair below a whole clock counts as it).
  static uint32_t clocks(double ns, double tck_ns);

  double ns(uint64_t clocks) const { return static_cast<double>(clocks) * tck_ns; }
  double peak_bytes_per_s() const { return burst_bytes / (burst * tck_ns * 1e-9); }
};

// Contradictions between timing parameters (tRAS > tRC, tRFC >= tREFI, ...),
// with the arithmetic; empty when there are none.
std::string timing_problem(const config::ddr_config& c);

nlohmann::ordered_json to_json(const dram_timing& t);

}  // namespace pccx::mem
