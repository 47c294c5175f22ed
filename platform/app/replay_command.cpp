#include "platform/app/replay_command.h"

#include <fstream>
#include <iostream>

#include "infra/config/config_error.h"
#include "infra/io/output_file.h"
#include "models/npu/isa/memh_reader.h"
#include "platform/vp/top/simulation.h"
#include "platform/workload/replay_dma_plan.h"
#include "platform/workload/replay_runner.h"

namespace pccx::app {

workload::replay_input load_replay_input(const config::platform_config& cfg,
                                         const cli_options& opts) {
  workload::replay_input in;
  try {
    in = workload::load_replay(opts.replay_file, opts.dma_file, cfg);
  } catch (const config::config_error& e) {
    throw vp::input_error("invalid DMA file:\n" + std::string(e.what()));
  }
  if (opts.auto_dma) workload::plan_auto_dma(in, cfg, opts.auto_dma_base);
  return in;
}

int run_replay_command(const config::platform_config& cfg, const cli_options& opts) {
  // The document is written however the replay ends, so a sweep of
  // replays can tell bad input from a failed run.
  auto document = [&](const workload::replay_report* rep, const std::string& status,
                      const std::string& error) {
    if (opts.json_file.empty()) return;
    const auto doc = workload::replay_document(opts.replay_file, opts.dma_file, rep, status, error);
    io::write_output(opts.json_file, doc.dump(2) + "\n", "the --json report");
  };
  workload::replay_input in;
  try {
    in = load_replay_input(cfg, opts);
  } catch (const vp::input_error& e) {
    document(nullptr, "bad_input", e.what());
    throw;
  } catch (const isa::memh_error& e) {
    document(nullptr, "bad_input", e.what());
    throw;
  }
  vp::apply_log_config(cfg.log);
  workload::replay_report rep;
  try {
    rep = workload::run_replay(cfg, in, opts.keep_going);
  } catch (const vp::input_error& e) {
    document(nullptr, "bad_input", e.what());
    throw;
  } catch (const std::exception& e) {
    document(nullptr, "failed", e.what());
    throw;
  }
  std::cout << rep.text();
  std::cerr << "pccx-vp: replay " << opts.replay_file << ": " << rep.instructions_retired
            << " instructions retired of " << rep.words << " words; simulated "
            << rep.sim_time_ns / 1000.0 << " us, wall " << rep.run.wall_time_s << " s\n";
  if (!rep.ok) {
    std::cerr << "pccx-vp: replay failed: " << rep.error << '\n';
    document(&rep, "failed", rep.error);
    return 1;
  }
  document(&rep, "ok", "");
  return 0;
}

}  // namespace pccx::app
