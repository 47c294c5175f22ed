#include "models/memory/ddr/dram/dram_rank.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace pccx::mem {

namespace {

// At most this many bursts are costed as one piece, so a piece always fits
// between two refresh windows.
constexpr uint64_t kMaxBurstsPerPiece = 256;

}  // namespace

dram_rank::dram_rank(const dram_timing& timing, const address_map& map, config::page_policy policy)
    : t_(timing),
      refi_(static_cast<int64_t>(timing.refi)),
      map_(map),
      policy_(policy),
      groups_count_(1u << map.bank_group_bits().size()),
      banks_per_group_(1u << map.bank_bits().size()),
      banks_(static_cast<size_t>(groups_count_) * banks_per_group_) {
  if (groups_count_ > kMaxGroups) throw std::invalid_argument("DRAM: more than 8 bank groups");
  const uint64_t burst = t_.burst_bytes;
  if (burst == 0) throw std::invalid_argument("DRAM: a burst of 0 bytes");
  if ((burst & (burst - 1)) != 0)
    throw std::invalid_argument("DRAM: a burst of " + std::to_string(burst) +
                                " bytes is not a power of two");
  while ((uint64_t{1} << burst_shift_) < burst) ++burst_shift_;
  block_bursts_ = std::max<uint64_t>(1, map_.block_bytes() / burst);
  for (uint32_t bit : map_.bank_group_bits())
    group_period_ = std::max<uint64_t>(group_period_, (uint64_t{2} << bit) / burst);
  group_period_ = std::min(group_period_, block_bursts_);
  const uint64_t piece = kMaxBurstsPerPiece * std::max(t_.burst, t_.ccd_l);
  if (t_.refi <= t_.rfc + piece)
    throw std::invalid_argument("DRAM: tREFI leaves no room between refresh windows");
}

int64_t dram_rank::refresh_window_end(int64_t clock) const {
  if (clock < refi_) return clock;
  const int64_t start = period_start(clock);
  return clock < start + static_cast<int64_t>(t_.rfc) ? start + t_.rfc : clock;
}

int64_t dram_rank::first_refresh_end_after(int64_t clock) const {
  return period_start(std::max<int64_t>(clock, 0)) + refi_ + t_.rfc;
}

bool dram_rank::refreshed_between(int64_t a, int64_t b) const {
  // A window starting in (a, b] closed every row in between: b's period
  // began after a.
  if (b <= a) return false;
  return std::max<int64_t>(a, 0) < period_start(std::max<int64_t>(b, 0));
}

int64_t dram_rank::clearance(const interval& a, const interval& b) const {
  if (a.write == b.write) {
    const int64_t ccd = a.last_group == b.first_group ? t_.ccd_l : t_.ccd_s;
    return std::max<int64_t>(0, ccd - t_.burst);
  }
  if (!a.write) return 2;  // read data, then write data
  return int64_t{a.last_group == b.first_group ? t_.wtr_l : t_.wtr_s} + t_.cl;
}

dram_rank::bus_iterator dram_rank::first_ending_after(int64_t clock) {
  // In time order (the common case) nothing booked ends after the clock.
  if (bus_.empty() || bus_.back().end <= clock) return bus_.end();
  return std::upper_bound(bus_.begin(), bus_.end(), clock,
                          [](int64_t t, const interval& iv) { return t < iv.end; });
}

dram_rank::slot dram_rank::free_slot(int64_t from, const interval& data) {
  const auto refi = static_cast<int64_t>(t_.refi);
  const int64_t span = data.end - data.start;
  int64_t c = from;
  // The first reservation ending after `from`; c only grows from there, so
  // the loop walks on from it, and it is the first ending after c when c
  // is returned.
  auto it = first_ending_after(from);
  for (int guard = 0;; ++guard) {
    c = refresh_window_end(c);
    while (it != bus_.end() && it->end <= c) ++it;
    if (it != bus_.begin()) {
      const interval& before = *std::prev(it);
      const int64_t need = before.end + clearance(before, data);
      if (c < need) {
        c = need;
        continue;
      }
    }
    // The next refresh window must not start inside [c, c + span).
    const int64_t next_refresh = period_start(c) + refi;
    if (c + span > next_refresh) {
      c = next_refresh + t_.rfc;
      continue;
    }
    if (it == bus_.end() || c + span + clearance(data, *it) <= it->start) return {c, it};
    c = it->end;
    if (guard > 1 << 20) {
      c = std::max(c, bus_.back().end + int64_t{t_.rfc});
      return {c, first_ending_after(c)};
    }
  }
}

int64_t dram_rank::bus_end_before(int64_t clock, const interval* before) const {
  // The latest end of a reservation (or refresh window) at or before clock.
  int64_t end = before ? before->end : kNever;
  const auto refi = static_cast<int64_t>(t_.refi);
  if (clock >= refi) end = std::max(end, std::min(clock, period_start(clock) + t_.rfc));
  return end;
}

void dram_rank::reserve_bus(const interval& iv, bus_iterator after) {
  // The first reservation ending at or after iv.start: `after` (the first
  // ending after it), or the one before it when that ends exactly there.
  auto it = after;
  if (it != bus_.begin() && std::prev(it)->end == iv.start) --it;
  // Merge with a touching neighbour of the same direction so the list stays
  // short (the slot search keeps data of the other direction apart).
  if (it != bus_.end() && it->write == iv.write && it->start <= iv.end && iv.start <= it->end) {
    if (iv.start < it->start) it->first_group = iv.first_group;
    it->start = std::min(it->start, iv.start);
    if (iv.end >= it->end) it->last_group = iv.last_group;
    it->end = std::max(it->end, iv.end);
    auto next = it + 1;
    while (next != bus_.end() && next->write == it->write && next->start <= it->end) {
      if (next->end >= it->end) it->last_group = next->last_group;
      it->end = std::max(it->end, next->end);
      next = bus_.erase(next);
    }
    return;
  }
  bus_.insert(it, iv);
}

void dram_rank::forget_before(int64_t clock) {
  auto it = std::lower_bound(bus_.begin(), bus_.end(), clock,
                             [](const interval& iv, int64_t t) { return iv.end < t; });
  bus_.erase(bus_.begin(), it);
  // Activates older than a tFAW window before the clock constrain nothing.
  const int64_t keep = clock - 2 * static_cast<int64_t>(t_.faw);
  auto a = std::lower_bound(acts_.begin(), acts_.end(), keep,
                            [](const activate_record& r, int64_t c) { return r.clock < c; });
  acts_.erase(acts_.begin(), a);
}

void dram_rank::note_all_closed(int64_t clock) {
  if (open_rows_ == 0) return;
  open_rows_ = 0;
  closed_since_ = clock;
}

int64_t dram_rank::activate_after_last(int64_t from, uint32_t group) const {
  const int64_t rrd_max = std::max(t_.rrd_s, t_.rrd_l);
  const size_t n = acts_.size();
  int64_t t = n ? std::max(from, acts_.back().clock) : from;
  for (size_t i = n; i-- > 0 && acts_[i].clock > t - rrd_max;)
    t = std::max(t, acts_[i].clock + (acts_[i].group == group ? t_.rrd_l : t_.rrd_s));
  if (n >= 4) t = std::max(t, acts_[n - 4].clock + int64_t{t_.faw});
  return t;
}

int64_t dram_rank::activate_slot(int64_t from, uint32_t group) const {
  const int64_t rrd_max = std::max(t_.rrd_s, t_.rrd_l), faw = t_.faw;
  const int64_t reach = std::max(rrd_max, faw);  // beyond it an activate constrains nothing
  // In time order (the common case) only the last activates matter.
  if (acts_.empty() || from >= acts_.back().clock + reach) return from;
  if (from > acts_.back().clock) return activate_after_last(from, group);
  // Out of order: the activates on both sides of t. They are at least
  // tRRD_S apart, so two on each side can be within tRRD, four within tFAW.
  int64_t t = from;
  // The first activate at or after t. t is nearly always among the last
  // few (a decoupled channel is at most a quantum behind the latest), where
  // a short walk from the back beats a binary search.
  auto near = acts_.end();
  for (int steps = 0; near != acts_.begin() && std::prev(near)->clock >= t; --near)
    if (++steps == 8) {
      near = std::lower_bound(acts_.begin(), near, t,
                              [](const activate_record& r, int64_t c) { return r.clock < c; });
      break;
    }
  // Activates are sparse: with none within reach on either side, t is free.
  if ((near == acts_.begin() || std::prev(near)->clock <= t - reach) &&
      (near == acts_.end() || near->clock >= t + reach))
    return t;
  // A gap found in a few steps, or in time order after the last activate
  // (the walk through a dense run of later activates would cost more than
  // the gap is worth). Each step looks at up to four activates on either
  // side of t; t only moves forward, so the first at or after it does too.
  auto p = near;
  for (int guard = 0; guard < 6; ++guard) {
    while (p != acts_.end() && p->clock < t) ++p;
    const auto first = p - std::min<std::ptrdiff_t>(4, p - acts_.begin());
    const auto last = p + std::min<std::ptrdiff_t>(4, acts_.end() - p);
    // tRRD: the earliest activate of those closer than its spacing moves t
    // past it. Only those within rrd_max of t can be, so the scan starts
    // at the first of them.
    auto it = p;
    while (it != first && std::prev(it)->clock > t - rrd_max) --it;
    bool moved = false;
    for (; it != last && it->clock < t + rrd_max; ++it) {
      const int64_t need = it->group == group ? t_.rrd_l : t_.rrd_s;
      if (it->clock > t - need && it->clock < t + need) {
        t = it->clock + need;
        moved = true;
        break;
      }
    }
    if (moved) continue;
    // tFAW: with t among them, no five activates may fall within faw
    // clocks. Position k of the merged run: the activates before p, t at
    // `at`, then those from p.
    const auto at = static_cast<size_t>(p - first);
    const auto count = static_cast<size_t>(last - first) + 1;
    const auto clock_at = [&](size_t k) {
      return k < at ? first[static_cast<std::ptrdiff_t>(k)].clock
                    : k == at ? t : first[static_cast<std::ptrdiff_t>(k) - 1].clock;
    };
    for (size_t j = at >= 4 ? at - 4 : 0; j <= at && j + 4 < count; ++j) {
      if (clock_at(j + 4) - clock_at(j) < faw) {
        // Move past the earliest other activate of the crowded window.
        t = clock_at(j == at ? j + 1 : j) + faw;
        moved = true;
        break;
      }
    }
    if (!moved) return t;
  }
  return activate_after_last(t, group);
}

int64_t dram_rank::activate(uint32_t group, bank_state& k, int64_t at, int64_t& held) {
  const int64_t bank_ok = refresh_window_end(std::max(at, k.act_ready));
  int64_t act = activate_slot(bank_ok, group);
  // An activate pushed into a refresh window waits for its end.
  while (refresh_window_end(act) != act) act = activate_slot(refresh_window_end(act), group);
  held += act - bank_ok;
  if (acts_.empty() || acts_.back().clock <= act) {
    acts_.push_back({act, group});  // in time order, the common case
  } else {
    // After the activates at or before it: a few from the back, as above.
    auto pos = acts_.end();
    while (pos != acts_.begin() && std::prev(pos)->clock > act) --pos;
    acts_.insert(pos, activate_record{act, group});
  }
  if (open_rows_ == 0) precharged_ += std::max<int64_t>(0, act - closed_since_);
  ++open_rows_;
  ++commands_.activates;
  return act;
}

dram_rank::access dram_rank::serve_block(bool write, uint32_t bank, uint32_t row,
                                         const group_counts& n, uint32_t first_group,
                                         uint32_t last_group, int64_t earliest) {
  const int64_t lat = write ? t_.cwl : t_.cl;
  const int64_t interval_clocks = std::max(t_.burst, t_.ccd_s);
  access a;
  uint32_t total = 0;
  int64_t stream = 0;  // clocks from the first burst's data to the end of the last
  for (uint32_t g = 0; g < groups_count_; ++g) {
    total += n[g];
    if (n[g]) stream = std::max<int64_t>(stream, int64_t{n[g] - 1} * t_.ccd_l + t_.burst);
  }
  stream = std::max<int64_t>(stream, int64_t{total} * interval_clocks);

  // A refresh since this rank last moved data closed every row.
  if (refreshed_between(last_data_end_, earliest)) note_all_closed(first_refresh_end_after(last_data_end_));

  // Open the rows, in the order the block's bursts reach the groups.
  int64_t first_ready = kNever, last_ready = kNever, held = 0;
  bool missed = false;
  for (uint32_t i = 0; i < groups_count_; ++i) {
    const uint32_t g = (first_group + i) & (groups_count_ - 1);  // a power of two
    if (!n[g]) continue;
    bank_state& k = banks_[static_cast<size_t>(g) * banks_per_group_ + bank];
    const bool closed_by_refresh = refreshed_between(k.last_use, earliest);
    int64_t ready;
    if (k.open_row == row && !closed_by_refresh) {
      ++a.row_hits;
      ready = std::max(k.col_ready, earliest);
    } else {
      ++a.row_misses;
      missed = true;
      int64_t at = earliest;
      if (k.open_row >= 0 && !closed_by_refresh) {
        const int64_t pre = refresh_window_end(std::max(at, k.pre_ready));
        ++commands_.precharges;
        if (open_rows_ > 0) --open_rows_;
        if (open_rows_ == 0) closed_since_ = pre;
        k.act_ready = std::max(k.act_ready, pre + t_.rp);
      }
      const int64_t act = activate(g, k, at, held);
      k.open_row = row;
      k.col_ready = act + t_.rcd;
      k.pre_ready = act + t_.ras;
      k.act_ready = act + t_.rc;
      ready = k.col_ready;
    }
    first_ready = first_ready == kNever ? ready : std::min(first_ready, ready);
    last_ready = std::max(last_ready, ready);
  }

  // The column stream: its first command waits for the rows, and its data
  // needs a free stretch of the bus that keeps the column spacing and the
  // turnaround to the data on both sides.
  const int64_t rows = std::max(first_ready, last_ready - interval_clocks);
  const int64_t c_rows = std::max(earliest, rows);
  const interval shape{0, stream, write, first_group, last_group};
  const slot found = free_slot(c_rows + lat, shape);
  const int64_t data_start = found.start;
  const int64_t c0 = data_start - lat;

  // Where the bus's time went: an idle stretch of the bus before this data,
  // while the request was waiting (after its own latency), goes to the
  // constraint that set the start; the stream beyond BL/2 per burst to the
  // column spacing.
  // One search served the slot, the idle-time attribution and the
  // reservation below.
  const bus_iterator after = found.after;
  const interval* before = after == bus_.begin() ? nullptr : &*std::prev(after);
  // Each idle clock is attributed once: a request placed into a gap before
  // one already served does not count that gap again.
  const int64_t idle_from =
      std::max({earliest + lat, bus_end_before(data_start, before), attributed_until_});
  const int64_t gap = data_start - idle_from;
  attributed_until_ = std::max(attributed_until_, data_start + stream);
  if (gap > 0) {
    const int64_t by_rows = rows + lat;
    const int64_t by_before = before ? before->end + clearance(*before, shape) : kNever;
    if (by_before >= by_rows && by_before > idle_from) {
      (before->write != write ? breakdown_.turnaround : breakdown_.bank_group) +=
          std::min(gap, by_before - idle_from);
    } else if (missed && by_rows > idle_from) {
      const int64_t act_part = std::min(gap, held);
      breakdown_.activate += act_part;
      breakdown_.row_miss += std::min(gap - act_part, by_rows - idle_from);
    }
  }
  breakdown_.data += uint64_t{total} * t_.burst;
  breakdown_.bank_group += static_cast<uint64_t>(stream - int64_t{total} * t_.burst);

  a.data_start = data_start;
  a.data_end = data_start + stream;
  reserve_bus(interval{a.data_start, a.data_end, write, first_group, last_group}, after);
  const int64_t last_col = c0 + stream - t_.burst;
  for (uint32_t g = 0; g < groups_count_; ++g) {
    if (!n[g]) continue;
    bank_state& k = banks_[static_cast<size_t>(g) * banks_per_group_ + bank];
    k.pre_ready = std::max(k.pre_ready, write ? a.data_end + t_.wr : last_col + t_.rtp);
    k.last_use = a.data_end;
    if (policy_ == config::page_policy::closed) {
      ++commands_.precharges;
      k.open_row = -1;
      k.act_ready = std::max(k.act_ready, k.pre_ready + t_.rp);
      if (open_rows_ > 0 && --open_rows_ == 0) closed_since_ = k.pre_ready;
    }
  }
  last_data_end_ = std::max(last_data_end_, a.data_end);
  (write ? commands_.write_bursts : commands_.read_bursts) += total;
  return a;
}

dram_rank::access dram_rank::serve(bool write, uint64_t offset, uint64_t bytes, int64_t earliest) {
  const uint64_t burst = t_.burst_bytes;
  const uint64_t block_bursts = block_bursts_, period = group_period_;
  uint64_t b = burst_of(offset);
  const uint64_t end = burst_of(offset + bytes + burst - 1);
  if (end == b + 1) {
    // One burst (a small read, such as a weight row's scales): one block
    // in one bank group, without the splitting below.
    const dram_coordinates at = map_.locate(b * burst);
    group_counts n{};
    n[at.bank_group] = 1;
    return serve_block(write, at.bank, at.row, n, at.bank_group, at.bank_group, earliest);
  }
  access total;
  bool first = true;
  while (b < end) {
    const uint64_t block_end = std::min({end, (b / block_bursts + 1) * block_bursts,
                                         b + kMaxBurstsPerPiece});
    // Bursts per bank group: whole periods of the group bits split evenly,
    // the rest one by one (a period is at most a few bursts).
    group_counts n{};
    uint64_t x = b;
    while (x < block_end && x % period != 0) ++n[map_.bank_group_of(x * burst)], ++x;
    const uint64_t whole = (block_end - x) / period;
    if (whole > 0) {
      for (uint64_t i = 0; i < period; ++i) n[map_.bank_group_of((x + i) * burst)] += whole;
      x += whole * period;
    }
    for (; x < block_end; ++x) ++n[map_.bank_group_of(x * burst)];
    const dram_coordinates at = map_.locate(b * burst);
    const uint32_t last = map_.bank_group_of((block_end - 1) * burst);
    const access a = serve_block(write, at.bank, at.row, n, at.bank_group, last, earliest);
    total.row_hits += a.row_hits;
    total.row_misses += a.row_misses;
    total.data_start = first ? a.data_start : std::min(total.data_start, a.data_start);
    total.data_end = first ? a.data_end : std::max(total.data_end, a.data_end);
    first = false;
    b = block_end;
  }
  return total;
}

bool dram_rank::row_open(uint64_t offset, int64_t clock) const {
  const dram_coordinates at = map_.locate(offset);
  const bank_state& k = banks_[static_cast<size_t>(at.bank_group) * banks_per_group_ + at.bank];
  return k.open_row == at.row && !refreshed_between(k.last_use, clock);
}

dram_commands dram_rank::commands(int64_t until) const {
  dram_commands c = commands_;
  c.refreshes = until > 0 ? static_cast<uint64_t>(until / static_cast<int64_t>(t_.refi)) : 0;
  return c;
}

int64_t dram_rank::precharged_clocks(int64_t until) const {
  int64_t p = precharged_;
  if (open_rows_ == 0) {
    p += std::max<int64_t>(0, until - closed_since_);
  } else if (refreshed_between(last_data_end_, until)) {
    p += std::max<int64_t>(0, until - first_refresh_end_after(last_data_end_));
  }
  return p;
}

}  // namespace pccx::mem
