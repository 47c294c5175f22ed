// Where the firmware CPU is, readable from other threads and from signal
// handlers: inside firmware code or inside the platform (a HAL call), and
// the simulated time of the last HAL call. The wall-clock watchdog and the
// fatal-signal report use it to say what the firmware was doing.
#pragma once

#include <atomic>
#include <cstdint>

namespace pccx::vp {

struct firmware_activity {
  // Nonzero while no firmware code runs: before the entry, inside HAL calls
  // (which nest: uca_hal_wait_idle reads STATUS), after the entry returned.
  std::atomic<int> in_platform{1};
  std::atomic<bool> started{false};
  std::atomic<uint64_t> last_sim_ns{0};
  std::atomic<uint64_t> hal_calls{0};

  void enter_platform(uint64_t sim_ns) {
    last_sim_ns.store(sim_ns, std::memory_order_relaxed);
    hal_calls.fetch_add(1, std::memory_order_relaxed);
    in_platform.fetch_add(1, std::memory_order_relaxed);
  }
  void leave_platform() { in_platform.fetch_sub(1, std::memory_order_relaxed); }
  bool in_firmware() const {
    return started.load(std::memory_order_relaxed) &&
           in_platform.load(std::memory_order_relaxed) == 0;
  }
};

}  // namespace pccx::vp
