// The capacity timeline on its own: transfers fill what is left, never lift
// the promised total above the capacity, and forgetting the past keeps it small.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "models/memory/ddr/capacity_timeline.h"

namespace pccx::mem {
namespace {

constexpr double kTicksPerSecond = 1e12;  // 1 ps

TEST(DdrTimeline, AloneATransferRunsAtItsRate) {
  capacity_timeline t(kTicksPerSecond);
  const auto iv = t.reserve(1000, 4096, 4'000'000'000, 11'000'000'000);
  EXPECT_EQ(iv.start, 1000u);
  EXPECT_EQ(iv.end, 1000u + 1'024'000u);  // 4096 B at 4 GB/s = 1024 ns
  EXPECT_EQ(t.reserved_at(1000), 4'000'000'000);
  EXPECT_EQ(t.reserved_at(iv.end), 0);
}

TEST(DdrTimeline, ATransferTakesOnlyWhatIsLeft) {
  capacity_timeline t(kTicksPerSecond);
  t.reserve(0, 8000, 8'000'000'000, 10'000'000'000);  // 8 GB/s for 1000 ns
  // Wants 4 GB/s, 2 are left for the first 1000 ns: 2000 B there, the other
  // 2000 B at 4 GB/s in 500 ns.
  const auto iv = t.reserve(0, 4000, 4'000'000'000, 10'000'000'000);
  EXPECT_EQ(iv.start, 0u);
  EXPECT_EQ(iv.end, 1'500'000u);
  EXPECT_EQ(t.reserved_at(0), 10'000'000'000);
  EXPECT_EQ(t.reserved_at(1'200'000), 4'000'000'000);
  // Nothing left: it waits.
  t.reserve(2'000'000, 10000, 10'000'000'000, 10'000'000'000);  // full for 1000 ns
  const auto late = t.reserve(2'000'000, 1000, 1'000'000'000, 10'000'000'000);
  EXPECT_EQ(late.start, 3'000'000u);
  EXPECT_EQ(late.end, 4'000'000u);
}

TEST(DdrTimeline, RandomReservationsNeverExceedCapacity) {
  capacity_timeline t(kTicksPerSecond);
  std::mt19937_64 rng(7);
  const int64_t cap = 11'000'000'000;
  uint64_t now = 0;
  for (int i = 0; i < 20000; ++i) {
    now += rng() % 1'000'000;  // about 8 GB/s offered on average
    const uint64_t from = now + rng() % 1'000'000;
    const uint64_t bytes = 64 + rng() % 8192;
    const int64_t rate = 1'000'000'000 + static_cast<int64_t>(rng() % 3'000'000'000ull);
    const auto iv = t.reserve(from, bytes, rate, cap);
    ASSERT_GE(iv.start, from);
    ASSERT_GT(iv.end, iv.start);
    // At least bytes / rate, since it never goes faster than its rate.
    ASSERT_GE(static_cast<double>(iv.end - iv.start) + 1, bytes / (rate / kTicksPerSecond));
    for (uint64_t probe = from; probe < iv.end; probe += 50'000)
      ASSERT_LE(t.reserved_at(probe), cap);
    t.forget_before(now);
  }
  EXPECT_LT(t.breakpoints(), 200u);
}

TEST(DdrTimeline, TransfersAfterTheLastBreakpointJoinOrFollowIt) {
  capacity_timeline t(kTicksPerSecond);
  const int64_t cap = 10'000'000'000;
  EXPECT_EQ(t.reserve(0, 4000, 4'000'000'000, cap).end, 1'000'000u);
  EXPECT_EQ(t.breakpoints(), 2u);  // 4 GB/s from 0, nothing from 1000 ns
  // Same rate, starting where the last ended: one run.
  const auto joined = t.reserve(1'000'000, 4000, 4'000'000'000, cap);
  EXPECT_EQ(joined.start, 1'000'000u);
  EXPECT_EQ(joined.end, 2'000'000u);
  EXPECT_EQ(t.breakpoints(), 2u);
  // Another rate at the end: a step; after a gap: a new run.
  t.reserve(2'000'000, 1000, 2'000'000'000, cap);
  EXPECT_EQ(t.breakpoints(), 3u);
  t.reserve(3'000'000, 1000, 20'000'000'000, cap);  // capped at the capacity
  EXPECT_EQ(t.breakpoints(), 5u);
  EXPECT_EQ(t.reserved_at(1'999'999), 4'000'000'000);
  EXPECT_EQ(t.reserved_at(2'000'000), 2'000'000'000);
  EXPECT_EQ(t.reserved_at(2'600'000), 0);
  EXPECT_EQ(t.reserved_at(3'000'000), cap);
  EXPECT_EQ(t.reserved_at(3'100'000), 0);  // 1000 B at 10 GB/s: 100 ns
}

// A reservation far in the future puts the last breakpoint there, so every
// transfer before it takes the general path: both timelines must give the
// same transfers and the same steps.
TEST(DdrTimeline, AppendingGivesWhatTheGeneralPathGives) {
  capacity_timeline fast(kTicksPerSecond), general(kTicksPerSecond);
  const int64_t cap = 11'000'000'000;
  const uint64_t far = uint64_t{1} << 50;
  general.reserve(far, 64, 1'000'000'000, cap);
  std::mt19937_64 rng(11);
  uint64_t now = 0, last_end = 0;
  for (int i = 0; i < 20000; ++i) {
    now += rng() % 400'000;
    // At the end of the last transfer (as a port streaming back to back),
    // after it, or inside what is booked; a few rates recur.
    const uint64_t pick = rng() % 3;
    const uint64_t from = pick == 0 ? std::max(now, last_end) : now + rng() % 100'000;
    const uint64_t bytes = 16 + rng() % 2048;
    const int64_t rate =
        rng() % 2 ? 2'000'000'000 : 1'000'000'000 + static_cast<int64_t>(rng() % 12'000'000'000ull);
    const auto a = fast.reserve(from, bytes, rate, cap);
    const auto b = general.reserve(from, bytes, rate, cap);
    ASSERT_EQ(a.start, b.start) << "reservation " << i;
    ASSERT_EQ(a.end, b.end) << "reservation " << i;
    ASSERT_EQ(fast.breakpoints() + 2, general.breakpoints()) << "reservation " << i;
    for (uint64_t probe = from; probe <= a.end; probe += 1 + (a.end - from) / 7)
      ASSERT_EQ(fast.reserved_at(probe), general.reserved_at(probe)) << "reservation " << i;
    last_end = a.end;
    fast.forget_before(now);
    general.forget_before(now);
  }
}

}  // namespace
}  // namespace pccx::mem
