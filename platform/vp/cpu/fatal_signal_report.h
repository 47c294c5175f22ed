// Turns a fatal signal during a run (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
// SIGABRT) into a diagnostic on stderr and exit code 1: which signal, the
// faulting address, the firmware, whether its own code or the platform was
// running, and the simulated time of the last HAL call. Firmware runs in
// the pccx-vp process, so a wild pointer in a driver must end the run with
// a message, not a bare core dump.
//
// Builds with AddressSanitizer keep the sanitizer's own report instead.
#pragma once

#include <string>

#include "platform/vp/cpu/firmware_activity.h"

namespace pccx::vp {

class fatal_signal_report {
 public:
  // Installs the handlers (on an alternate stack, so a stack overflow is
  // reported too) until destruction. One at a time per process.
  fatal_signal_report(const std::string& firmware_name, const firmware_activity& cpu);
  ~fatal_signal_report();
  fatal_signal_report(const fatal_signal_report&) = delete;
  fatal_signal_report& operator=(const fatal_signal_report&) = delete;

  // False when the handlers were left to a sanitizer.
  bool armed() const { return armed_; }

 private:
  bool armed_ = false;
};

}  // namespace pccx::vp
