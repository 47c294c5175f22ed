#include "platform/vp/top/simulation.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <set>
#include <sstream>

#include "infra/config/config_visitors.h"
#include "infra/log/logger.h"
#include "infra/text/hex.h"
#include "infra/trace/trace_hub.h"
#include "models/npu/isa/instruction.h"
#include "platform/config/platform_loader.h"
#include "platform/vp/cpu/fatal_signal_report.h"
#include "platform/vp/report/bandwidth_svg.h"
#include "platform/vp/report/run_speed.h"
#include "infra/io/output_file.h"
#include "platform/vp/top/platform_top.h"
#include "platform/vp/top/run_outputs.h"
#include "platform/vp/top/wall_clock_watchdog.h"

namespace pccx::vp {

void apply_log_config(const config::logging_config& log) {
  auto& lc = log::log_config::instance();
  // The configuration was validated, so every name parses.
  lc.set_default(*log::parse_level(log.level));
  for (const auto& [module, level] : log.modules) lc.set_module(module, *log::parse_level(level));
}

namespace {

// A module setting (--log MODULE=LEVEL, log.modules) names a module of the
// platform or a prefix of one; checked once the platform exists.
void check_log_modules(const config::logging_config& cfg) {
  const auto& known = log::log_config::instance().modules();
  std::set<std::string> names;
  for (const std::string& m : known) {
    names.insert(m);
    for (size_t dot = m.find('.'); dot != std::string::npos; dot = m.find('.', dot + 1))
      names.insert(m.substr(0, dot));
  }
  for (const auto& [module, level] : cfg.modules) {
    if (names.count(module)) continue;
    const std::vector<std::string> candidates(names.begin(), names.end());
    const std::string near = config::detail::closest(module, candidates);
    std::string all;
    for (const auto& n : candidates) all += (all.empty() ? "" : ", ") + n;
    throw input_error("--log " + module + "=" + level + " (log.modules): no module named \"" +
                      module + "\"" +
                      (near.empty() ? "; the modules: " + all : "; did you mean \"" + near + "\"?"));
  }
}

const char* state_name(run_control::state s) {
  switch (s) {
    case run_control::state::running: return "running";
    case run_control::state::finished: return "finished";
    case run_control::state::failed: return "failed";
  }
  return "?";
}
}  // namespace

namespace {

double ns(const sc_core::sc_time& t) {
  return trace::to_ns(t);
}

// DDR bandwidth and the DMA channels, FIFOs, L2 ports and MEMCPY unit.
nlohmann::json memory_summary(platform_top& top) {
  nlohmann::json dma = nlohmann::json::object();
  for (unsigned ch = 0; ch < top.dma.size(); ++ch) {
    auto& c = *top.dma[ch];
    const auto& s = c.statistics();
    const auto& f = c.fifo().statistics();
    dma[c.basename()] = {{"bytes_done", s.bytes_done},
                         {"descriptors_done", s.descriptors_done},
                         {"descriptor_errors", s.errors},
                         {"transactions", s.transactions},
                         {"busy_ns", ns(s.busy)},
                         {"stall_ns", ns(s.stall)},
                         {"fifo",
                          {{"bytes_pushed", f.bytes_pushed},
                           {"bytes_popped", f.bytes_popped},
                           {"max_level_bytes", f.max_level},
                           {"producer_stall_ns", ns(f.producer_stall)},
                           {"consumer_stall_ns", ns(f.consumer_stall)}}}};
  }
  nlohmann::json l2 = nlohmann::json::array();
  for (unsigned p = 0; p < 2; ++p) {
    const auto& s = top.npu.l2().statistics(p);
    l2.push_back({{"port", p},
                  {"words_read", s.words_read},
                  {"words_written", s.words_written},
                  {"busy_ns", ns(s.busy)}});
  }
  const auto& m = top.npu.memcpy().statistics();
  return {{"ddr", top.ddr.summary()},
          {"dma", dma},
          {"l2_ports", l2},
          {"memcpy",
           {{"instructions", m.instructions},
            {"words_host_to_l2", m.words_host_to_l2},
            {"words_l2_to_host", m.words_l2_to_host},
            {"words_l2_to_l2", m.words_l2_to_l2},
            {"stall_ns", ns(m.stall)}}}};
}

// Runs until the firmware's outcome, the simulated-time limit, the
// wall-clock limit or a stall. The simulation advances in slices so the
// wall-clock limit is also seen while the firmware sleeps and the NPU works.
void simulate(platform_top& top, const sc_core::sc_time& max_time,
              const wall_clock_watchdog& watchdog, uint64_t max_time_ms) {
  const sc_core::sc_time slice(100, sc_core::SC_US);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // initialisation: the pending events are known
  while (top.control.current() == run_control::state::running) {
    if (watchdog.expired()) {
      top.control.fail(watchdog.message());
      break;
    }
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (now >= max_time) {
      top.control.fail("simulated-time limit of " + std::to_string(max_time_ms) +
                       " ms reached (simulation.max_time_ms) before the firmware finished");
      break;
    }
    if (!sc_core::sc_pending_activity()) {
      // A halted NPU is the usual first cause: the driver went on issuing
      // after an error and now waits for room in CMD_IN.
      top.control.fail("simulation stalled at " + now.to_string() +
                       ": the firmware waits but nothing is left to happen" +
                       (top.npu.cmd().error() ? "; " + top.npu_state() : std::string()));
      break;
    }
    // Each slice reaches at least the next event, so starvation inside it
    // stops the kernel at the last event (the stall's time); a next event
    // past the limit runs the clock to exactly the limit.
    const sc_core::sc_time left = max_time - now;
    const sc_core::sc_time to_next = sc_core::sc_time_to_pending_activity();
    if (to_next > left)
      sc_core::sc_start(left);
    else
      sc_core::sc_start(std::min(std::max(slice, to_next), left), sc_core::SC_EXIT_ON_STARVATION);
  }
}

using text::hex;
using text::hex_word;

// A firmware that finished but left work or errors behind produced numbers
// nobody checked: the NPU still busy (it never waited), an NPU error
// latched and never cleared, a DMA channel's sticky error bits, results
// stranded in the ACP_RESULT FIFO. With exit
// code 0 that fails the run (simulation.end_check = fail); otherwise it is
// a warning.
// What the oldest instruction in flight waits for, from the state of the
// FIFOs and channels that feed or drain its unit.
std::string stuck_on(platform_top& top, const npu::command_processor::in_flight_view& v,
                     const std::vector<unsigned>& gemv_fifos) {
  auto channel = [&](unsigned ch) {
    const auto& d = *top.dma[ch];
    return std::string(d.basename()) + " (" + std::to_string(top.fifo(ch).level()) +
           " bytes in its FIFO, " + (d.busy() ? "a descriptor in progress" : "no descriptor") +
           ")";
  };
  auto channels = [&](const std::vector<unsigned>& list) {
    std::string s;
    for (unsigned ch : list) s += (s.empty() ? "" : ", ") + channel(ch);
    return s;
  };
  const std::string head = "instruction #" + std::to_string(v.seq) + " " + hex_word(v.ins.word) +
                           " (" + isa::disassemble(v.ins) + ")";
  switch (v.kind) {
    case npu::unit_kind::gemv:
      return head + " waits for weight bytes on " + channels(gemv_fifos);
    case npu::unit_kind::gemm:
      return head + " waits for weight bytes on " + channels({PCCX_DMA_HP0, PCCX_DMA_HP1});
    case npu::unit_kind::dma: {
      const auto& mc = std::get<isa::memcpy_instr>(v.ins.body);
      if (mc.route() == isa::memcpy_route::host_to_l2)
        return head + " waits for host bytes on " + channel(PCCX_DMA_ACP_FMAP);
      if (mc.route() == isa::memcpy_route::l2_to_l2) return head + " is still moving words";
      return head + " waits for room in the ACP_RESULT FIFO: " + channel(PCCX_DMA_ACP_RESULT);
    }
    default: return head + " is still running";
  }
}

// The driver's waits for idle (uca_hal_wait_idle): how many, the last result.
struct idle_wait_tally {
  uint64_t count = 0;
  int last = 0;
};

// The oldest word still in CMD_IN, when no unit holds one.
std::string queued_head(platform_top& top) {
  const auto& e = top.npu.fifo().front();
  return "instruction #" + std::to_string(e.seq) + " " + hex_word(e.word) + " (" +
         isa::disassemble(e.word, top.npu.cmd().limits()) + ") is still in CMD_IN";
}

void check_end_state(platform_top& top, bool fail, const idle_wait_tally& waits,
                     const std::vector<unsigned>& gemv_fifos, log::logger& log) {
  std::vector<std::string> problems;
  const auto& cmd = top.npu.cmd();
  // With an error latched the NPU is halted: the error is the news.
  if (cmd.busy() && !cmd.error_latched()) {
    const auto stuck = cmd.oldest_in_flight();
    const bool timed_out = waits.count != 0 && waits.last == -1;
    const std::string driver =
        timed_out ? "the driver's last wait for idle (uca_sync) timed out and it ended anyway"
        : waits.count != 0
            ? "the driver issued more after its last wait for idle"
        : top.cpu.cpu_kind() == "host code"
            ? "the driver never waited for it (uca_sync, uca_hal_wait_idle)"
            : "the firmware ended before the NPU went idle";
    problems.push_back(
        "the NPU was still busy (words issued: " + std::to_string(top.npu.fifo().pushed()) +
        ", retired: " + std::to_string(cmd.retired()) + ")" +
        (stuck                       ? ": " + stuck_on(top, *stuck, gemv_fifos)
         : !top.npu.fifo().empty() ? ": " + queued_head(top)
                                   : std::string()) +
        "; " + driver +
        ", so the run's time and results are incomplete");
  }
  if (const npu::npu_error* e = cmd.error())
    problems.push_back("the NPU had latched " + isa::error_name(e->code) + " on instruction #" +
                       std::to_string(e->seq) + " (" + hex_word(e->word) + ": " + e->detail +
                       ") and the firmware never cleared it (STATUS bit 2)");
  for (const auto& ch : top.dma)
    if (ch->error_bits() != 0)
      problems.push_back("DMA channel " + std::string(ch->basename()) + " had error bits " +
                         hex(ch->error_bits()) + " set (" +
                         mem::dma_channel::error_names(ch->error_bits()) +
                         ") that the firmware never cleared (ERR register, write 1 to clear)");
  // DMA channels left with work, and bytes streamed in that nobody took.
  for (unsigned ch = 0; ch < top.dma.size(); ++ch) {
    const auto& d = *top.dma[ch];
    if (d.busy())
      problems.push_back("DMA channel " + std::string(d.basename()) +
                         " still had a descriptor queued or in progress: the firmware ended "
                         "before its transfer did");
    if (ch == PCCX_DMA_ACP_RESULT) continue;  // below, with its own advice
    if (const uint64_t left = top.fifo(ch).level(); left != 0)
      problems.push_back(std::to_string(left) + " bytes were still in the " + d.basename() +
                         " FIFO: streamed in by a descriptor and never consumed by an "
                         "instruction");
  }
  if (const uint64_t stranded = top.fifo(PCCX_DMA_ACP_RESULT).level(); stranded != 0)
    problems.push_back(std::to_string(stranded) +
                       " result bytes were still in the ACP_RESULT FIFO: no descriptor moved "
                       "them to DDR");
  if (problems.empty()) return;
  const int code = top.control.exit_code();
  std::string message = "the firmware finished with exit code " + std::to_string(code) + ", but ";
  for (size_t i = 0; i < problems.size(); ++i)
    message += (i == 0 ? "" : i + 1 == problems.size() ? "; and " : "; ") + problems[i];
  // A nonzero exit code already fails the run; the problems explain it.
  if (fail && code == 0)
    top.control.override_failure(message + " (simulation.end_check = fail)");
  else
    PCCX_LOG(log, warning, message);
}

}  // namespace

nlohmann::json run_result::summary(const config::platform_config& cfg,
                                   const firmware_image& fw) const {
  nlohmann::json counters_json = nlohmann::json::object();
  for (const auto& [name, value] : counters) counters_json[name] = value;
  nlohmann::json markers_json = nlohmann::json::array();
  for (size_t i = 0; i < markers.size() && i < marker_times_ns.size(); ++i)
    markers_json.push_back({{"t_ns", marker_times_ns[i]}, {"marker", markers[i]}});
  nlohmann::json cpu = {{"kind", cpu_kind}};
  if (fw.elf) {
    cpu["instructions"] = cpu_instructions;
    cpu["clock_mhz"] = cfg.cpu.clock_mhz;
    cpu["cycles_per_instruction"] = cfg.cpu.cycles_per_instruction;
    cpu["instruction_time_ns"] = static_cast<double>(cpu_instructions) *
                                 cfg.cpu.cycles_per_instruction * 1e3 / cfg.cpu.clock_mhz;
  }
  nlohmann::json out = {{"firmware", {{"name", fw.name}, {"origin", fw.origin}}},
          {"cpu", cpu},
          {"outcome", state_name(state)},
          {"exit_code", exit_code},
          {"message", message},
          {"sim_time_ns", sim_time_ns},
          {"instructions_retired", instructions_retired},
          {"npu_counters", counters_json},
          {"memory", memory},
          {"clocks", {{"core_mhz", cfg.clocks.core_mhz}, {"axi_mhz", cfg.clocks.axi_mhz}}},
          {"printed", printed},
          {"markers", markers_json},
          {"config", config::to_json(cfg)}};
  if (warning_count > 0) {  // only when there are some: quiet runs' summaries stay as they were
    nlohmann::json list = nlohmann::json::array();
    for (const auto& w : warnings)
      list.push_back({{"t_ns", w.t_ns},
                      {"level", log::level_name(w.lvl)},
                      {"module", w.module},
                      {"text", w.text}});
    out["warnings"] = {{"count", warning_count}, {"first", list}};
  }
  return out;
}

nlohmann::json run_result::speed() const {
  report::run_speed s;
  s.wall_time_s = wall_time_s;
  s.sim_time_ns = sim_time_ns;
  s.ddr_transactions = ddr_transactions;
  s.npu_instructions = instructions_retired;
  s.peak_rss_mib = peak_rss_mib;
  return report::to_json(s);
}

run_result run_simulation(const config::platform_config& cfg, const firmware_image& fw,
                          std::ostream* console,
                          const std::function<void(platform_top&)>& customize) {
  const auto wall_start = std::chrono::steady_clock::now();
  const runtime_params rt = to_runtime(cfg);
  log::logger log("vp");
  log::log_config::instance().clear_notices();  // this run's warnings only

  trace::trace_hub traces;
  try {
    // A trace's folder is created as --out's is.
    for (const std::string* file : {&cfg.trace.mmio, &cfg.trace.instructions, &cfg.trace.ddr}) {
      const std::filesystem::path parent = std::filesystem::path(*file).parent_path();
      std::error_code ec;
      if (!file->empty() && !parent.empty() && !std::filesystem::create_directories(parent, ec) && ec)
        throw std::runtime_error("cannot create the folder of trace file '" + *file +
                                 "': " + ec.message());
    }
    traces.open("mmio", cfg.trace.mmio);
    traces.open("instructions", cfg.trace.instructions);
    traces.open("ddr", cfg.trace.ddr);
  } catch (const std::runtime_error& e) {
    throw input_error(e.what());
  }

  tlm_utils::tlm_quantumkeeper::set_global_quantum(rt.quantum);
  platform_top top(rt, traces, console);
  if (fw.elf)
    top.cpu.load_elf(fw.elf);
  else
    top.cpu.load(fw.entry, fw.name);
  run_outputs outputs(cfg, rt, top);  // trace.perfetto.json, signals.vcd, session.pccx
  if (customize) customize(top);
  idle_wait_tally idle_waits;  // for the end-of-run check
  top.cpu.idle_waits.subscribe([&idle_waits](const firmware_cpu::wait_idle_record& w) {
    ++idle_waits.count;
    idle_waits.last = w.result;
  });
  for (const auto& w : fw.warnings) PCCX_LOG(log, warning, w);
  check_log_modules(cfg.log);

  wall_clock_watchdog watchdog(cfg.simulation.max_wall_s, fw.name, top.cpu.activity());
  top.cpu.set_watchdog(&watchdog);
  const fatal_signal_report crash_report(fw.name, top.cpu.activity());
  simulate(top, rt.max_time, watchdog, cfg.simulation.max_time_ms);
  if (top.control.current() == run_control::state::finished)
    check_end_state(top, cfg.simulation.end_check == config::end_check_policy::fail, idle_waits,
                    cfg.npu.gemv.weight_fifos, log);

  top.ddr.drain_writes();  // the writes still buffered reach the DRAM's figures
  // A trace that could not be written whole fails the run, naming it.
  try {
    traces.close_all();
  } catch (const io::output_error& e) {
    if (top.control.current() == run_control::state::failed)
      PCCX_LOG(log, error, e.what());
    else
      top.control.override_failure(e.what());
  }
  run_result r;
  r.state = top.control.current();
  r.exit_code = top.control.exit_code();
  r.message = top.control.message();
  r.sim_time_ns = trace::to_ns(sc_core::sc_time_stamp());
  r.instructions_retired = top.npu.cmd().retired();
  r.cpu_kind = top.cpu.cpu_kind();
  r.cpu_instructions = top.cpu.instructions();
  const auto& pc = top.npu.counters();
  for (uint32_t i = 0; i < npu::perf_counters::size(); ++i) {
    const uint64_t v = top.npu.cmd().counter(i);
    if (pc.name_of(i).rfind("perf_", 0) != 0) r.counters.emplace_back(pc.name_of(i), v);
  }
  r.memory = memory_summary(top);
  r.printed = top.simctl.printed();
  r.markers = top.simctl.markers();
  r.marker_times_ns = top.simctl.marker_times_ns();
  r.marker_cpu_instructions = top.simctl.marker_cpu_instructions();
  r.ddr_transactions = top.ddr.recorder().total().transactions;
  outputs.finish();
  r.wall_time_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  r.peak_rss_mib = report::peak_rss_mib();

  if (!cfg.output.dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(cfg.output.dir, ec);
    io::write_output(cfg.output.dir + "/summary.json", r.summary(cfg, fw).dump(2) + "\n",
                     "the summary");
    io::write_output(cfg.output.dir + "/speed.json", r.speed().dump(2) + "\n", "the speed report");
    top.ddr.write_csv(cfg.output.dir);
    if (const auto* plot = top.ddr.plot_recorder())
      plot->write_series_csv(cfg.output.dir + "/ddr_bandwidth_plot.csv");
    if (cfg.output.plots) {
      report::bandwidth_plot plot;
      const std::string& name = cfg.output.run_name.empty() ? fw.name : cfg.output.run_name;
      plot.title =
          "DDR bandwidth: " + name + " (" + config::enum_name(cfg.simulation.mode) + " mode)";
      plot.end_ns = r.sim_time_ns;
      plot.peak_gbps = top.ddr.capacity().peak_bytes_per_s * 1e-9;
      plot.effective_gbps = top.ddr.capacity().effective_bytes_per_s * 1e-9;
      plot.markers = r.markers;
      plot.marker_times_ns = r.marker_times_ns;
      plot.max_columns = cfg.output.plot_columns;
      try {
        report::write_bandwidth_svg(top.ddr.recorder(), plot,
                                    cfg.output.dir + "/ddr_bandwidth.svg");
      } catch (const std::runtime_error& e) {
        throw input_error(std::string(e.what()) + " (output.dir)");
      }
    }
  }
  r.warnings = log::log_config::instance().notices();
  r.warning_count = log::log_config::instance().notice_count();
  return r;
}

}  // namespace pccx::vp
