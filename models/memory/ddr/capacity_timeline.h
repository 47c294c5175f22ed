// The DDR's bandwidth over future time: a step function of the aggregate rate
// already promised to transfers. A new transfer fills what is left, up to its
// own rate, so the promised total never exceeds the capacity it was given,
// whatever order decoupled initiators call in.
//
// Time is in kernel ticks (sc_time::value()), rates in whole bytes per second
// so that adding and removing reservations is exact. SystemC-free.
//
// The breakpoints live in a sorted vector: forget_before() keeps only the
// few that lie ahead of the kernel (a handful per busy port), so a binary
// search and a short move beat a tree's node allocations, which dominated
// the DDR model's cost per transaction.
#pragma once

#include <cstddef>
#include <cstdint>
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
  double ticks_per_second() const { return ticks_per_second_; }
  void clear() { level_.clear(); }

 private:
  struct breakpoint {
    uint64_t t;     // from this tick ...
    int64_t level;  // ... this rate is promised, up to the next breakpoint
  };
  using iterator = std::vector<breakpoint>::iterator;

  // reserve() from at or after the last breakpoint, at rate r (> 0): the
  // common case of a transfer that starts when all before it have ended.
  interval append(uint64_t from, uint64_t bytes, int64_t r);
  // `rate` (bytes/s) in bytes per tick.
  double per_tick(int64_t rate) {
    if (rate != last_rate_) {
      last_rate_ = rate;
      last_per_tick_ = static_cast<double>(rate) / ticks_per_second_;
    }
    return last_per_tick_;
  }

  // Adds `rate` over [a, b); no breakpoint before index `from` is at or
  // after a.
  void add(uint64_t a, uint64_t b, int64_t rate, size_t from);
  iterator upper_bound(uint64_t t);
  // Index of the breakpoint at t, made if absent; the search starts at
  // index `from` (no breakpoint before it is at or after t).
  size_t split_at(uint64_t t, size_t from);
  void merge_at(size_t i);  // drops breakpoint i when it changes nothing

  struct piece {
    uint64_t a, b;
    int64_t rate;
  };
  double ticks_per_second_;
  std::vector<breakpoint> level_;  // sorted by t; 0 is promised before the first
  std::vector<piece> pieces_;      // scratch of reserve()
  // per_tick()'s last rate and its answer: a port's transfers mostly ask
  // the same rate, so the division is kept.
  int64_t last_rate_ = 0;
  double last_per_tick_ = 0;
};

}  // namespace pccx::mem
