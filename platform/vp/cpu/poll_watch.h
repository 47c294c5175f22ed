// Watches the firmware's MMIO reads for a polling loop that cannot end: the
// same registers read again and again, each returning what it returned the
// last time, while nothing in the platform moves (no instruction retired,
// no DDR transfer by a device, no byte through a stream FIFO). Nothing can
// change those values any more, so the loop would spin until the time
// limit; the watch names the loop's register instead.
//
// The platform's progress is one number from a probe (a sum of counters
// that only grow); a read that returns a new value, any write, or a change
// of the probe starts the count again. The probe is sampled every
// kProbeEvery unchanged reads, so a fast poll loop pays one comparison per
// read.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>

namespace pccx::vp {

class poll_watch {
 public:
  // `limit` unchanged reads in a row end the loop; 0 turns the watch off.
  explicit poll_watch(uint64_t limit = 0) : limit_(limit) {}

  void set_limit(uint64_t limit) { limit_ = limit; }
  uint64_t limit() const { return limit_; }
  void set_progress_probe(std::function<uint64_t()> probe) { probe_ = std::move(probe); }

  struct livelock {
    uint32_t offset;  // the last register read (HAL offset)
    uint32_t value;   // what it kept returning
    uint64_t reads;   // unchanged reads in a row
    uint32_t registers;  // distinct registers the loop reads
  };
  // A read of `offset` returned `value`; the livelock once `limit` reads
  // in a row changed nothing.
  std::optional<livelock> read(uint32_t offset, uint32_t value);
  void write() { restart(); }

 private:
  static constexpr uint64_t kProbeEvery = 1024;
  static constexpr size_t kSlots = 16;  // registers one loop may read in turn
  void restart();

  struct slot {
    uint32_t offset = 0;
    uint32_t value = 0;
    bool used = false;
  };
  uint64_t limit_;
  std::function<uint64_t()> probe_;
  std::array<slot, kSlots> slots_{};
  uint32_t used_ = 0;
  uint64_t unchanged_ = 0;
  uint64_t progress_ = 0;
};

}  // namespace pccx::vp
