#include "decode_table_command.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "config/config_error.h"
#include "vp/top/simulation.h"
#include "workload/decode_table.h"

extern char** environ;

namespace pccx::app {

namespace {

namespace fs = std::filesystem;
using steady = std::chrono::steady_clock;
using workload::decode_row;

// One SystemC simulation per process: each cell re-runs this executable.
std::string self_exe() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    throw vp::input_error("cannot find the pccx-vp executable (/proc/self/exe): " + ec.message());
  return p.string();
}

// Starts exe with args, stdin from /dev/null, stdout and stderr into log.
// Returns the pid, or -1 with the reason in `error`.
pid_t spawn(const std::string& exe, const std::vector<std::string>& args, const std::string& log,
            std::string& error) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(exe.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    error = "cannot start " + exe + ": " + std::strerror(rc);
    return -1;
  }
  return pid;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The last line that says something, for a failure's one-line reason.
std::string last_line(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

void write_output(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f || !(f << text)) throw vp::input_error("cannot write " + path + " (--out)");
}

struct cell_run {
  pid_t pid = -1;
  steady::time_point start;
  double seconds = 0;
  int wait_status = 0;
  std::string spawn_error;
};

// The row of a finished cell: its document when the child wrote one that
// says it ran (exit 0) or that the plan does not fit (exit 2); any other
// end is a failure, with the document's or the output's last word.
decode_row finish_cell(const workload::decode_sweep& s, const workload::decode_cell& c,
                       const cell_run& run, const std::string& json_path, const std::string& log,
                       nlohmann::json& doc) {
  if (!run.spawn_error.empty()) return workload::failed_row(s, c, run.spawn_error);
  if (WIFSIGNALED(run.wait_status)) {
    const int sig = WTERMSIG(run.wait_status);
    return workload::failed_row(
        s, c, "killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")");
  }
  const int code = WIFEXITED(run.wait_status) ? WEXITSTATUS(run.wait_status) : -1;
  std::error_code ec;
  if (fs::exists(json_path, ec)) {
    doc = nlohmann::json::parse(read_text(json_path), nullptr, false);
    if (doc.is_discarded()) doc = nlohmann::json();
  }
  const std::string status = doc.is_object() ? doc.value("status", std::string()) : "";
  if ((code == 0 && status == "ok") || (code == 2 && status == "does_not_fit"))
    return workload::cell_row(s, c, doc);
  const std::string why = doc.is_object() ? doc.value("error", std::string()) : "";
  if (!why.empty()) return workload::failed_row(s, c, why);
  return workload::failed_row(
      s, c, "exit code " + std::to_string(code) + ": " + last_line(read_text(log)));
}

}  // namespace

int run_decode_table(const cli_options& opts) {
  workload::decode_table table;
  table.base.files = opts.layers.files;
  table.base.sets = opts.layers.sets;
  try {
    table.sweep = workload::load_sweep(opts.sweep, table.base);
  } catch (const config::config_error& e) {
    throw vp::input_error("invalid sweep file:\n" + std::string(e.what()));
  }
  const workload::decode_sweep& sweep = table.sweep;
  const auto cells = workload::sweep_cells(sweep);

  const std::string dir = opts.out_dir;
  const std::string cell_dir = dir + "/cells";
  std::error_code ec;
  fs::create_directories(cell_dir, ec);
  if (ec) throw vp::input_error("cannot create " + cell_dir + " (--out): " + ec.message());
  const std::string exe = self_exe();

  std::size_t jobs = opts.jobs;
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min(jobs, cells.size());
  auto count = [](std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  std::cerr << "pccx-vp: decode-table: " << count(cells.size(), "cell", "cells") << " ("
            << count(sweep.models.size(), "model", "models") << " x "
            << count(sweep.strategies.size(), "strategy", "strategies") << " x "
            << count(sweep.contexts.size(), "context", "contexts") << ", "
            << count(sweep.tokens, "token", "tokens") << " each), " << jobs << " at a time\n";

  const steady::time_point t0 = steady::now();
  std::vector<cell_run> runs(cells.size());
  std::vector<decode_row> rows(cells.size());
  std::vector<nlohmann::json> docs(cells.size());
  std::map<pid_t, std::size_t> running;
  std::size_t next = 0, done = 0, failed = 0, not_fit = 0;
  auto json_of = [&](std::size_t i) { return cell_dir + "/" + cells[i].id + ".json"; };
  auto log_of = [&](std::size_t i) { return cell_dir + "/" + cells[i].id + ".log"; };

  auto finish = [&](std::size_t i) {
    rows[i] = finish_cell(sweep, cells[i], runs[i], json_of(i), log_of(i), docs[i]);
    const decode_row& r = rows[i];
    ++done;
    std::ostringstream line;
    line << "pccx-vp: [" << done << "/" << cells.size() << "] " << cells[i].id << ": ";
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
    std::snprintf(buf, sizeof buf, " (%.1f s)", runs[i].seconds);
    std::cerr << line.str() << buf << '\n';
    if (r.state == decode_row::status::failed) {
      std::cerr << "pccx-vp: output of " << cells[i].id << " (kept in " << log_of(i) << "):\n"
                << read_text(log_of(i));
    } else {
      fs::remove(log_of(i), ec);
    }
  };

  while (done < cells.size()) {
    while (running.size() < jobs && next < cells.size()) {
      const std::size_t i = next++;
      fs::remove(json_of(i), ec);  // a stale document must not stand for this run
      const auto args = workload::decode_args(sweep, cells[i], table.base, json_of(i));
      runs[i].start = steady::now();
      runs[i].pid = spawn(exe, args, log_of(i), runs[i].spawn_error);
      if (runs[i].pid < 0)
        finish(i);
      else
        running[runs[i].pid] = i;
    }
    if (running.empty()) continue;
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const std::size_t i = it->second;
    running.erase(it);
    runs[i].wait_status = status;
    runs[i].seconds = std::chrono::duration<double>(steady::now() - runs[i].start).count();
    finish(i);
  }
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
    nlohmann::ordered_json c = {{"cell", cells[i].id}, {"process_s", runs[i].seconds}};
    if (docs[i].is_object() && docs[i].contains("wall_time_s"))
      c["simulation_wall_s"] = docs[i]["wall_time_s"];
    timing["cells"].push_back(std::move(c));
  }
  write_output(dir, "decode_table_timing.json", timing.dump(2) + "\n");

  std::cout << md;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", wall);
  std::cerr << "pccx-vp: decode table in " << dir
            << " (decode_table.md, .csv, .json): " << cells.size() - not_fit - failed << " ran, "
            << not_fit << " do not fit, " << failed << " failed; wall " << buf << " s\n";
  return failed == 0 ? 0 : 1;
}

}  // namespace pccx::app
