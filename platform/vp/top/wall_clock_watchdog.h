// The wall-clock limit of a run (simulation.max_wall_s).
//
// A worker thread marks the limit as reached; the simulation loop and the
// firmware CPU look at the mark at their next step (a simulation slice, an
// MMIO access) and end the run with a diagnostic, so outputs are still
// written. Firmware spinning in a loop without any platform access never
// reaches such a step: once the limit has passed by a grace period while
// the CPU is inside firmware code, the worker prints the diagnostic itself
// and ends the process with exit code 1.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "platform/vp/cpu/firmware_activity.h"

namespace pccx::vp {

class wall_clock_watchdog {
 public:
  // limit_s 0: no limit, no thread. firmware_name goes into the diagnostics;
  // cpu tells firmware code from platform code.
  wall_clock_watchdog(double limit_s, std::string firmware_name, const firmware_activity& cpu,
                      std::chrono::milliseconds grace = std::chrono::seconds(2));
  ~wall_clock_watchdog();
  wall_clock_watchdog(const wall_clock_watchdog&) = delete;
  wall_clock_watchdog& operator=(const wall_clock_watchdog&) = delete;

  bool expired() const { return expired_.load(std::memory_order_relaxed); }
  // The failure message once expired().
  std::string message() const;

 private:
  void watch();
  [[noreturn]] void end_process() const;

  double limit_s_;
  std::string firmware_name_;
  std::chrono::milliseconds grace_;
  const firmware_activity& cpu_;
  std::atomic<bool> expired_{false};
  std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace pccx::vp
