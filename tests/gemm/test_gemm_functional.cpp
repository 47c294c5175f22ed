// Results: bit-exact against gemm_reference.h for one tile, odd sizes,
// w_scale, accm, K-split drain windows; errors.
#include <gtest/gtest.h>

#include "gemm_bench.h"
#include "gemm_reference.h"
#include "pccx_npu_regs.h"
#include "uCA_v1_api.h"

using namespace pccx;
using namespace pccx::test;

namespace {
constexpr uint32_t kSrc = 0x100, kDst = 0x4000;

// Loads the problem, pushes both FIFO streams and runs one GEMM.
gemm_outcome run_problem(gemm_bench& b, const gemm_problem& p, uint8_t flags,
                         std::vector<uint16_t>& out) {
  b.put(kSrc, p.x);
  if (flags & UCA_FLAG_ACCM) b.put(kDst, p.old);
  gemm_outcome o;
  b.run([&](gemm_driver& d) {
    for (unsigned f = 0; f < 2; ++f) {
      const auto s = p.stream(f);
      b.fifos[f]->push(s.size(), sc_core::sc_time_stamp(), s.data());
    }
    gemm_call c;
    c.M = p.M, c.N = p.N, c.K = p.K, c.src = kSrc, c.dst = kDst, c.flags = flags;
    o = d.execute(c);
  });
  out = b.get(kDst, p.M * p.N);
  return o;
}

gemm_bench_options with_limit(uint32_t limit) {
  gemm_bench_options o;
  o.gemm.drain_limit = limit;
  return o;
}

void expect_same(const std::vector<uint16_t>& got, const std::vector<uint16_t>& want) {
  ASSERT_EQ(got.size(), want.size());
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i] && ++bad <= 10) ADD_FAILURE() << "element " << i;
  EXPECT_EQ(bad, 0u);
}
}  // namespace

TEST(GemmFunctional, OneTile4x64x32) {
  gemm_bench b;
  const auto p = gemm_problem::random(4, 64, 32, false, 1);
  std::vector<uint16_t> out;
  const auto o = run_problem(b, p, 0, out);
  ASSERT_EQ(o.err, 0u) << o.detail;
  expect_same(out, p.expected(false));
  EXPECT_EQ(b.counters.value(PCCX_PERF_MACS), 4u * 64 * 32);
  EXPECT_EQ(b.counters.value(PCCX_PERF_GEMM_MACS), 4u * 64 * 32);
  EXPECT_EQ(b.counters.value(PCCX_PERF_GEMM_WEIGHT_STALL), 0u);
  EXPECT_EQ(b.gemm->statistics().tiles, 1u);
  EXPECT_EQ(b.gemm->statistics().weight_bytes, 1024u);
}

TEST(GemmFunctional, OddSizes3x70x40) {
  gemm_bench b;
  const auto p = gemm_problem::random(3, 70, 40, false, 2);
  std::vector<uint16_t> out;
  ASSERT_EQ(run_problem(b, p, 0, out).err, 0u);
  expect_same(out, p.expected(false));
  EXPECT_EQ(b.gemm->statistics().tiles, 4u);  // 2 N-tiles x 2 K-tiles
  EXPECT_EQ(b.gemm->stream_bytes_per_fifo(70, 40, false), 4u * 512);
  // Tail of the last result word (210 elements: word 26 holds 208..215) is zero.
  const auto tail = b.get(kDst + 26, 8);
  for (int i = 2; i < 8; ++i) EXPECT_EQ(tail[i], 0u);
}

TEST(GemmFunctional, WeightScale) {
  gemm_bench b;
  const auto p = gemm_problem::random(3, 70, 40, true, 3);
  std::vector<uint16_t> out;
  ASSERT_EQ(run_problem(b, p, UCA_FLAG_W_SCALE, out).err, 0u);
  expect_same(out, p.expected(false));
  EXPECT_EQ(b.gemm->stream_bytes_per_fifo(70, 40, true), 2u * 64 + 4u * 512);
}

TEST(GemmFunctional, Accumulate) {
  gemm_bench b;
  const auto p = gemm_problem::random(5, 64, 96, true, 4);
  std::vector<uint16_t> out;
  ASSERT_EQ(run_problem(b, p, UCA_FLAG_W_SCALE | UCA_FLAG_ACCM, out).err, 0u);
  expect_same(out, p.expected(true));
  EXPECT_EQ(b.l2->statistics(1).words_read, 5u * 96 / 8 + 5u * 64 / 8);
}

TEST(GemmFunctional, FindemaxIsIgnored) {
  gemm_bench b;
  const auto p = gemm_problem::random(2, 64, 32, false, 5);
  std::vector<uint16_t> out;
  ASSERT_EQ(run_problem(b, p, UCA_FLAG_FINDEMAX, out).err, 0u);
  expect_same(out, p.expected(false));
}

TEST(GemmFunctional, KSplit2048WithLimit1024) {
  gemm_bench b;  // drain_limit 1024 by default
  const auto p = gemm_problem::random(2, 64, 2048, true, 6);
  std::vector<uint16_t> out;
  ASSERT_EQ(run_problem(b, p, UCA_FLAG_W_SCALE, out).err, 0u);
  expect_same(out, p.expected(false, 1024));
  EXPECT_EQ(b.gemm->statistics().drain_windows, 1u);  // one N-tile, one extra window
}

TEST(GemmFunctional, KSplitSmallLimit) {
  gemm_bench b(with_limit(64));
  const auto p = gemm_problem::random(3, 70, 200, true, 7);  // windows 64,64,64,8
  std::vector<uint16_t> out;
  ASSERT_EQ(run_problem(b, p, UCA_FLAG_W_SCALE, out).err, 0u);
  expect_same(out, p.expected(false, 64));
  EXPECT_EQ(b.gemm->statistics().drain_windows, 2u * 3);
}

TEST(GemmFunctional, SizeMismatchAndZeroAndLanes) {
  gemm_bench b;
  gemm_outcome bad_size, zero, lanes;
  b.run([&](gemm_driver& d) {
    gemm_call c;
    c.M = 2, c.N = 64, c.K = 32, c.src = kSrc, c.dst = kDst;
    c.size = {32, 3, 1};
    bad_size = d.execute(c);
    c.size = {};
    c.K = 0;
    zero = d.execute(c);
    c.K = 32, c.lanes = 2;
    lanes = d.execute(c);
  });
  EXPECT_EQ(bad_size.err, uint32_t{PCCX_ERR_UNIT_FAULT});
  EXPECT_NE(bad_size.detail.find("X*Y*Z = 96"), std::string::npos) << bad_size.detail;
  EXPECT_EQ(zero.err, uint32_t{PCCX_ERR_ZERO_LENGTH});
  EXPECT_EQ(lanes.err, uint32_t{PCCX_ERR_INVALID_LANES});
}
