#include "vp/top/simulation.h"

#include <chrono>
#include <filesystem>
#include <fstream>

#include "config/config_loader.h"
#include "log/logger.h"
#include "trace/trace_hub.h"
#include "vp/report/bandwidth_svg.h"
#include "vp/report/run_speed.h"
#include "vp/top/platform_top.h"
#include "vp/top/run_outputs.h"

namespace pccx::vp {

void apply_log_config(const config::logging_config& log) {
  auto& lc = log::log_config::instance();
  // The configuration was validated, so every name parses.
  lc.set_default(*log::parse_level(log.level));
  for (const auto& [module, level] : log.modules) lc.set_module(module, *log::parse_level(level));
}

namespace {
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
    const auto& s = top.l2.statistics(p);
    l2.push_back({{"port", p},
                  {"words_read", s.words_read},
                  {"words_written", s.words_written},
                  {"busy_ns", ns(s.busy)}});
  }
  const auto& m = top.memcpy.statistics();
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

}  // namespace

nlohmann::json run_result::summary(const config::platform_config& cfg,
                                   const firmware_image& fw) const {
  nlohmann::json counters_json = nlohmann::json::object();
  for (const auto& [name, value] : counters) counters_json[name] = value;
  nlohmann::json markers_json = nlohmann::json::array();
  for (size_t i = 0; i < markers.size() && i < marker_times_ns.size(); ++i)
    markers_json.push_back({{"t_ns", marker_times_ns[i]}, {"marker", markers[i]}});
  return {{"firmware", {{"name", fw.name}, {"origin", fw.origin}}},
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

  trace::trace_hub traces;
  try {
    traces.open("mmio", cfg.trace.mmio);
    traces.open("instructions", cfg.trace.instructions);
    traces.open("ddr", cfg.trace.ddr);
  } catch (const std::runtime_error& e) {
    throw input_error(e.what());
  }

  tlm_utils::tlm_quantumkeeper::set_global_quantum(rt.quantum);
  platform_top top(rt, traces, console);
  top.cpu.load(fw.entry, fw.name);
  run_outputs outputs(cfg, rt, top);  // trace.perfetto.json, signals.vcd, session.pccx
  if (customize) customize(top);
  for (const auto& w : fw.warnings) PCCX_LOG(log, warning, w);

  sc_core::sc_start(rt.max_time);

  run_result r;
  if (top.control.current() == run_control::state::running) {
    // sc_start returned without an outcome: out of time, or nothing left to run.
    if (sc_core::sc_pending_activity())
      top.control.fail("simulated-time limit of " + std::to_string(cfg.simulation.max_time_ms) +
                       " ms reached (simulation.max_time_ms) before the firmware finished");
    else
      top.control.fail("simulation stalled at " + sc_core::sc_time_stamp().to_string() +
                       ": the firmware waits but nothing is left to happen");
  }
  r.state = top.control.current();
  r.exit_code = top.control.exit_code();
  r.message = top.control.message();
  r.sim_time_ns = trace::to_ns(sc_core::sc_time_stamp());
  r.instructions_retired = top.npu.cmd().retired();
  const auto& pc = top.npu.counters();
  for (uint32_t i = 0; i < npu::perf_counters::size(); ++i) {
    const uint64_t v = top.npu.cmd().counter(i);
    if (pc.name_of(i).rfind("perf_", 0) != 0) r.counters.emplace_back(pc.name_of(i), v);
  }
  if (top.npu.cmd().busy())
    PCCX_LOG(log, warning,
             "the run ended with the NPU still busy ("
                 << top.npu.fifo().level() << " words in CMD_IN, " << top.npu.cmd().in_flight()
                 << " in flight)");
  r.memory = memory_summary(top);
  r.printed = top.simctl.printed();
  r.markers = top.simctl.markers();
  r.marker_times_ns = top.simctl.marker_times_ns();
  r.ddr_transactions = top.ddr.recorder().total().transactions;
  traces.close_all();
  outputs.finish();
  r.wall_time_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  r.peak_rss_mib = report::peak_rss_mib();

  if (!cfg.output.dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(cfg.output.dir, ec);
    const std::string path = cfg.output.dir + "/summary.json";
    std::ofstream out(path);
    if (!out) throw input_error("cannot write " + path + " (output.dir)");
    out << r.summary(cfg, fw).dump(2) << '\n';
    const std::string speed_path = cfg.output.dir + "/speed.json";
    std::ofstream speed_out(speed_path);
    if (!speed_out) throw input_error("cannot write " + speed_path + " (output.dir)");
    speed_out << r.speed().dump(2) << '\n';
    top.ddr.write_csv(cfg.output.dir);
    if (cfg.output.plots) {
      report::bandwidth_plot plot;
      const std::string& name = cfg.output.run_name.empty() ? fw.name : cfg.output.run_name;
      plot.title = "DDR bandwidth: " + name + " (" + cfg.simulation.mode + " mode)";
      plot.end_ns = r.sim_time_ns;
      plot.peak_gbps = top.ddr.efficiency().peak_bytes_per_s * 1e-9;
      plot.effective_gbps = top.ddr.efficiency().effective_bytes_per_s * 1e-9;
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
  return r;
}

}  // namespace pccx::vp
