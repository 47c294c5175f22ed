#include "platform/app/child_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "infra/io/output_file.h"
#include "platform/vp/top/simulation.h"

extern char** environ;

namespace pccx::app {

namespace fs = std::filesystem;
using steady = std::chrono::steady_clock;

namespace {

// SIGINT or SIGTERM received while children run (0: none).
volatile std::sig_atomic_t g_stop_signal = 0;

void note_stop(int sig) {
  g_stop_signal = sig;
}

// SIGINT and SIGTERM handled for the life of a run_children call, without
// SA_RESTART so that a blocking waitpid returns to look at them.
class stop_signals {
 public:
  stop_signals() {
    g_stop_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = &note_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~stop_signals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  stop_signals(const stop_signals&) = delete;
  stop_signals& operator=(const stop_signals&) = delete;

 private:
  struct sigaction old_int_ {
  }, old_term_{};
};

// The temporary files a stopped child left (io::output_file's NAME.part-PID)
// in its log's folder and the folders below it.
void remove_partial_outputs(const std::string& log, pid_t pid) {
  const std::string suffix = ".part-" + std::to_string(pid);
  std::error_code ec;
  const fs::path dir = fs::path(log).parent_path();
  for (auto it = fs::recursive_directory_iterator(dir.empty() ? "." : dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      fs::remove(it->path(), ec);
  }
}

}  // namespace

std::string self_exe() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    throw vp::input_error("cannot find the pccx-vp executable (/proc/self/exe): " + ec.message());
  return p.string();
}

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

std::string last_line(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

void write_output(const std::string& dir, const std::string& name, const std::string& text) {
  io::write_output(dir + "/" + name, text);
}

std::string child_end::abnormal() const {
  if (!spawn_error.empty()) return spawn_error;
  if (timed_out) {
    // The limit, not the measured time, so the reason is the same every run.
    char buf[64];
    std::snprintf(buf, sizeof buf, "killed after the --timeout of %g s", timeout_s);
    return buf;
  }
  if (WIFSIGNALED(wait_status)) {
    const int sig = WTERMSIG(wait_status);
    return "killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  return "";
}

int child_end::exit_code() const {
  if (!spawn_error.empty() || timed_out || !WIFEXITED(wait_status)) return -1;
  return WEXITSTATUS(wait_status);
}

std::size_t effective_jobs(std::size_t requested, std::size_t children) {
  std::size_t jobs = requested;
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  return std::max<std::size_t>(1, std::min(jobs, children));
}

void run_children(std::size_t count, std::size_t jobs,
                  const std::function<child_job(std::size_t)>& prepare,
                  const std::function<void(std::size_t, const child_end&)>& finished,
                  double timeout_s) {
  const std::string exe = self_exe();
  const stop_signals stop;
  struct running_child {
    std::size_t index;
    steady::time_point start;
    std::string log;
    bool killed = false;
  };
  std::map<pid_t, running_child> running;
  std::size_t next = 0;
  auto seconds_since = [](steady::time_point t) {
    return std::chrono::duration<double>(steady::now() - t).count();
  };
  while (next < count || !running.empty()) {
    if (g_stop_signal != 0) {
      // Pass the signal on, wait for every child and leave no half file.
      const int sig = g_stop_signal;
      for (const auto& [p, c] : running) ::kill(p, sig);
      for (const auto& [p, c] : running) {
        int st = 0;
        while (::waitpid(p, &st, 0) < 0 && errno == EINTR) {
        }
        remove_partial_outputs(c.log, p);
      }
      throw interrupted(sig, running.size(), next - running.size());
    }
    while (running.size() < jobs && next < count) {
      const std::size_t i = next++;
      const child_job job = prepare(i);
      const steady::time_point start = steady::now();
      child_end end;
      const pid_t pid = spawn(exe, job.args, job.log, end.spawn_error);
      if (pid < 0)
        finished(i, end);
      else
        running[pid] = {i, start, job.log};
    }
    if (running.empty()) continue;
    int status = 0;
    // Without a timeout a blocking wait; with one, a poll that can kill.
    const pid_t pid = ::waitpid(-1, &status, timeout_s > 0 ? WNOHANG : 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    }
    if (pid == 0) {
      for (auto& [p, c] : running)
        if (!c.killed && seconds_since(c.start) > timeout_s) {
          ::kill(p, SIGKILL);
          c.killed = true;
        }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const running_child c = it->second;
    running.erase(it);
    // A child a signal ended (the stop signal can reach it and this wait
    // before the handler runs here) left its temporary files.
    if (WIFSIGNALED(status) || g_stop_signal != 0) remove_partial_outputs(c.log, pid);
    child_end end;
    end.wait_status = status;
    end.seconds = seconds_since(c.start);
    end.timed_out = c.killed;
    end.timeout_s = timeout_s;
    finished(c.index, end);
  }
}

}  // namespace pccx::app
