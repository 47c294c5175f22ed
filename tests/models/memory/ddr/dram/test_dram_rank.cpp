// The DRAM rank against bounds derived by hand from the JEDEC timing of the
// default DDR4-2400 part (tCK = 2000 / 2400 = 0.8333 ns, BL8 = 4 clocks of
// data per 64-byte burst, peak 19.2 GB/s; tRFC 350 ns = 420 nCK, tREFI
// 7.8 us = 9360 nCK, so refresh takes 420 / 9360 = 4.49 % of the time;
// tCCD_S 4, tCCD_L 6, tFAW 30 ns = 36 nCK, tRRD_S 7, tRRD_L 8 nCK).
// Every request is handed over at clock 0, as from a full queue, so the
// figures are the DRAM's own limits.
#include <gtest/gtest.h>

#include <random>

#include "models/memory/ddr/dram/dram_rank.h"

using namespace pccx;

namespace {

constexpr double kPeakGbps = 19.2;
constexpr double kRefreshShare = 420.0 / 9360.0;

struct rank_bench {
  config::ddr_config cfg;
  mem::dram_timing t;
  mem::dram_rank rank;
  explicit rank_bench(config::ddr_config c = {})
      : cfg(c), t(mem::dram_timing::of(c)), rank(t, mem::address_map(c), c.page) {}
  // GB/s of a run whose last data ends at `end` clocks.
  double gbps(uint64_t bytes, int64_t end) const { return bytes / t.ns(end); }
};

config::ddr_config without_bank_group_interleave() {
  config::ddr_config c;
  c.address_map.preset = config::address_map_preset::row_bank_column;
  return c;
}

}  // namespace

TEST(DramRank, TimingRoundsNanosecondsUpToClocks) {
  const mem::dram_timing t = mem::dram_timing::of(config::ddr_config{});
  EXPECT_EQ(t.burst, 4u);
  EXPECT_EQ(t.rcd, 16u);  // 13.32 ns / 0.8333
  EXPECT_EQ(t.ras, 39u);
  EXPECT_EQ(t.rc, 55u);
  EXPECT_EQ(t.rrd_s, 7u);
  EXPECT_EQ(t.rrd_l, 8u);
  EXPECT_EQ(t.faw, 36u);
  EXPECT_EQ(t.wtr_l, 9u);
  EXPECT_EQ(t.rfc, 420u);
  EXPECT_EQ(t.refi, 9360u);
  EXPECT_NEAR(t.peak_bytes_per_s(), 19.2e9, 1e3);
}

// Sequential 64-byte reads, K26 map: consecutive bursts alternate bank
// groups, so they go at tCCD_S = BL/2 = 4 clocks; a new row (every 16 KiB,
// the next bank) is opened while the previous bank streams. The bound is the
// data bus less refresh: 19.2 x (1 - 0.0449) = 18.34 GB/s.
TEST(DramRank, SequentialReadsReachTheDataBusLessRefresh) {
  rank_bench b;
  const uint64_t bytes = 8u << 20;
  int64_t end = 0;
  for (uint64_t a = 0; a < bytes; a += 64) end = std::max(end, b.rank.serve(false, a, 64, 0).data_end);
  const double bound = kPeakGbps * (1 - kRefreshShare);
  EXPECT_LE(b.gbps(bytes, end), bound * 1.001);
  EXPECT_GE(b.gbps(bytes, end), bound * 0.99);
}

// The same stream with no bank-group interleave: every burst goes to the
// group of the one before, tCCD_L = 6 clocks apart, so 4/6 of the peak less
// refresh: 19.2 x 4/6 x 0.9551 = 12.23 GB/s.
TEST(DramRank, WithoutBankGroupInterleaveTccdLLimits) {
  rank_bench b(without_bank_group_interleave());
  const uint64_t bytes = 8u << 20;
  int64_t end = 0;
  for (uint64_t a = 0; a < bytes; a += 64) end = std::max(end, b.rank.serve(false, a, 64, 0).data_end);
  const double bound = kPeakGbps * 4.0 / 6.0 * (1 - kRefreshShare);
  EXPECT_LE(b.gbps(bytes, end), bound * 1.002);  // the run ends inside a refresh interval
  EXPECT_GE(b.gbps(bytes, end), bound * 0.99);
  EXPECT_GT(b.rank.breakdown().bank_group, b.rank.breakdown().data / 3);
}

// One 32 KiB transaction costs the same as 512 of 64 bytes: the block is
// costed in closed form, and gives the same clocks.
TEST(DramRank, ALargeTransactionCostsAsItsBursts) {
  rank_bench one, many;
  const int64_t big = one.rank.serve(false, 0, 32768, 0).data_end;
  int64_t end = 0;
  for (uint64_t a = 0; a < 32768; a += 64) end = std::max(end, many.rank.serve(false, a, 64, 0).data_end);
  EXPECT_NEAR(static_cast<double>(big), static_cast<double>(end), 0.02 * end);
}

// Uniform random 64-byte reads over 4 GiB: almost every read opens a row,
// and at most four activates fit in tFAW = 36 clocks, so at most
// 4 x 64 B per 30 ns = 8.53 GB/s; bank conflicts (tRC) and refresh cost more.
TEST(DramRank, RandomReadsAreLimitedByTfaw) {
  rank_bench b;
  std::mt19937_64 rng(3);
  const uint64_t n = 100000;
  int64_t end = 0;
  for (uint64_t i = 0; i < n; ++i)
    end = std::max(end, b.rank.serve(false, (rng() % (1ull << 26)) * 64, 64, 0).data_end);
  const double gbps = b.gbps(n * 64, end);
  const double tfaw_bound = 4 * 64 / 30.0;  // 8.53 GB/s
  EXPECT_LE(gbps, tfaw_bound * 1.001);
  EXPECT_GE(gbps, tfaw_bound * 0.6);
  EXPECT_LT(gbps, kPeakGbps * (1 - kRefreshShare) / 2);  // far below streaming
  EXPECT_GT(b.rank.breakdown().activate + b.rank.breakdown().row_miss, b.rank.breakdown().data);
  EXPECT_GT(b.rank.commands(end).activates, n * 99 / 100);
}

// Refresh: nothing moves in [k x tREFI, k x tREFI + tRFC), and the rows
// are closed after it.
TEST(DramRank, RefreshIsAWindowInWhichNothingMoves) {
  rank_bench b;
  const int64_t refi = b.t.refi, rfc = b.t.rfc;
  std::vector<std::pair<int64_t, int64_t>> data;
  for (uint64_t a = 0; a < (4u << 20); a += 64) {
    const auto x = b.rank.serve(false, a, 64, 0);
    data.emplace_back(x.data_start, x.data_end);
  }
  ASSERT_GT(data.back().second, 3 * refi);
  for (int64_t k = 1; k <= 3; ++k)
    for (const auto& [s, e] : data) ASSERT_FALSE(s < k * refi + rfc && e > k * refi) << k;
  // The bus is busy right up to the window and right after it (plus the
  // re-opened row's tRCD + CL).
  bool before = false, after = false;
  for (const auto& [s, e] : data) {
    before = before || (e <= refi && e > refi - 8);
    after = after || (s >= refi + rfc && s < refi + rfc + int64_t{b.t.rcd} + b.t.cl + 8);
  }
  EXPECT_TRUE(before);
  EXPECT_TRUE(after);
}

// A request stamped earlier than one already served uses the bus gap
// before it (a decoupled initiator ran ahead), instead of queueing behind.
TEST(DramRank, AnEarlierRequestFillsTheGapBeforeALaterOne) {
  rank_bench b;
  const auto late = b.rank.serve(false, 0, 4096, 10000);
  const auto early = b.rank.serve(false, 16 << 10, 4096, 0);  // another bank
  EXPECT_LT(early.data_end, late.data_start);
}

// An activate stamped before others already placed keeps tRRD to the
// activate just before it, however many later ones there are (the search
// for its neighbours walks a few from the back, then bisects).
TEST(DramRank, AnEarlierActivateKeepsTrrdToItsNeighbourFarBack) {
  for (const int back : {3, 18}) {  // the neighbour's place from the end of 20
    rank_bench b;
    const mem::address_map map{config::ddr_config{}};
    const int64_t to_data = int64_t{b.t.rcd} + b.t.cl;
    // Twenty single bursts in time order, far apart, each opening a row of
    // bank group 0 (after a precharge when its bank had another open): each
    // activate is tRCD + CL before its data.
    std::vector<int64_t> act;
    for (int k = 0; k < 20; ++k) {
      const uint64_t addr = uint64_t(k) << 14;
      ASSERT_EQ(map.locate(addr).bank_group, 0u);
      const int64_t at = 1000 + 400 * k;  // all before the first refresh
      const auto a = b.rank.serve(false, addr, 64, at);
      ASSERT_EQ(a.row_misses, 1u);
      ASSERT_LE(a.data_start - to_data - at, int64_t{b.t.rp}) << k;
      act.push_back(a.data_start - to_data);
    }
    // One burst of bank group 1 asked for a clock after the chosen one's
    // activate: it waits for tRRD_S after it.
    const uint64_t addr = (uint64_t{20} << 14) + 64;
    ASSERT_EQ(map.locate(addr).bank_group, 1u);
    const int64_t neighbour = act[static_cast<size_t>(20 - back)];
    const auto a = b.rank.serve(false, addr, 64, neighbour + 1);
    EXPECT_EQ(a.data_start, neighbour + int64_t{b.t.rrd_s} + to_data) << back;
  }
}

// Closed page: every access opens its row again.
TEST(DramRank, ClosedPagePolicyOpensARowPerAccess) {
  config::ddr_config c;
  c.page = config::page_policy::closed;
  rank_bench b(c);
  uint32_t hits = 0, misses = 0;
  for (uint64_t a = 0; a < 64 * 1024; a += 4096) {
    const auto x = b.rank.serve(false, a, 4096, 0);
    hits += x.row_hits;
    misses += x.row_misses;
  }
  EXPECT_EQ(hits, 0u);
  EXPECT_EQ(misses, 32u);  // 16 accesses x 2 bank groups
  rank_bench open;
  hits = misses = 0;
  for (uint64_t a = 0; a < 64 * 1024; a += 4096) {
    const auto x = open.rank.serve(false, a, 4096, 0);
    hits += x.row_hits;
    misses += x.row_misses;
  }
  EXPECT_EQ(misses, 8u);  // a row per bank per group: 4 banks x 2 groups
  EXPECT_EQ(hits, 24u);
}

// A transaction's bursts are counted by a shift (the configuration allows
// only power-of-two bursts): the same as dividing, for every burst size.
TEST(DramRank, BurstsAreCountedWhateverTheBurstSize) {
  config::ddr_config narrow, wide;
  narrow.bus_bits = 32;  // 32-byte bursts
  wide.bus_bits = 128;
  wide.burst_length = 16;  // 256-byte bursts
  for (const config::ddr_config& c : {config::ddr_config{}, narrow, wide}) {
    rank_bench b(c);
    const uint64_t burst = c.burst_bytes();
    ASSERT_EQ(b.t.burst_bytes, burst);
    std::mt19937_64 rng(3);
    for (int i = 0; i < 10000; ++i) {
      const uint64_t offset = rng() % (uint64_t{1} << 32);
      ASSERT_EQ(b.rank.burst_of(offset), offset / burst) << burst << " " << offset;
    }
  }
}
