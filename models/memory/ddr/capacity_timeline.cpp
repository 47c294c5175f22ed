#include "models/memory/ddr/capacity_timeline.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "infra/time/round_ticks.h"

namespace pccx::mem {

capacity_timeline::capacity_timeline(double ticks_per_second)
    : ticks_per_second_(ticks_per_second) {}

// First breakpoint after t.
capacity_timeline::iterator capacity_timeline::upper_bound(uint64_t t) {
  return std::upper_bound(level_.begin(), level_.end(), t,
                          [](uint64_t v, const breakpoint& b) { return v < b.t; });
}

int64_t capacity_timeline::reserved_at(uint64_t t) const {
  auto it = const_cast<capacity_timeline*>(this)->upper_bound(t);  // a search, no change
  return it == level_.begin() ? 0 : std::prev(it)->level;
}

capacity_timeline::interval capacity_timeline::reserve(uint64_t from, uint64_t bytes, int64_t rate,
                                                       int64_t capacity) {
  if (bytes == 0 || rate <= 0 || capacity <= 0)
    throw std::invalid_argument("capacity_timeline::reserve: bytes, rate and capacity must be > 0");
  if (level_.empty() || from >= level_.back().t)
    return append(from, bytes, std::min(rate, capacity));
  constexpr uint64_t kForever = std::numeric_limits<uint64_t>::max();
  pieces_.clear();
  interval out;
  bool started = false;
  double left = static_cast<double>(bytes);

  uint64_t t = from;
  auto next = upper_bound(t);  // first breakpoint after t
  const std::ptrdiff_t start_at = next - level_.begin();
  int64_t level = next == level_.begin() ? 0 : std::prev(next)->level;
  for (;;) {
    const uint64_t seg_end = next == level_.end() ? kForever : next->t;
    const int64_t r = std::min(rate, capacity - level);
    if (r > 0) {
      if (!started) {
        out.start = t;
        started = true;
      }
      const double bytes_per_tick = per_tick(r);
      const double need = left / bytes_per_tick;
      uint64_t dt = round_ticks(need);
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
    level = next->level;
    ++next;
  }
  out.end = t;
  // Every piece starts at or after `from`: the breakpoints before the one
  // holding the level at `from` stay before them, whatever add() inserts
  // or merges, so their searches start there.
  const size_t hint = static_cast<size_t>(std::max<std::ptrdiff_t>(0, start_at - 1));
  for (const piece& p : pieces_) add(p.a, p.b, p.rate, hint);
  return out;
}

capacity_timeline::interval capacity_timeline::append(uint64_t from, uint64_t bytes, int64_t r) {
  // Nothing is promised from `from` on (the last breakpoint's level is 0),
  // so the transfer runs at r from `from`, and the breakpoints the general
  // path would split, add and merge are pushed in their final form.
  uint64_t dt = round_ticks(static_cast<double>(bytes) / per_tick(r));
  if (dt == 0) dt = 1;  // a transfer takes at least one tick
  if (!level_.empty() && level_.back().t == from) level_.pop_back();  // its level 0 becomes r
  // A reservation of the same rate ending at `from` continues through it.
  if (level_.empty() || level_.back().level != r) level_.push_back({from, r});
  level_.push_back({from + dt, 0});
  return {from, from + dt};
}

size_t capacity_timeline::split_at(uint64_t t, size_t from) {
  // A transfer spans few breakpoints: a short walk first, then a search.
  auto it = level_.begin() + static_cast<std::ptrdiff_t>(std::min(from, level_.size()));
  for (int step = 0; step < 4 && it != level_.end() && it->t < t; ++step) ++it;
  if (it != level_.end() && it->t < t)
    it = std::lower_bound(it, level_.end(), t,
                          [](const breakpoint& b, uint64_t v) { return b.t < v; });
  if (it != level_.end() && it->t == t) return static_cast<size_t>(it - level_.begin());
  const int64_t before = it == level_.begin() ? 0 : std::prev(it)->level;
  const auto made = level_.insert(it, breakpoint{t, before});  // may reallocate
  return static_cast<size_t>(made - level_.begin());
}

void capacity_timeline::merge_at(size_t i) {
  const int64_t before = i == 0 ? 0 : level_[i - 1].level;
  if (before == level_[i].level) level_.erase(level_.begin() + static_cast<std::ptrdiff_t>(i));
}

void capacity_timeline::add(uint64_t a, uint64_t b, int64_t rate, size_t from) {
  const size_t first = split_at(a, from);
  const size_t last = split_at(b, first);  // b > a: at or after a's breakpoint
  for (size_t i = first; i < last; ++i) level_[i].level += rate;
  // The later one first, so the earlier index stays valid; either order
  // leaves the same breakpoints (a merge compares with the level before).
  merge_at(last);
  merge_at(first);
}

void capacity_timeline::forget_before(uint64_t t) {
  auto it = upper_bound(t);
  if (it == level_.begin()) return;
  --it;  // the breakpoint that holds the level at t
  const bool drop_it = it->level == 0;
  level_.erase(level_.begin(), drop_it ? std::next(it) : it);
}

}  // namespace pccx::mem
