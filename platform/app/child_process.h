// Child processes of pccx-vp. SystemC elaborates once per process, so the
// commands that run many simulations (decode-table, sweep) start this same
// executable once per simulation, a few at a time, with stdin from
// /dev/null and stdout and stderr into a log file each.
#pragma once

#include <sys/types.h>

#include <csignal>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace pccx::app {

// The running executable (/proc/self/exe); throws vp::input_error.
std::string self_exe();

// Starts exe with args, stdin from /dev/null, stdout and stderr into log.
// Returns the pid, or -1 with the reason in `error`.
pid_t spawn(const std::string& exe, const std::vector<std::string>& args, const std::string& log,
            std::string& error);

// A whole file, or "" when it cannot be read.
std::string read_text(const std::string& path);
// The last line that says something, for a failure's one-line reason.
std::string last_line(const std::string& text);
// Writes dir/name; throws vp::input_error naming the file.
void write_output(const std::string& dir, const std::string& name, const std::string& text);

struct child_job {
  std::vector<std::string> args;  // without the executable
  std::string log;                // stdout and stderr of the child
};

struct child_end {
  int wait_status = 0;      // as waitpid gives it
  double seconds = 0;       // the child's life, wall clock
  std::string spawn_error;  // set when the child could not be started
  bool timed_out = false;   // killed after the timeout
  double timeout_s = 0;     // that timeout
  // One line: "" for a child that exited (its code is the caller's to
  // read), else why it did not.
  std::string abnormal() const;
  int exit_code() const;  // -1 unless the child exited
};

// SIGINT or SIGTERM reached run_children: it passed the signal on to the
// running children, waited for them and removed their unfinished outputs.
class interrupted : public std::runtime_error {
 public:
  interrupted(int sig, std::size_t stopped, std::size_t started_before)
      : std::runtime_error(
            std::string(sig == SIGINT ? "SIGINT" : "SIGTERM") +
            " received: " + std::to_string(stopped) + " running child" +
            (stopped == 1 ? "" : "ren") + " stopped, their unfinished outputs removed; " +
            std::to_string(started_before) + " finished before (run again to redo the rest)"),
        signal(sig) {}
  int signal;
};

// Runs `count` children of this executable, at most `jobs` at once,
// started in index order. prepare(i) gives child i's arguments and log just
// before it starts; finished(i, end) is called as each one ends, in the
// order they end. timeout_s > 0: a child still running after that many
// seconds is killed (SIGKILL) and reported as timed out. SIGINT or SIGTERM
// stops the run: throws `interrupted` once the children are gone.
void run_children(std::size_t count, std::size_t jobs,
                  const std::function<child_job(std::size_t)>& prepare,
                  const std::function<void(std::size_t, const child_end&)>& finished,
                  double timeout_s = 0);

// --jobs: 0 means the number of cores; never more than there are children.
std::size_t effective_jobs(std::size_t requested, std::size_t children);

}  // namespace pccx::app
