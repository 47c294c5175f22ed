// The DDR's bandwidth over future time: a step function of the aggregate rate
// already promised to transfers. A new transfer fills what is left, up to its
// own rate, so the promised total never exceeds the capacity it was given,
// whatever order decoupled initiators call in.
//
// Time is in kernel ticks (sc_time::value()), rates in whole bytes per second
// so that adding and removing reservations is exact. SystemC-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace pccx::mem {

class capacity_timeline {
 public:
  explicit capacity_timeline(double ticks_per_second);

  struct interval {
    uint64_t start = 0;  // first tick with data moving
    uint64_t end = 0;    // tick after the last byte
  };

  // Moves `bytes` (> 0) starting no earlier than `from`, at up to `rate`
  // bytes/s, never lifting the promised total above `capacity` (> 0).
  // Where less than `rate` is left it goes slower, where nothing is left it
  // waits. Returns when the transfer starts and ends.
  interval reserve(uint64_t from, uint64_t bytes, int64_t rate, int64_t capacity);

  // Drops the history before `t` (no transfer can start earlier any more).
  void forget_before(uint64_t t);

  int64_t reserved_at(uint64_t t) const;
  size_t breakpoints() const { return level_.size(); }
  void clear() { level_.clear(); }

 private:
  void add(uint64_t a, uint64_t b, int64_t rate);
  std::map<uint64_t, int64_t>::iterator split_at(uint64_t t);
  void merge_at(uint64_t t);

  struct piece {
    uint64_t a, b;
    int64_t rate;
  };
  double ticks_per_second_;
  std::map<uint64_t, int64_t> level_;  // rate promised on [key, next key); 0 before the first
  std::vector<piece> pieces_;          // scratch of reserve()
};

}  // namespace pccx::mem
