// How a run ends: the firmware returns or writes the sim-control EXIT
// register (finished, with its exit code), or something fails (bus error,
// strict-mode NPU error, time limit, deadlock). The first outcome wins and
// stops the simulation.
#pragma once

#include <string>

namespace pccx::vp {

class run_control {
 public:
  enum class state { running, finished, failed };

  void finish(int exit_code, const std::string& how);
  void fail(const std::string& message);
  // Turns a finished run into a failed one, after the simulation ended (the
  // end-of-run checks); no effect on a run that already failed.
  void override_failure(const std::string& message);

  state current() const { return state_; }
  int exit_code() const { return exit_code_; }
  const std::string& message() const { return message_; }

 private:
  state state_ = state::running;
  int exit_code_ = 0;
  std::string message_;
};

}  // namespace pccx::vp
