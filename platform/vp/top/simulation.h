// One platform run: elaborate from the configuration, run the firmware to
// its end (or a failure, the time limit, or a deadlock), and summarise.
// SystemC elaborates once per process, so this is called once per process.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "infra/log/logger.h"
#include "platform/config/platform_config.h"
#include "platform/vp/firmware/firmware_loader.h"
#include "platform/vp/top/run_control.h"

namespace pccx::vp {

// Bad input met while setting the run up (e.g. a trace path that cannot be
// written): reported like a configuration error.
struct input_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct run_result {
  run_control::state state = run_control::state::running;
  int exit_code = 1;
  std::string message;
  double sim_time_ns = 0;
  double wall_time_s = 0;
  uint64_t instructions_retired = 0;  // by the NPU
  std::string cpu_kind;               // "host code" or "AArch64 ELF"
  uint64_t cpu_instructions = 0;      // retired by the AArch64 firmware CPU
  std::vector<uint64_t> marker_cpu_instructions;  // the same at each marker
  std::vector<std::pair<std::string, uint64_t>> counters;
  std::vector<std::string> printed;  // lines the firmware printed
  // Warnings and errors the platform logged during the run (the first 100
  // with their time, module and text; count is all of them).
  std::vector<log::log_config::notice> warnings;
  std::size_t warning_count = 0;
  std::vector<std::string> markers;
  std::vector<double> marker_times_ns;  // simulated time of each marker
  nlohmann::json memory;                // DDR bandwidth, DMA channels, L2 ports, MEMCPY
  uint64_t ddr_transactions = 0;        // counted at the DDR controller
  double peak_rss_mib = 0;              // the process's peak resident memory at the end

  // summary.json: simulated quantities only, the same from run to run.
  nlohmann::json summary(const config::platform_config& cfg, const firmware_image& fw) const;
  // speed.json: the wall-clock figures (report::run_speed), which vary.
  nlohmann::json speed() const;
};

// Applies log.level and log.modules to the process-wide log settings.
void apply_log_config(const config::logging_config& log);

class platform_top;

// console: where firmware prints go (nullptr: nowhere). customize runs after
// elaboration of the standard platform and before simulation starts: the
// place to bind extra units or probes (tests, what-if experiments).
run_result run_simulation(const config::platform_config& cfg, const firmware_image& fw,
                          std::ostream* console,
                          const std::function<void(platform_top&)>& customize = {});

}  // namespace pccx::vp
