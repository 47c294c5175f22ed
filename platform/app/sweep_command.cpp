#include "platform/app/sweep_command.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "infra/config/config_error.h"
#include "models/npu/isa/memh_reader.h"
#include "platform/app/child_process.h"
#include "platform/app/resume_marker.h"
#include "platform/report/run_reports.h"
#include "platform/vp/top/simulation.h"
#include "platform/workload/cell_outputs.h"
#include "platform/workload/decode_table.h"
#include "platform/workload/llm/model_config.h"
#include "platform/workload/sweep_plan.h"
#include "platform/workload/sweep_table.h"

namespace pccx::app {

namespace {

namespace fs = std::filesystem;
using steady = std::chrono::steady_clock;
using workload::sweep_kind;

constexpr std::size_t kMaxPoints = 1000000;

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

bool key_of(const std::string& set, const char* prefix) {
  return set.rfind(prefix, 0) == 0;
}

// What the points run, read with the same parser as any command line, so
// a mistake in it is reported before anything starts; so are a decode's
// model file and a replay's stream, which every point reads.
sweep_kind point_kind(const std::vector<std::string>& command, config::config_layers& layers) {
  std::vector<std::string> words = {"pccx-vp"};
  words.insert(words.end(), command.begin(), command.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  cli_options o;
  try {
    o = parse_cli(static_cast<int>(argv.size()), argv.data());
  } catch (const cli_error& e) {
    throw vp::input_error("the command after '--' (" + joined(command) + "): " + e.what());
  }
  layers = o.layers;
  auto bad = [&](const std::string& why) {
    throw vp::input_error("the command after '--' (" + joined(command) + "): " + why);
  };
  if (!o.dump_config.empty()) bad("the sweep gives every point its --dump-config");
  if (o.validate_only) bad("--validate-only runs nothing");
  for (const auto& s : o.layers.sets)
    if (key_of(s, "output.dir=")) bad("the sweep gives every point its --out folder");
  switch (o.cmd) {
    case cli_options::command::decode:
      if (!o.json_file.empty()) bad("the sweep gives every point its --json file");
      try {
        llm::load_model(o.model);
      } catch (const std::exception& e) {
        bad(std::string("cannot load the model file:\n") + e.what());
      }
      return sweep_kind::decode;
    case cli_options::command::replay:
      if (!o.json_file.empty()) bad("the sweep gives every point its --json file");
      isa::read_memh_lines(o.replay_file);
      return sweep_kind::replay;
    case cli_options::command::run: return sweep_kind::run;
    default:
      bad("a point runs decode, replay or a firmware run ([run] --firmware NAME), nothing else");
  }
  return sweep_kind::run;
}

// Files and settings every point shares must not name one output for all,
// unless --keep-outputs moves each point's into its folder.
void check_shared_outputs(const std::vector<std::string>& sets,
                          const std::vector<workload::sweep_axis>& axes, bool keep_outputs) {
  for (const auto& s : sets)
    if (!keep_outputs && (key_of(s, "trace.") || key_of(s, "output.dir=")))
      throw vp::input_error("--set " + s +
                            ": every point would write the same file; --keep-outputs keeps each "
                            "point's outputs in DIR/points/<k>/");
  for (const auto& a : axes)
    if (key_of(a.key, "trace.") || key_of(a.key, "output."))
      throw vp::input_error(a.source + (a.pointer.empty() ? "" : ": " + a.pointer) + ": " + a.key +
                            " is an output path, not something to sweep");
}

bool sets_mode_key(const std::vector<workload::sweep_axis>& axes) {
  for (const auto& a : axes)
    if (a.key == "simulation.mode" || a.key == "simulation") return true;
  return false;
}

std::string axes_text(const workload::sweep_definition& d, std::size_t k) {
  const auto c = d.coordinates(k);
  std::string out;
  for (std::size_t i = 0; i < d.axes.size(); ++i)
    out += (i ? " " : "") + d.axes[i].key + "=" + workload::value_text(d.axes[i].values[c[i]]);
  return out;
}

// The figure a progress line shows for an ok point.
std::string headline(sweep_kind kind, const nlohmann::json& r) {
  char buf[96];
  try {
    switch (kind) {
      case sweep_kind::decode: {
        workload::decode_row row;
        workload::read_decode_figures(r, row);
        std::snprintf(buf, sizeof buf, "%.3f ms/token", row.latency_ms);
        return buf;
      }
      case sweep_kind::replay:
        std::snprintf(buf, sizeof buf, "%llu instructions, %.3f us",
                      static_cast<unsigned long long>(r.at("instructions_retired").get<uint64_t>()),
                      r.at("stream_ns").get<double>() / 1e3);
        return buf;
      case sweep_kind::run:
        std::snprintf(buf, sizeof buf, "%llu instructions, %.3f us simulated",
                      static_cast<unsigned long long>(r.at("instructions_retired").get<uint64_t>()),
                      r.at("sim_time_ns").get<double>() / 1e3);
        return buf;
    }
  } catch (const std::exception&) {
  }
  return "ok";
}

// Progress on stderr: one line rewritten in place on a terminal, one line
// per finished point otherwise (a log file, a cluster job's output).
class progress {
 public:
  progress(std::size_t total) : total_(total), tty_(::isatty(STDERR_FILENO) == 1) {}

  void started() {
    ++running_;
    redraw();
  }
  // A failed point's line is shown on a terminal too.
  void finished(const std::string& line, bool failed) {
    --running_;
    ++done_;
    failed_ += failed ? 1 : 0;
    if (tty_) {
      if (failed) std::cerr << "\r\033[K" << line << '\n';
      redraw();
    } else {
      std::cerr << line << '\n';
    }
  }
  void close() {
    if (tty_) std::cerr << "\r\033[K" << std::flush;
  }
  std::size_t done() const { return done_; }

 private:
  void redraw() {
    if (!tty_) return;
    char buf[160];
    const double s = std::chrono::duration<double>(steady::now() - t0_).count();
    std::snprintf(buf, sizeof buf, "pccx-vp: sweep: %zu/%zu done, %zu running, %zu failed, %.1f s",
                  done_, total_, running_, failed_, s);
    std::cerr << "\r\033[K" << buf << std::flush;
  }

  std::size_t total_, done_ = 0, running_ = 0, failed_ = 0;
  bool tty_;
  steady::time_point t0_ = steady::now();
};

}  // namespace

int run_sweep(const cli_options& opts) {
  workload::sweep_definition def;
  try {
    if (!opts.sweep_file.empty()) def.axes = workload::load_sweep_file(opts.sweep_file);
    for (const auto& a : opts.axes) def.axes.push_back(workload::parse_axis_option(a));
  } catch (const config::config_error& e) {
    throw vp::input_error("invalid sweep:\n" + std::string(e.what()));
  }
  config::config_layers layers;
  def.command = opts.point_command;
  def.kind = point_kind(opts.point_command, layers);
  def.base = opts.layers;
  layers.files.insert(layers.files.end(), opts.layers.files.begin(), opts.layers.files.end());
  layers.sets.insert(layers.sets.end(), opts.layers.sets.begin(), opts.layers.sets.end());
  check_shared_outputs(layers.sets, def.axes, opts.keep_outputs);
  // A firmware run's point gets --out DIR/points/<k>: outputs that need
  // output.dir (output.perfetto, ...) are then valid.
  if (def.kind == sweep_kind::run)
    layers.sets.push_back("output.dir=" + nlohmann::json(opts.out_dir + "/points/0").dump());
  config::load(layers);  // the points' common configuration first: its errors are plain ones
  try {
    workload::check_axes(def.axes, layers, kMaxPoints);
  } catch (const config::config_error& e) {
    throw vp::input_error("invalid sweep:\n" + std::string(e.what()));
  }
  def.timing_mode = !workload::sets_simulation_mode(layers) && !sets_mode_key(def.axes);

  const std::size_t total = def.points();
  std::vector<std::size_t> mine;
  for (std::size_t k = opts.shard_index; k < total; k += opts.shard_count) mine.push_back(k);
  const std::string dir = opts.out_dir;
  std::error_code ec;
  fs::create_directories(dir + "/points", ec);
  if (ec) throw vp::input_error("cannot create " + dir + "/points (--out): " + ec.message());
  const std::string suffix =
      opts.sharded && opts.shard_count > 1
          ? "-" + std::to_string(opts.shard_index) + "-of-" + std::to_string(opts.shard_count)
          : "";
  const std::string points_name = "points" + suffix + ".jsonl";
  const std::string points_path = dir + "/" + points_name;
  std::ofstream points(points_path, std::ios::binary | std::ios::trunc);
  if (!points) throw vp::input_error("cannot write " + points_path + " (--out)");
  points << workload::header_record(def, opts.shard_index, opts.shard_count).dump() << '\n'
         << std::flush;

  const std::size_t jobs = effective_jobs(opts.jobs, mine.size());
  std::string shape;
  for (const auto& a : def.axes)
    shape += (shape.empty() ? "" : " x ") + std::to_string(a.values.size());
  std::cerr << "pccx-vp: sweep " << def.hash() << ": " << total << " points (" << shape << ") of "
            << workload::kind_name(def.kind);
  if (suffix.empty())
    std::cerr << ", ";
  else
    std::cerr << ", shard " << opts.shard_index << "/" << opts.shard_count << ": " << mine.size()
              << " of them, ";
  std::cerr << jobs << " at a time, into " << points_path << '\n';

  // Lines are written in point order as soon as every earlier point of
  // this run is done, so an interrupted sweep leaves a usable prefix.
  std::vector<std::string> lines(mine.size());
  std::vector<bool> ready(mine.size(), false);
  std::vector<double> seconds(mine.size()), sim_wall(mine.size(), -1);
  std::size_t written = 0, failed = 0;
  const bool run_kind = def.kind == sweep_kind::run;
  const char* result_name = run_kind ? "summary.json" : "result.json";
  auto folder_of = [&](std::size_t i) { return "points/" + std::to_string(mine[i]); };
  // Each point's command, and with --resume the points already complete.
  std::vector<std::vector<std::string>> args(mine.size());
  std::vector<std::string> fingerprint(mine.size());
  std::vector<bool> resumed(mine.size(), false);
  std::vector<std::size_t> to_run;
  auto marker_of = [&](std::size_t i) { return dir + "/" + folder_of(i) + "/complete.json"; };
  for (std::size_t i = 0; i < mine.size(); ++i) {
    const std::string folder = dir + "/" + folder_of(i);
    args[i] = workload::point_args(def, mine[i], folder, folder + "/" + result_name,
                                   folder + "/config.json");
    if (opts.keep_outputs) args[i] = workload::outputs_in(args[i], folder);
    fingerprint[i] = command_fingerprint(args[i]);
    const auto done = opts.resume ? completed(marker_of(i), fingerprint[i]) : std::nullopt;
    if (done && done->contains("line") && (*done)["line"].is_object()) {
      lines[i] = (*done)["line"].dump();
      ready[i] = resumed[i] = true;
    } else {
      to_run.push_back(i);
    }
  }
  if (opts.resume)
    std::cerr << "pccx-vp: sweep " << def.hash() << ": resuming: " << mine.size() - to_run.size()
              << " of " << mine.size() << " points complete (points/<k>/complete.json), "
              << to_run.size() << " to run\n";
  auto flush_ready = [&] {
    while (written < lines.size() && ready[written]) points << lines[written++] << '\n';
    points << std::flush;
  };
  flush_ready();
  progress bar(to_run.size());
  const steady::time_point t0 = steady::now();

  auto prepare = [&](std::size_t j) {
    const std::size_t i = to_run[j];
    const std::string folder = dir + "/" + folder_of(i);
    fs::create_directories(folder, ec);
    // Stale files must not stand for this run.
    fs::remove(marker_of(i), ec);
    fs::remove(folder + "/" + result_name, ec);
    fs::remove(folder + "/config.json", ec);
    bar.started();
    return child_job{args[i], folder + "/log.txt"};
  };
  auto finish = [&](std::size_t j, const child_end& end) {
    const std::size_t i = to_run[j];
    const std::string rel = folder_of(i), folder = dir + "/" + rel;
    workload::sweep_point_result p;
    p.index = mine[i];
    const std::string result_path = folder + "/" + result_name;
    if (fs::exists(result_path, ec)) {
      p.result = nlohmann::json::parse(read_text(result_path), nullptr, false);
      if (p.result.is_discarded()) p.result = nullptr;
      if (!p.result.is_null()) p.result_file = rel + "/" + result_name;
    }
    if (fs::exists(folder + "/config.json", ec)) p.config_file = rel + "/config.json";
    // A firmware run's wall-clock figures are in speed.json beside its summary.
    if (run_kind && fs::exists(folder + "/speed.json", ec)) {
      const auto speed = nlohmann::json::parse(read_text(folder + "/speed.json"), nullptr, false);
      if (speed.is_object() && speed.contains("wall_time_s") && speed["wall_time_s"].is_number())
        sim_wall[i] = speed["wall_time_s"].get<double>();
    }
    workload::keep_deterministic(def.kind, p.result);
    const std::string log = folder + "/log.txt";
    workload::classify_point(def.kind, end.abnormal(), end.exit_code(), last_line(read_text(log)),
                             p);
    seconds[i] = end.seconds;
    const nlohmann::json record = workload::point_record(def, p);
    lines[i] = record.dump();
    ready[i] = true;
    flush_ready();
    // The marker holds only what the sweep's outputs hold (no wall-clock
    // figures), so a run's files stay the same run after run.
    if (p.status == "ok" || p.status == "does_not_fit")
      mark_complete(marker_of(i), fingerprint[i], {{"line", record}});

    const bool bad = p.status != "ok" && p.status != "does_not_fit";
    char t[32];
    std::snprintf(t, sizeof t, " (%.1f s)", end.seconds);
    std::ostringstream line;
    line << "pccx-vp: [" << bar.done() + 1 << "/" << mine.size() << "] point " << p.index << " ("
         << axes_text(def, p.index) << "): ";
    if (p.status == "ok")
      line << headline(def.kind, p.result);
    else
      line << p.status << ": " << p.error;
    line << t;
    if (bad) {
      ++failed;
      line << "; output kept in " << log;
    } else {
      fs::remove(log, ec);
    }
    bar.finished(line.str(), bad);
  };
  run_children(to_run.size(), jobs, prepare, finish, opts.point_timeout_s);
  bar.close();
  points.close();
  if (!points) throw vp::input_error("cannot write " + points_path + " (--out)");
  const double wall = std::chrono::duration<double>(steady::now() - t0).count();

  nlohmann::ordered_json timing;
  timing["jobs"] = jobs;
  timing["wall_s"] = wall;
  timing["points"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < mine.size(); ++i) {
    nlohmann::ordered_json t = {{"point", mine[i]}};
    if (resumed[i]) {
      t["resumed"] = true;  // run earlier; this run spent no time on it
    } else {
      t["process_s"] = seconds[i];
      if (sim_wall[i] >= 0) t["simulation_wall_s"] = sim_wall[i];
    }
    timing["points"].push_back(std::move(t));
  }
  write_output(dir, "timing" + suffix + ".json", timing.dump(2) + "\n");

  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", wall);
  std::cerr << "pccx-vp: sweep " << def.hash() << ": " << mine.size() - failed << " of "
            << mine.size() << " points ran, " << failed << " failed; " << points_path;
  if (suffix.empty()) {
    // The whole sweep ran here: its tables, as merge would write them.
    const workload::sweep_results r = workload::read_results({points_path});
    write_output(dir, "sweep.csv", workload::results_csv(r));
    write_output(dir, "sweep.md", workload::results_markdown(r));
    std::cerr << ", sweep.csv, sweep.md";
    try {
      report::write_sweep_report({dir}, dir);
      std::cerr << ", report.html";
    } catch (const std::exception& e) {
      std::cerr << "\npccx-vp: cannot write " << dir << "/report.html: " << e.what();
      ++failed;
    }
  }
  std::cerr << "; wall " << buf << " s\n";
  return failed == 0 ? 0 : 1;
}

int run_merge(const cli_options& opts) {
  workload::sweep_results r;
  try {
    r = workload::read_results(opts.inputs);
  } catch (const config::config_error& e) {
    throw vp::input_error("cannot merge:\n" + std::string(e.what()));
  }
  std::error_code ec;
  fs::create_directories(opts.out_dir, ec);
  if (ec) throw vp::input_error("cannot create " + opts.out_dir + " (--out): " + ec.message());
  write_output(opts.out_dir, "sweep.csv", workload::results_csv(r));
  write_output(opts.out_dir, "sweep.md", workload::results_markdown(r));
  try {
    report::write_sweep_report(opts.inputs, opts.out_dir);
  } catch (const std::exception& e) {
    throw vp::input_error("cannot write " + opts.out_dir + "/report.html: " + e.what());
  }
  std::cerr << "pccx-vp: merge: sweep " << r.hash << ", " << r.points.size() << " of " << r.total
            << " points, into " << opts.out_dir << " (sweep.csv, sweep.md, report.html)\n";
  if (r.missing.empty()) return 0;
  std::cerr << "pccx-vp: merge: " << r.missing.size() << " points missing:";
  for (std::size_t k : r.missing) std::cerr << ' ' << k;
  std::cerr << '\n';
  return 1;
}

}  // namespace pccx::app
