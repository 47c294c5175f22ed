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
