#include "platform/app/decode_table_command.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "infra/config/config_error.h"
#include "platform/app/child_process.h"
#include "platform/app/resume_marker.h"
#include "platform/report/run_reports.h"
#include "platform/vp/top/simulation.h"
#include "platform/workload/cell_outputs.h"
#include "platform/workload/decode_table.h"
#include "platform/workload/prefill_table.h"

namespace pccx::app {

namespace {

namespace fs = std::filesystem;
using steady = std::chrono::steady_clock;
using workload::decode_row;

// A finished child's decode document: the child's when it says it ran
// (exit 0) or that the plan does not fit (exit 2); any other end gives
// {"status": "failed"} with the document's or the output's last word.
nlohmann::json child_document(const child_end& run, const std::string& json_path,
                               const std::string& log) {
  const std::string abnormal = run.abnormal();
  if (!abnormal.empty()) return {{"status", "failed"}, {"error", abnormal}};
  nlohmann::json doc;
  std::error_code ec;
  if (fs::exists(json_path, ec)) doc = nlohmann::json::parse(read_text(json_path), nullptr, false);
  const std::string status = doc.is_object() ? doc.value("status", std::string()) : "";
  const int code = run.exit_code();
  if ((code == 0 && status == "ok") || (code == 2 && status == "does_not_fit")) return doc;
  const std::string why = doc.is_object() ? doc.value("error", std::string()) : "";
  return {{"status", "failed"},
          {"error", !why.empty() ? why
                                 : "exit code " + std::to_string(code) + ": " +
                                       last_line(read_text(log))}};
}

// The row of a finished cell, from its document.
decode_row finish_cell(const workload::decode_sweep& s, const workload::decode_cell& c,
                       const child_end& run, const std::string& json_path, const std::string& log,
                       nlohmann::json& doc) {
  doc = child_document(run, json_path, log);
  if (doc.value("status", std::string()) == "failed")
    return workload::failed_row(s, c, doc.value("error", std::string()));
  return workload::cell_row(s, c, doc);
}

// The prefill table's samples, each a child like a decode cell (with
// --resume the complete ones are kept), then its rows; the number of rows
// that failed.
// For each run, the first run with the same command line but for where it
// writes its JSON (itself when none is earlier); with --keep-outputs every
// run keeps its own folder, so each runs.
template <typename Job>
std::vector<std::size_t> identical_runs(const std::vector<Job>& jobs, bool keep_outputs) {
  std::vector<std::size_t> same_as(jobs.size());
  std::map<std::vector<std::string>, std::size_t> first;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    std::vector<std::string> key = jobs[k].args;
    for (std::size_t i = 0; i + 1 < key.size(); ++i)
      if (key[i] == "--json") key[i + 1].clear();
    same_as[k] = keep_outputs ? k : first.emplace(std::move(key), k).first->second;
  }
  return same_as;
}

// The prefill table's sampled chunks. They are planned before any child
// starts, so that they and the decode cells share one pool of processes:
// the chunks (about a second each) go first and the shorter decode cells
// fill the last gaps, rather than each table leaving a core idle at its end.
class prefill_run {
 public:
  prefill_run(const cli_options& opts, const workload::decode_table& decode, const std::string& dir)
      : opts_(opts),
        sweep_(decode.sweep),
        base_(decode.base),
        dir_(dir),
        cell_dir_(dir + "/cells"),
        cells_(workload::prefill_cells(decode.sweep, decode.base)) {
    if (cells_.empty()) return;
    for (std::size_t c = 0; c < cells_.size(); ++c)
      for (std::size_t i = 0; i < cells_[c].samples.size(); ++i) {
        sample_job j{c, cells_[c].sample_id(i), {}, {}};
        j.args = workload::prefill_args(sweep_, cells_[c], i, base_, file_of(j, ".json"));
        if (opts.keep_outputs) j.args = workload::outputs_in(j.args, cell_dir_ + "/" + j.id);
        j.fingerprint = command_fingerprint(j.args);
        samples_.push_back(std::move(j));
      }
    // Samples whose runs are the same command (a strategy whose ring does not
    // follow the prompt samples the same chunks at every prompt) run once.
    same_as_ = identical_runs(samples_, opts.keep_outputs);
    docs_.resize(samples_.size());
    for (std::size_t k = 0; k < samples_.size(); ++k) {
      const auto record =
          opts.resume ? completed(marker_of(k), samples_[k].fingerprint) : std::nullopt;
      const nlohmann::json doc = record ? record->value("doc", nlohmann::json()) : nlohmann::json();
      const std::string status = doc.is_object() ? doc.value("status", std::string()) : "";
      if (status == "ok" || status == "does_not_fit")
        docs_[k] = doc;
      else if (same_as_[k] == k)
        to_run_.push_back(k);
    }
  }

  void announce() const {
    if (cells_.empty()) return;
    std::cerr << "pccx-vp: decode-table: prefill table: " << cells_.size() << " cells, "
              << samples_.size() << " sampled chunks (" << to_run_.size() << " to run)\n";
  }

  std::size_t size() const { return to_run_.size(); }  // chunks to simulate

  child_job prepare(std::size_t j) {
    const std::size_t k = to_run_[j];
    std::error_code ec;
    fs::remove(marker_of(k), ec);
    fs::remove(json_of(k), ec);
    if (opts_.keep_outputs) fs::create_directories(cell_dir_ + "/" + samples_[k].id, ec);
    return child_job{samples_[k].args, log_of(k)};
  }

  void finish(std::size_t j, const child_end& end) {
    const std::size_t k = to_run_[j];
    docs_[k] = child_document(end, json_of(k), log_of(k));
    const std::string status = docs_[k].value("status", std::string());
    if (status == "ok" || status == "does_not_fit") {
      mark_complete(marker_of(k), samples_[k].fingerprint, {{"doc", docs_[k]}});
      std::error_code ec;
      fs::remove(log_of(k), ec);
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, " (%.1f s)", end.seconds);
    std::cerr << "pccx-vp: [" << ++done_ << "/" << to_run_.size() << "] " << samples_[k].id << ": "
              << status << buf << '\n';
  }

  // Once every chunk has run: the samples that ran as another's take its
  // document, then the table is written. Returns the failed rows.
  std::size_t write_table() {
    if (cells_.empty()) return 0;
    std::error_code ec;
    for (std::size_t k = 0; k < samples_.size(); ++k) {
      const std::size_t r = same_as_[k];
      if (r == k || !docs_[k].is_null()) continue;
      docs_[k] = docs_[r];
      fs::copy_file(json_of(r), json_of(k), fs::copy_options::overwrite_existing, ec);
      const std::string status = docs_[k].value("status", std::string());
      if (status == "ok" || status == "does_not_fit")
        mark_complete(marker_of(k), samples_[k].fingerprint, {{"doc", docs_[k]}});
    }
    workload::prefill_table table{sweep_, base_, {}};
    std::size_t failed = 0;
    for (std::size_t c = 0; c < cells_.size(); ++c) {
      std::vector<nlohmann::json> cell_docs;
      for (std::size_t k = 0; k < samples_.size(); ++k)
        if (samples_[k].cell == c) cell_docs.push_back(docs_[k]);
      table.rows.push_back(workload::prefill_cell_row(sweep_, base_, cells_[c], cell_docs));
      if (table.rows.back().state == decode_row::status::failed) ++failed;
    }
    const std::string md = workload::prefill_markdown(table);
    write_output(dir_, "prefill_table.md", md);
    write_output(dir_, "prefill_table.csv", workload::prefill_csv(table));
    write_output(dir_, "prefill_table.json", workload::prefill_json(table).dump(2) + "\n");
    std::cout << '\n' << md;
    return failed;
  }

 private:
  struct sample_job {
    std::size_t cell;
    std::string id;
    std::vector<std::string> args;
    std::string fingerprint;
  };
  // A sample's files in DIR/cells: its document, its log, its marker.
  std::string file_of(const sample_job& j, const char* suffix) const {
    return cell_dir_ + "/" + j.id + suffix;
  }
  std::string json_of(std::size_t k) const { return file_of(samples_[k], ".json"); }
  std::string log_of(std::size_t k) const { return file_of(samples_[k], ".log"); }
  std::string marker_of(std::size_t k) const { return file_of(samples_[k], ".complete.json"); }

  const cli_options& opts_;
  const workload::decode_sweep& sweep_;
  const config::config_layers& base_;
  const std::string dir_, cell_dir_;
  const std::vector<workload::prefill_cell> cells_;
  std::vector<sample_job> samples_;
  std::vector<std::size_t> same_as_;  // per sample, the sample whose run it shares
  std::vector<nlohmann::json> docs_;
  std::vector<std::size_t> to_run_;
  std::size_t done_ = 0;
};

}  // namespace

namespace {

workload::decode_sweep load_table_sweep(const cli_options& opts,
                                        const config::config_layers& base) {
  try {
    return workload::load_sweep(opts.sweep, base);
  } catch (const config::config_error& e) {
    throw vp::input_error("invalid sweep file:\n" + std::string(e.what()));
  }
}

// Cells run side by side: an output every cell would write is refused,
// unless --keep-outputs gives each cell its own folder.
void check_shared_outputs(const cli_options& opts, const workload::decode_sweep& sweep,
                          const config::config_layers& base) {
  if (opts.keep_outputs) return;
  for (const auto& c : workload::sweep_cells(sweep))
    if (const auto shared = workload::shared_output(workload::decode_args(sweep, c, base, "")))
      throw vp::input_error(*shared +
                            ": every cell would write the same file; --keep-outputs keeps each "
                            "cell's outputs in DIR/cells/<id>/");
}

}  // namespace

void check_decode_table_sweep(const cli_options& opts) {
  config::config_layers base;
  base.files = opts.layers.files;
  base.sets = opts.layers.sets;
  check_shared_outputs(opts, load_table_sweep(opts, base), base);
}

int run_decode_table(const cli_options& opts) {
  workload::decode_table table;
  table.base.files = opts.layers.files;
  table.base.sets = opts.layers.sets;
  table.sweep = load_table_sweep(opts, table.base);
  const workload::decode_sweep& sweep = table.sweep;
  const auto cells = workload::sweep_cells(sweep);
  check_shared_outputs(opts, sweep, table.base);

  const std::string dir = opts.out_dir;
  const std::string cell_dir = dir + "/cells";
  std::error_code ec;
  fs::create_directories(cell_dir, ec);
  if (ec) throw vp::input_error("cannot create " + cell_dir + " (--out): " + ec.message());
  prefill_run prefill(opts, table, dir);
  const std::size_t jobs = effective_jobs(opts.jobs, cells.size() + prefill.size());
  auto count = [](std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  std::cerr << "pccx-vp: decode-table: " << count(cells.size(), "cell", "cells") << " ("
            << count(sweep.models.size(), "model", "models") << " x "
            << count(sweep.strategies.size(), "strategy", "strategies") << " x "
            << count(sweep.contexts.size(), "context", "contexts") << ", "
            << count(sweep.tokens, "token", "tokens") << " each), " << jobs << " at a time\n";

  const steady::time_point t0 = steady::now();
  std::vector<double> seconds(cells.size());
  std::vector<decode_row> rows(cells.size());
  std::vector<nlohmann::json> docs(cells.size());
  std::size_t done = 0, failed = 0, not_fit = 0;
  auto json_of = [&](std::size_t i) { return cell_dir + "/" + cells[i].id + ".json"; };
  auto log_of = [&](std::size_t i) { return cell_dir + "/" + cells[i].id + ".log"; };

  // Each cell's command, and with --resume the cells already complete.
  std::vector<std::vector<std::string>> args(cells.size());
  std::vector<std::string> fingerprint(cells.size());
  std::vector<bool> resumed(cells.size(), false);
  std::vector<std::size_t> to_run;
  auto marker_of = [&](std::size_t i) { return cell_dir + "/" + cells[i].id + ".complete.json"; };
  for (std::size_t i = 0; i < cells.size(); ++i) {
    args[i] = workload::decode_args(sweep, cells[i], table.base, json_of(i));
    if (opts.keep_outputs) args[i] = workload::outputs_in(args[i], cell_dir + "/" + cells[i].id);
    fingerprint[i] = command_fingerprint(args[i]);
    const auto record = opts.resume ? completed(marker_of(i), fingerprint[i]) : std::nullopt;
    const nlohmann::json doc = record ? record->value("doc", nlohmann::json()) : nlohmann::json();
    const std::string status = doc.is_object() ? doc.value("status", std::string()) : "";
    if (status == "ok" || status == "does_not_fit") {
      docs[i] = doc;
      rows[i] = workload::cell_row(sweep, cells[i], doc);
      resumed[i] = true;
      if (rows[i].state == decode_row::status::does_not_fit) ++not_fit;
    } else {
      to_run.push_back(i);
    }
  }
  if (opts.resume)
    std::cerr << "pccx-vp: decode-table: resuming: " << cells.size() - to_run.size() << " of "
              << cells.size() << " cells complete (cells/<id>.complete.json), " << to_run.size()
              << " to run\n";
  prefill.announce();

  auto prepare = [&](std::size_t j) {
    const std::size_t i = to_run[j];
    fs::remove(marker_of(i), ec);  // stale files must not stand for this run
    fs::remove(json_of(i), ec);
    if (opts.keep_outputs) fs::create_directories(cell_dir + "/" + cells[i].id, ec);
    return child_job{args[i], log_of(i)};
  };
  auto finish = [&](std::size_t j, const child_end& end) {
    const std::size_t i = to_run[j];
    seconds[i] = end.seconds;
    rows[i] = finish_cell(sweep, cells[i], end, json_of(i), log_of(i), docs[i]);
    const decode_row& r = rows[i];
    if (r.state != decode_row::status::failed)
      mark_complete(marker_of(i), fingerprint[i], {{"doc", docs[i]}});  // no wall-clock figures
    ++done;
    std::ostringstream line;
    line << "pccx-vp: [" << done << "/" << to_run.size() << "] " << cells[i].id << ": ";
    char buf[64];
    switch (r.state) {
      case decode_row::status::ok:
        std::snprintf(buf, sizeof buf, "%.3f ms/token", r.latency_ms);
        line << buf;
        break;
      case decode_row::status::does_not_fit:
        ++not_fit;
        line << r.note;
        break;
      case decode_row::status::failed:
        ++failed;
        line << r.note;
        break;
    }
    std::snprintf(buf, sizeof buf, " (%.1f s)", end.seconds);
    std::cerr << line.str() << buf << '\n';
    if (r.state == decode_row::status::failed) {
      std::cerr << "pccx-vp: output of " << cells[i].id << " (kept in " << log_of(i) << "):\n"
                << read_text(log_of(i));
    } else {
      fs::remove(log_of(i), ec);
    }
  };
  // One pool: the prefill chunks first, then the cells.
  const std::size_t chunks = prefill.size();
  run_children(
      chunks + to_run.size(), jobs,
      [&](std::size_t j) { return j < chunks ? prefill.prepare(j) : prepare(j - chunks); },
      [&](std::size_t j, const child_end& end) {
        if (j < chunks)
          prefill.finish(j, end);
        else
          finish(j - chunks, end);
      });
  failed += prefill.write_table();
  const double wall = std::chrono::duration<double>(steady::now() - t0).count();

  table.rows = rows;
  const std::string md = workload::table_markdown(table);
  write_output(dir, "decode_table.md", md);
  write_output(dir, "decode_table.csv", workload::table_csv(table));
  write_output(dir, "decode_table.json", workload::table_json(table).dump(2) + "\n");
  nlohmann::ordered_json timing;
  timing["jobs"] = jobs;
  timing["wall_s"] = wall;
  timing["cells"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < cells.size(); ++i) {
    nlohmann::ordered_json t = {{"cell", cells[i].id}};
    if (resumed[i])
      t["resumed"] = true;  // run earlier; this run spent no time on it
    else
      t["process_s"] = seconds[i];
    timing["cells"].push_back(std::move(t));
  }
  write_output(dir, "decode_table_timing.json", timing.dump(2) + "\n");
  try {
    report::write_table_report(dir);
  } catch (const std::exception& e) {
    std::cerr << "pccx-vp: cannot write " << dir << "/report.html: " << e.what() << '\n';
    ++failed;
  }

  std::cout << md;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", wall);
  std::cerr << "pccx-vp: decode table in " << dir
            << " (decode_table.md, .csv, .json): " << cells.size() - not_fit - failed << " ran, "
            << not_fit << " do not fit, " << failed << " failed; wall " << buf << " s\n";
  return failed == 0 ? 0 : 1;
}

}  // namespace pccx::app
