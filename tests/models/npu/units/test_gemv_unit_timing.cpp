// Timing from the structure: activation load through L2 port 1, cores taking
// rows from the weight FIFOs only when free and the bytes are ready, the
// reduction pipeline, per-word result writes.
#include <gtest/gtest.h>

#include "gemv_bench.h"
#include "gemv_reference.h"
#include "pccx_isa.h"
#include "pccx_npu_regs.h"
#include "uCA_v1_api.h"

using namespace pccx;
using namespace pccx::test;

namespace {
constexpr uint32_t kSrc = 0x100, kDst = 0x2000;
constexpr uint32_t kN = 2048, kK = 2048;
constexpr uint64_t kRecord = kK / 2;  // no scales: 1024 bytes per row
constexpr double kActLoad = 256 + 3;  // 256 words, URAM read latency 3
constexpr double kTail = 6 + 1;       // reduction pipeline + last word write

gemv_bench_options timing(uint64_t fifo_bytes) {
  gemv_bench_options o;
  o.functional = false;
  o.fifo_bytes = fifo_bytes;
  return o;
}

// All weight bytes already in the FIFOs (timing only), one GEMV.
gemv_outcome compute_bound(gemv_bench& b, uint32_t N, uint8_t lanes) {
  gemv_outcome o;
  b.run([&](gemv_driver& d) {
    for (uint32_t n = 0; n < N; ++n)
      b.fifos[n % b.fifos.size()]->push(kRecord, sc_core::SC_ZERO_TIME, nullptr);
    gemv_call c;
    c.N = N, c.K = kK, c.src = kSrc, c.dst = kDst, c.lanes = lanes;
    o = d.execute(c);
  });
  return o;
}
}  // namespace

TEST(GemvTiming, ComputeBoundReaches128MacsPerClock) {
  gemv_bench b(timing(kN / 2 * kRecord));
  const auto o = compute_bound(b, kN, 0);
  ASSERT_EQ(o.err, 0u) << o.detail;
  const double macs = double(kN) * kK;
  // 512 rows per core x 64 clocks.
  EXPECT_DOUBLE_EQ(o.cycles(), kActLoad + 512 * 64 + kTail);
  const double rate_compute = macs / (o.cycles() - kActLoad - kTail);
  const double rate_total = macs / o.cycles();
  EXPECT_GE(rate_compute, 0.99 * 128);
  EXPECT_GE(rate_total, 0.99 * 128) << "whole instruction incl. activation load and pipeline";
  EXPECT_EQ(b.counters.value(PCCX_PERF_GEMV_WEIGHT_STALL), 0u);
  EXPECT_EQ(b.counters.value(PCCX_PERF_GEMV_MACS), uint64_t(kN) * kK);
  EXPECT_EQ(b.l2->statistics(1).words_read, 256u);
  EXPECT_EQ(b.l2->statistics(1).words_written, 256u);
  // Waiting on L2: the activation load, then the last word's write clock.
  EXPECT_EQ(b.counters.value(PCCX_PERF_GEMV_L2_STALL), uint64_t(kActLoad) + 1);
}

// Four activation rows (a GQA group of query heads) on four cores:
// row-parallel deals weight rows to cores, each running all 4 activation
// rows (4 x 64 clocks per row, 64 rows per core); head-parallel broadcasts
// every weight row to all cores, each running its one activation row (64
// clocks per row, 256 rows). Both: 256 x 64 compute clocks.
class GemvFourHeads : public ::testing::TestWithParam<uint8_t> {};
TEST_P(GemvFourHeads, SameTimeRowOrHeadParallel) {
  constexpr uint32_t N = 256;
  constexpr double load = 4 * kK / 8 + 3;  // 1024 words + URAM latency
  gemv_bench b(timing(N * kRecord));
  gemv_outcome o;
  b.run([&](gemv_driver& d) {
    for (uint32_t n = 0; n < N; ++n) b.fifos[n % 2]->push(kRecord, sc_core::SC_ZERO_TIME, nullptr);
    gemv_call c;
    c.M = 4, c.N = N, c.K = kK, c.src = kSrc, c.dst = kDst, c.lanes = GetParam();
    o = d.execute(c);
  });
  ASSERT_EQ(o.err, 0u) << o.detail;
  // Row-parallel: the four cores finish their activation rows 64 clocks
  // apart, so the last word is written alone. Head-parallel: the four rows
  // finish together and their last words queue on the L2 port (+3 clocks).
  const bool head = GetParam() & PCCX_LANES_HEAD_PARALLEL;
  EXPECT_DOUBLE_EQ(o.cycles(), load + N * 64 + kTail + (head ? 3 : 0));
  EXPECT_EQ(b.gemv->statistics().rows, N);
}
INSTANTIATE_TEST_SUITE_P(Partitioning, GemvFourHeads,
                         ::testing::Values(uint8_t{0}, uint8_t{PCCX_LANES_HEAD_PARALLEL}));

// One activation row: head-parallel keeps one core busy, row-parallel four.
TEST(GemvTiming, RowParallelWithOneRowUsesFourCores) {
  constexpr uint32_t N = 256;
  gemv_bench b(timing(N * kRecord));
  const auto o = compute_bound(b, N, 0);
  ASSERT_EQ(o.err, 0u) << o.detail;
  EXPECT_DOUBLE_EQ(o.cycles(), kActLoad + N / 4 * 64 + kTail);
}

TEST(GemvTiming, HeadParallelWithOneRowUsesOneCore) {
  constexpr uint32_t N = 256;
  gemv_bench b(timing(N * kRecord));
  const auto o = compute_bound(b, N, PCCX_LANES_HEAD_PARALLEL);
  ASSERT_EQ(o.err, 0u) << o.detail;
  EXPECT_DOUBLE_EQ(o.cycles(), kActLoad + N * 64 + kTail);
}
TEST(GemvTiming, MemoryBoundFollowsTheFifoRate) {
  // Two FIFOs, each fed at 4 GB/s (1024 B every 256 ns) by a producer that
  // pushes each row record when its last byte has arrived.
  gemv_bench b(timing(64 * 1024));
  const sc_time per_row = ns(kRecord / 4.0);  // 4 GB/s = 4 bytes/ns
  b.producer->body = [&] {
    for (uint32_t i = 0; i < kN / 2; ++i) {
      sc_core::wait(per_row);
      for (auto& f : b.fifos) f->push(kRecord, sc_core::sc_time_stamp(), nullptr);
    }
  };
  gemv_outcome o;
  b.run([&](gemv_driver& d) {
    gemv_call c;
    c.N = kN, c.K = kK, c.src = kSrc, c.dst = kDst;
    o = d.execute(c);
  });
  ASSERT_EQ(o.err, 0u) << o.detail;
  const double bytes = double(kN) * kRecord;
  const double ideal_ns = bytes / 8.0;  // 8 GB/s total
  const double got_ns = (o.retire - o.start).to_seconds() * 1e9;
  EXPECT_NEAR(got_ns / ideal_ns, 1.0, 0.02) << got_ns << " ns vs " << ideal_ns;
  // Cores wait for weights: most of the time is weight stall.
  const double stall = double(b.counters.value(PCCX_PERF_GEMV_WEIGHT_STALL));
  const double expected_stall = o.cycles() - kActLoad - kTail - 512 * 64;
  EXPECT_GT(stall, 0.0);
  EXPECT_NEAR(stall / expected_stall, 1.0, 0.02) << stall << " vs " << expected_stall;
  // The counter is the core-stall sum averaged over the active cores, rounded.
  EXPECT_NEAR(double(b.gemv->statistics().core_stall_cycles) / 4, stall, 0.5);
  RecordProperty("ratio_to_ideal", std::to_string(got_ns / ideal_ns));
}

TEST(GemvTiming, OneLaneIsFourTimesSlowerThanFour) {
  // Both instructions in one simulation, FIFOs refilled before each.
  gemv_bench b(timing(kN / 2 * kRecord));
  gemv_outcome one, four;
  b.run([&](gemv_driver& d) {
    for (uint8_t lanes : {uint8_t{4}, uint8_t{1}}) {
      for (uint32_t n = 0; n < kN; ++n)
        b.fifos[n % 2]->push(kRecord, sc_core::sc_time_stamp(), nullptr);
      gemv_call c;
      c.N = kN, c.K = kK, c.src = kSrc, c.dst = kDst, c.lanes = lanes;
      (lanes == 4 ? four : one) = d.execute(c);
    }
  });
  ASSERT_EQ(one.err, 0u);
  ASSERT_EQ(four.err, 0u);
  EXPECT_DOUBLE_EQ(four.cycles(), kActLoad + 512 * 64 + kTail);
  EXPECT_DOUBLE_EQ(one.cycles(), kActLoad + 2048 * 64 + kTail);
  EXPECT_DOUBLE_EQ((one.cycles() - kActLoad - kTail) / (four.cycles() - kActLoad - kTail), 4.0);
  EXPECT_NEAR(one.cycles() / four.cycles(), 4.0, 0.04);
}

TEST(GemvTiming, FunctionalAndTimingOnlyTakeTheSameTime) {
  const auto p = gemv_problem::random(1, 64, 256, true, 0, 21);
  gemv_outcome f;
  gemv_bench b;  // functional
  b.put(kSrc, p.x);
  b.run([&](gemv_driver& d) {
    for (uint32_t n = 0; n < p.N; ++n) {
      const auto r = p.record(n);
      b.fifos[n % 2]->push(r.size(), sc_core::SC_ZERO_TIME, r.data());
    }
    gemv_call c;
    c.N = p.N, c.K = p.K, c.src = kSrc, c.dst = kDst, c.flags = UCA_FLAG_W_SCALE;
    f = d.execute(c);
  });
  ASSERT_EQ(f.err, 0u);
  // 256 K: 32 words load; 16 rows per core x 8 clocks; record 144 B.
  EXPECT_DOUBLE_EQ(f.cycles(), 32 + 3 + 16 * 8 + kTail);
}

TEST(GemvTiming, FastProducerBacksUpAndStaysComputeBound) {
  // 16 GB/s per FIFO (1024 B per 64 ns) into 8 KiB FIFOs: more than the two
  // cores behind each FIFO consume (12.8 GB/s), so the FIFOs fill and the
  // producer waits for space; the GEMV runs at the compute-bound time.
  gemv_bench b(timing(8 * 1024));
  b.producer->body = [&] {
    for (uint32_t i = 0; i < kN / 2; ++i) {
      sc_core::wait(ns(64));
      for (auto& f : b.fifos) f->push(kRecord, sc_core::sc_time_stamp(), nullptr);
    }
  };
  gemv_outcome o;
  b.run([&](gemv_driver& d) {
    gemv_call c;
    c.N = kN, c.K = kK, c.src = kSrc, c.dst = kDst;
    o = d.execute(c);
  });
  ASSERT_EQ(o.err, 0u) << o.detail;
  const double ideal = kActLoad + 512 * 64 + kTail;
  EXPECT_NEAR(o.cycles() / ideal, 1.0, 0.01) << o.cycles();
  EXPECT_GT(b.fifos[0]->statistics().producer_stall, sc_core::SC_ZERO_TIME);
  EXPECT_LT(b.counters.value(PCCX_PERF_GEMV_WEIGHT_STALL), 0.01 * ideal);
}
