// pccx-vp: runs driver firmware on the pccx v002 NPU virtual platform.
// Exit codes: 0 success, 1 simulation failure (including firmware that
// ends with a nonzero code), 2 bad input.
#include <cstdlib>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <fstream>
#include <functional>
#include <iostream>
#include <systemc>

#include "infra/config/config_error.h"
#include "infra/io/output_file.h"
#include "infra/text/quote.h"
#include "models/npu/isa/instruction.h"
#include "models/npu/isa/memh_reader.h"
#include "models/npu/npu_config.h"
#include "platform/app/child_process.h"
#include "platform/app/cli_options.h"
#include "platform/app/compare_command.h"
#include "platform/app/ddr_bench_command.h"
#include "platform/app/decode_table_command.h"
#include "platform/app/kv_accuracy_command.h"
#include "platform/app/prefill_plan_command.h"
#include "platform/app/replay_command.h"
#include "platform/app/sweep_command.h"
#include "platform/config/platform_loader.h"
#include "platform/report/run_reports.h"
#include "platform/vp/firmware/firmware_loader.h"
#include "platform/vp/top/platform_top.h"
#include "platform/vp/top/runtime_params.h"
#include "platform/vp/top/simulation.h"
#include "platform/workload/decode_plots.h"
#include "platform/workload/decode_report_json.h"
#include "platform/workload/decode_runner.h"
#include "platform/workload/llm/ddr_plan.h"
#include "platform/workload/llm/model_config.h"
#include "platform/workload/prefill_plan_report.h"
#include "platform/workload/sweep_plan.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitSimFailure = 1;
constexpr int kExitBadInput = 2;

void write_decode_json(const std::string& path, const nlohmann::json& doc) {
  pccx::io::write_output(path, doc.dump(2) + "\n", "the --json report");
}

// DIR/report.html from the files a command wrote into DIR; a report that
// cannot be written fails the command (false), naming the file.
bool write_report(const std::string& dir, const std::function<void()>& write) {
  try {
    write();
    return true;
  } catch (const std::exception& e) {
    std::cerr << "pccx-vp: cannot write " << pccx::text::printable_message(dir)
              << "/report.html: " << pccx::text::printable_message(e.what()) << '\n';
    return false;
  }
}

pccx::report::config_sources sources_of(const pccx::app::cli_options& opts) {
  return {opts.layers.files, opts.layers.sets};
}

// A run's report, with the decode's document beside its summary.
bool write_run_report(const pccx::config::platform_config& cfg, const pccx::app::cli_options& opts,
                      const nlohmann::json* decode_doc) {
  if (cfg.output.dir.empty()) return true;
  return write_report(cfg.output.dir, [&] {
    if (decode_doc) write_decode_json(cfg.output.dir + "/decode.json", *decode_doc);
    pccx::report::write_run_report(cfg.output.dir, sources_of(opts));
  });
}

// The decode (docs/models/decode.md) of a model file: prints the report and,
// with --json FILE, writes it (also when the decode fails, with the reason,
// so a table of many runs can tell a plan that does not fit from a fault).
pccx::workload::decode_options decode_options_of(const pccx::app::cli_options& opts) {
  pccx::workload::decode_options o;
  o.context = opts.context;
  o.tokens = opts.decode_tokens;
  o.ring_cap = opts.ring_cap;
  o.sinks = opts.sinks;
  o.per_layer = opts.per_layer;
  o.reference_seed = opts.reference_seed;
  o.prompt_tokens = opts.prompt_tokens;
  o.chunk = opts.chunk;
  if (opts.firmware_given) o.firmware_elf = opts.firmware;
  return o;
}

// What the decode's planning throws, as the command reports it: a plan
// that does not fit and a bad option are bad input.
template <class Step>
void as_decode_input(Step&& step) {
  try {
    step();
  } catch (const pccx::llm::ddr_plan_error& e) {
    throw pccx::vp::input_error(e.what());
  } catch (const std::invalid_argument& e) {
    throw pccx::vp::input_error(e.what());
  }
}

int run_decode_command(const pccx::config::platform_config& cfg,
                       const pccx::app::cli_options& opts) {
  const pccx::workload::decode_options o = decode_options_of(opts);
  auto document = [&](const pccx::workload::decode_report* rep, const std::string& status,
                      const std::string& error) {
    if (!opts.json_file.empty())
      write_decode_json(opts.json_file,
                        pccx::workload::decode_document(opts.model, o, rep, status, error));
  };
  pccx::workload::decode_report rep;
  try {
    const pccx::llm::model_config m = pccx::llm::load_model(opts.model);
    // The plots' title names the model and the context.
    pccx::config::platform_config run_cfg = cfg;
    if (run_cfg.output.run_name.empty())
      run_cfg.output.run_name = m.name + ", L = " + std::to_string(o.context);
    rep = pccx::workload::run_decode(run_cfg, m, o);
  } catch (const pccx::llm::ddr_plan_error& e) {
    document(nullptr, "does_not_fit", e.what());
    throw pccx::vp::input_error(e.what());
  } catch (const std::invalid_argument& e) {
    document(nullptr, "bad_input", e.what());
    throw pccx::vp::input_error(e.what());
  } catch (const pccx::config::config_error& e) {
    document(nullptr, "bad_input", e.what());
    throw;
  } catch (const pccx::vp::input_error& e) {
    document(nullptr, "bad_input", e.what());
    throw;
  } catch (const std::exception& e) {
    document(nullptr, "failed", e.what());
    throw;
  }
  if (rep.run.exit_code != 0) {
    for (const auto& line : rep.run.printed) std::cout << line << '\n';
    std::cerr << "pccx-vp: decode firmware finished with exit code " << rep.run.exit_code << ": "
              << rep.run.message << '\n';
    // The firmware prints why it stops just before it does.
    const std::string why = rep.run.printed.empty() ? rep.run.message : rep.run.printed.back();
    const std::string error =
        "firmware exit code " + std::to_string(rep.run.exit_code) + ": " + why;
    document(&rep, "failed", error);
    const nlohmann::json doc =
        pccx::workload::decode_document(opts.model, o, &rep, "failed", error);
    write_run_report(cfg, opts, &doc);
    return kExitSimFailure;
  }
  document(&rep, "ok", "");
  if (cfg.output.plots) {  // the configuration requires output.dir with plots
    const std::string svg = cfg.output.dir + "/decode_latency.svg";
    try {
      pccx::workload::write_latency_breakdown_svg(rep, svg);
    } catch (const std::exception& e) {
      std::cerr << "pccx-vp: " << svg << ": " << e.what() << "\n";
      return kExitBadInput;
    }
  }
  const nlohmann::json doc = pccx::workload::decode_document(opts.model, o, &rep, "ok", "");
  if (!write_run_report(cfg, opts, &doc)) return kExitSimFailure;
  std::cout << rep.text();
  return kExitOk;
}

int run_disasm(const pccx::config::platform_config& cfg, const std::string& file) {
  const auto words = pccx::isa::read_memh(file);
  std::cout << pccx::isa::format_listing(
      words, pccx::config::decode_limits_of(cfg.npu, cfg.simulation.strict));
  return kExitOk;
}

int run(int argc, char** argv) {
  using pccx::app::cli_options;
  const cli_options opts = pccx::app::parse_cli(argc, argv);
  switch (opts.cmd) {
    case cli_options::command::help: std::cout << opts.help_text; return kExitOk;
    case cli_options::command::version: std::cout << "pccx-vp 0.1.0 (pccx v002)\n"; return kExitOk;
    case cli_options::command::list_firmware:
      for (const auto& n : pccx::vp::builtin_firmware_names()) std::cout << n << '\n';
      return kExitOk;
    default: break;
  }

  const pccx::config::platform_config cfg = pccx::config::load(opts.layers);
  if (!opts.dump_config.empty()) pccx::config::dump(cfg, opts.dump_config);
  // The firmware as the run loads it (a run's own checks included).
  const auto firmware = [&opts] {
    pccx::vp::firmware_image fw = pccx::vp::load_firmware(opts.firmware);
    if (opts.gdb_port && !fw.elf)
      throw pccx::vp::firmware_error("--gdb needs an AArch64 ELF firmware; " + opts.firmware +
                                     " runs as host code (debug it with the host's gdb)");
    return fw;
  };
  if (opts.validate_only) {
    // Everything else the run would read is checked as the run checks it.
    if (opts.cmd == cli_options::command::run) (void)firmware();
    if (opts.cmd == cli_options::command::disasm) (void)pccx::isa::read_memh(opts.disasm_file);
    if (opts.cmd == cli_options::command::replay) (void)pccx::app::load_replay_input(cfg, opts);
    if (opts.cmd == cli_options::command::ddr_bench) (void)pccx::app::ddr_bench_input(opts);
    if (opts.cmd == cli_options::command::decode) {
      const pccx::llm::model_config m = pccx::llm::load_model(opts.model);
      as_decode_input([&] { pccx::workload::check_decode(cfg, m, decode_options_of(opts)); });
    }
    if (opts.cmd == cli_options::command::decode_table) pccx::app::check_decode_table_sweep(opts);
    if (opts.cmd == cli_options::command::prefill_plan) {
      const pccx::llm::model_config m = pccx::llm::load_model(opts.model);
      as_decode_input([&] {
        (void)pccx::workload::plan_prefill_on(cfg, m, pccx::app::prefill_options_of(opts));
      });
    }
    if (opts.cmd == cli_options::command::sweep && !opts.sweep_file.empty()) try {
        (void)pccx::workload::load_sweep_file(opts.sweep_file);
      } catch (const pccx::config::config_error& e) {
        throw pccx::vp::input_error("invalid sweep:\n" + std::string(e.what()));
      }
    std::cerr << "pccx-vp: configuration is valid\n";
    return kExitOk;
  }
  if (opts.cmd == cli_options::command::disasm) return run_disasm(cfg, opts.disasm_file);
  if (opts.cmd == cli_options::command::kv_accuracy) return run_kv_accuracy(opts, std::cout);
  if (opts.cmd == cli_options::command::decode) return run_decode_command(cfg, opts);
  if (opts.cmd == cli_options::command::decode_table) return pccx::app::run_decode_table(opts);
  if (opts.cmd == cli_options::command::sweep) return pccx::app::run_sweep(opts);
  if (opts.cmd == cli_options::command::merge) return pccx::app::run_merge(opts);
  if (opts.cmd == cli_options::command::compare) return pccx::app::run_compare_command(opts);
  if (opts.cmd == cli_options::command::replay) return pccx::app::run_replay_command(cfg, opts);
  if (opts.cmd == cli_options::command::ddr_bench)
    return pccx::app::run_ddr_bench_command(cfg, opts);
  if (opts.cmd == cli_options::command::prefill_plan)
    return pccx::app::run_prefill_plan_command(cfg, opts);

  const pccx::vp::firmware_image fw = firmware();
  pccx::vp::apply_log_config(cfg.log);
  pccx::config::platform_config run_cfg = cfg;
  std::function<void(pccx::vp::platform_top&)> debug;
  if (opts.gdb_port) {
    run_cfg.simulation.max_wall_s = 0;  // the debugger holds the CPU as long as it likes
    debug = [&](pccx::vp::platform_top& top) {
      top.cpu.set_gdb_port(static_cast<uint16_t>(opts.gdb_port));
    };
  }
  const pccx::vp::run_result r = pccx::vp::run_simulation(run_cfg, fw, &std::cout, debug);
  const bool reported = write_run_report(run_cfg, opts, nullptr);

  std::cerr << "pccx-vp: " << r.message << "; simulated " << r.sim_time_ns / 1000.0 << " us, "
            << r.instructions_retired << " instructions retired, wall " << r.wall_time_s << " s\n";
  if (r.state != pccx::vp::run_control::state::finished) {
    std::cerr << "pccx-vp: simulation failed: " << pccx::text::printable_message(r.message) << '\n';
    return kExitSimFailure;
  }
  if (r.exit_code != 0) {
    std::cerr << "pccx-vp: firmware finished with exit code " << r.exit_code << '\n';
    return kExitSimFailure;
  }
  return reported ? kExitOk : kExitSimFailure;
}

}  // namespace

int sc_main(int argc, char** argv) {
  // sc_stop() is how every run ends; SystemC's note about it is noise.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
  // Messages quote input (paths, keys, values): shown escaped and cut.
  auto say = [](const char* head, const char* what, const char* tail = "\n") {
    std::cerr << "pccx-vp: " << head << pccx::text::printable_message(what) << tail;
  };
  try {
    return run(argc, argv);
  } catch (const pccx::app::interrupted& e) {
    say("", e.what());
    return 128 + e.signal;
  } catch (const pccx::app::cli_error& e) {
    say("", e.what(), "\n(see pccx-vp --help)\n");
    return kExitBadInput;
  } catch (const pccx::config::config_error& e) {
    say("invalid configuration:\n", e.what());
    return kExitBadInput;
  } catch (const pccx::vp::firmware_error& e) {
    say("", e.what());
    return kExitBadInput;
  } catch (const pccx::vp::input_error& e) {
    say("", e.what());
    return kExitBadInput;
  } catch (const pccx::isa::memh_error& e) {
    say("", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    say("simulation failed: ", e.what());
    return kExitSimFailure;
  }
}

// Our own entry, ahead of libsystemc's, so the banner can be switched off
// before the SystemC kernel starts.
int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
#ifdef __GLIBC__
  // A decode allocates and frees buffers of the same sizes millions of
  // times (result words, DMA queues, per-instruction tables, a bandwidth
  // series that grows). glibc would hand large ones back to the kernel and
  // trim the heap after each, so the next one page-faults again; keeping
  // freed memory in the process costs no more than the run's peak.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
  return sc_core::sc_elab_and_sim(argc, argv);
}
