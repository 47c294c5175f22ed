#include "platform/vp/top/run_control.h"

#include <systemc>

namespace pccx::vp {

void run_control::finish(int exit_code, const std::string& how) {
  if (state_ != state::running) return;
  state_ = state::finished;
  exit_code_ = exit_code;
  message_ = how;
  sc_core::sc_stop();
}

void run_control::fail(const std::string& message) {
  if (state_ != state::running) return;
  state_ = state::failed;
  exit_code_ = 1;
  message_ = message;
  sc_core::sc_stop();
}

}  // namespace pccx::vp

namespace pccx::vp {

void run_control::override_failure(const std::string& message) {
  if (state_ == state::failed) return;
  state_ = state::failed;
  exit_code_ = 1;
  message_ = message;
}

}  // namespace pccx::vp
