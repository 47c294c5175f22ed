// The simulation's own speed: how fast the host ran the simulated platform
// (speed.json in output.dir, docs/guides/cli.md).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

namespace pccx::report {

struct run_speed {
  double wall_time_s = 0;  // elaboration, simulation and run summary, not file output
  double sim_time_ns = 0;
  uint64_t ddr_transactions = 0;  // counted at the DDR controller
  uint64_t npu_instructions = 0;  // retired
  double peak_rss_mib = 0;        // the process's peak resident memory so far

  // Simulated seconds per wall second; 0 when no wall time was measured.
  double sim_per_wall() const;
  double ddr_transactions_per_wall_s() const;
  double npu_instructions_per_wall_s() const;
};

// getrusage(RUSAGE_SELF).ru_maxrss in MiB (Linux reports KiB).
double peak_rss_mib();

nlohmann::json to_json(const run_speed& s);

}  // namespace pccx::report
