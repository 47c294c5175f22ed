#include "platform/vp/top/wall_clock_watchdog.h"

#include <unistd.h>

#include <cstdio>
#include <sstream>

namespace pccx::vp {

namespace {
std::string seconds_text(double s) {
  std::ostringstream o;
  o << s;
  return o.str();
}
}  // namespace

wall_clock_watchdog::wall_clock_watchdog(double limit_s, std::string firmware_name,
                                         const firmware_activity& cpu,
                                         std::chrono::milliseconds grace)
    : limit_s_(limit_s), firmware_name_(std::move(firmware_name)), grace_(grace), cpu_(cpu) {
  if (limit_s_ > 0) worker_ = std::thread([this] { watch(); });
}

wall_clock_watchdog::~wall_clock_watchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

std::string wall_clock_watchdog::message() const {
  return "wall-time limit of " + seconds_text(limit_s_) +
         " s reached (simulation.max_wall_s) before the firmware " + firmware_name_ + " finished";
}

void wall_clock_watchdog::watch() {
  const auto start = std::chrono::steady_clock::now();
  const auto limit = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(limit_s_));
  std::unique_lock<std::mutex> lock(mutex_);
  if (stop_cv_.wait_until(lock, start + limit, [this] { return stop_; })) return;
  expired_.store(true, std::memory_order_relaxed);
  // The run now ends at its next step. Only a CPU stuck inside firmware code
  // never gets there; the grace period tells the two apart.
  for (;;) {
    if (stop_cv_.wait_for(lock, grace_, [this] { return stop_; })) return;
    if (cpu_.in_firmware()) end_process();
  }
}

void wall_clock_watchdog::end_process() const {
  const double t_us =
      static_cast<double>(cpu_.last_sim_ns.load(std::memory_order_relaxed)) / 1000.0;
  std::fprintf(stderr,
               "pccx-vp: simulation failed: %s: the firmware has run for more than %.3g s "
               "without a call into the platform (last call at simulated time %.3f us); a "
               "loop without MMIO cannot be stopped at a clean point, so the process ends "
               "here without writing outputs\n",
               message().c_str(), std::chrono::duration<double>(grace_).count(), t_us);
  std::fflush(stderr);
  std::fflush(stdout);
  _exit(1);
}

}  // namespace pccx::vp
