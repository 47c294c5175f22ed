// Turns a fatal signal during a run (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
// SIGABRT) into a diagnostic on stderr and exit code 1: which signal, the
// faulting address, the firmware, whether its own code or the platform was
// running, and the simulated time of the last HAL call. Firmware runs in
// the pccx-vp process, so a wild pointer in a driver must end the run with
// a message, not a bare core dump.
//
// A fault in firmware code (not inside a platform call) on the firmware's
// thread goes back to the recovery point the firmware CPU set before the
// entry, so the run fails with the signal's description and the platform
// still writes its outputs and runs the end check. A fault anywhere else
// ends the process with the message: the platform's state is not trusted.
//
// Builds with AddressSanitizer keep the sanitizer's own report instead.
#pragma once

#include <setjmp.h>

#include <cstdint>
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

  // Where a fault in firmware code goes back to (sigsetjmp(point, 1) on the
  // firmware's thread); nullptr: nowhere, the process ends.
  static void set_recovery_point(sigjmp_buf* point);
  // The fault that went back to the recovery point, in words:
  // "SIGSEGV (invalid memory access at address 0x10)".
  static std::string recovered_fault();

  // "SIGUSR1", "signal 40".
  static std::string signal_name(int sig);
  // Whether the signal's current disposition ends the process (its default
  // action does, or it is one of the handlers above).
  static bool ends_process(int sig);

 private:
  bool armed_ = false;
};

}  // namespace pccx::vp
