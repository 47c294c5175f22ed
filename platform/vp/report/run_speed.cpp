#include "platform/vp/report/run_speed.h"

#include <sys/resource.h>

namespace pccx::report {

namespace {
double per_wall(double v, double wall_s) {
  return wall_s > 0 ? v / wall_s : 0.0;
}
}  // namespace

double run_speed::sim_per_wall() const {
  return per_wall(sim_time_ns * 1e-9, wall_time_s);
}

double run_speed::ddr_transactions_per_wall_s() const {
  return per_wall(static_cast<double>(ddr_transactions), wall_time_s);
}

double run_speed::npu_instructions_per_wall_s() const {
  return per_wall(static_cast<double>(npu_instructions), wall_time_s);
}

double peak_rss_mib() {
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

nlohmann::json to_json(const run_speed& s) {
  return {{"wall_time_s", s.wall_time_s},
          {"sim_time_ns", s.sim_time_ns},
          {"sim_per_wall", s.sim_per_wall()},
          {"ddr_transactions", s.ddr_transactions},
          {"ddr_transactions_per_wall_s", s.ddr_transactions_per_wall_s()},
          {"npu_instructions", s.npu_instructions},
          {"npu_instructions_per_wall_s", s.npu_instructions_per_wall_s()},
          {"peak_rss_mib", s.peak_rss_mib}};
}

}  // namespace pccx::report
