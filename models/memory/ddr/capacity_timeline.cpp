#include "memory/ddr/capacity_timeline.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace pccx::mem {

capacity_timeline::capacity_timeline(double ticks_per_second)
    : ticks_per_second_(ticks_per_second) {}

int64_t capacity_timeline::reserved_at(uint64_t t) const {
  auto it = level_.upper_bound(t);
  return it == level_.begin() ? 0 : std::prev(it)->second;
}

capacity_timeline::interval capacity_timeline::reserve(uint64_t from, uint64_t bytes, int64_t rate,
                                                       int64_t capacity) {
  if (bytes == 0 || rate <= 0 || capacity <= 0)
    throw std::invalid_argument("capacity_timeline::reserve: bytes, rate and capacity must be > 0");
  constexpr uint64_t kForever = std::numeric_limits<uint64_t>::max();
  pieces_.clear();
  interval out;
  bool started = false;
  double left = static_cast<double>(bytes);

  uint64_t t = from;
  auto next = level_.upper_bound(t);  // first breakpoint after t
  int64_t level = next == level_.begin() ? 0 : std::prev(next)->second;
  for (;;) {
    const uint64_t seg_end = next == level_.end() ? kForever : next->first;
    const int64_t r = std::min(rate, capacity - level);
    if (r > 0) {
      if (!started) {
        out.start = t;
        started = true;
      }
      const double bytes_per_tick = static_cast<double>(r) / ticks_per_second_;
      const double need = left / bytes_per_tick;
      uint64_t dt = static_cast<uint64_t>(std::llround(need));
      if (dt == 0 && pieces_.empty()) dt = 1;  // a transfer takes at least one tick
      if (seg_end == kForever || t + dt <= seg_end) {
        if (dt > 0) pieces_.push_back({t, t + dt, r});
        t += dt;
        break;
      }
      pieces_.push_back({t, seg_end, r});
      left -= bytes_per_tick * static_cast<double>(seg_end - t);
    } else if (next == level_.end()) {
      // Everything ends before forever, so the last level is 0: unreachable.
      throw std::logic_error("capacity_timeline: no capacity left after the last reservation");
    }
    t = seg_end;
    level = next->second;
    ++next;
  }
  out.end = t;
  for (const piece& p : pieces_) add(p.a, p.b, p.rate);
  return out;
}

std::map<uint64_t, int64_t>::iterator capacity_timeline::split_at(uint64_t t) {
  auto it = level_.lower_bound(t);
  if (it != level_.end() && it->first == t) return it;
  const int64_t before = it == level_.begin() ? 0 : std::prev(it)->second;
  return level_.emplace_hint(it, t, before);
}

void capacity_timeline::merge_at(uint64_t t) {
  auto it = level_.find(t);
  if (it == level_.end()) return;
  const int64_t before = it == level_.begin() ? 0 : std::prev(it)->second;
  if (before == it->second) level_.erase(it);
}

void capacity_timeline::add(uint64_t a, uint64_t b, int64_t rate) {
  auto first = split_at(a);
  auto last = split_at(b);
  for (auto it = first; it != last; ++it) it->second += rate;
  merge_at(a);
  merge_at(b);
}

void capacity_timeline::forget_before(uint64_t t) {
  auto it = level_.upper_bound(t);
  if (it == level_.begin()) return;
  --it;  // the breakpoint that holds the level at t
  level_.erase(level_.begin(), it);
  if (it->second == 0) level_.erase(it);
}

}  // namespace pccx::mem
