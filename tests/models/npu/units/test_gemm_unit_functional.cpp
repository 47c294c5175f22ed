// Results: bit-exact against gemm_reference.h for one tile, odd sizes,
// w_scale, accm, K-split drain windows, K not a multiple of 8, N-groups of
// every shape (one group, group then single N-tiles, single N-tiles);
// errors.
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
  const uint32_t group = gemm_problem::group(p.M, p.N, b.opt.gemm.section.acc_buffer_entries);
  EXPECT_EQ(b.gemm->group_ntiles(p.M, p.N), group);
  b.run([&](gemm_driver& d) {
    for (unsigned f = 0; f < 2; ++f) {
      const auto s = p.stream(f);
      EXPECT_EQ(s.size(), npu::gemm_stream_bytes_of_fifo(p.N, p.K, p.w_scale, f));
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
  o.gemm.section.drain_limit = limit;
  return o;
}

gemm_bench_options with_acc(uint32_t entries) {
  gemm_bench_options o;
  o.gemm.section.acc_buffer_entries = entries;
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
  // 35 columns per FIFO, each pad16(20) = 32 bytes.
  EXPECT_EQ(npu::gemm_stream_bytes_of_fifo(70, 40, false, 0), 35u * 32);
  EXPECT_EQ(b.gemm->statistics().weight_bytes, 2u * 35 * 32);
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
  // Per column a 16-byte scale beat and pad16(2 + 20) = 32 bytes.
  EXPECT_EQ(npu::gemm_stream_bytes_of_fifo(70, 40, true, 1), 35u * (16 + 32));
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

TEST(GemmFunctional, KNotAMultipleOf8) {
  // (3, 70, 37): 2 N-tiles in one group (K-tile outer), slices k 0..31 and
  // 32..36. Row m holds elements 37m..37m+36 (8 per word):
  //   slice 0: rows 0, 1, 2 = elements 0..31, 37..68, 74..105 = words 0..3,
  //            4..8, 9..13: 14 words, one run;
  //   slice 1: elements 32..36, 69..73, 106..110 = words 4, 8..9, 13: 4 words
  //            (all four were read by slice 0 too: the buffer holds INT8
  //            elements, not words).
  // Slice 0 is in at 14 + 3 = 17, slice 1 at 18 + 3 = 21 clocks.
  // Tiles (N-tile, K-tile) in order (0,0) (1,0) (0,1) (1,1), 3 rows each:
  //   (0,0) loaded at 32, runs 32..35;  (1,0) loaded at 64, runs 64..67;
  //   (0,1) loads when (0,0) is done: 64..96, runs 96 + 3 + 64 latency = 163;
  //   (1,1) loaded at 128, runs 163 + 3 + 64 = 230.
  // Result words (210 elements, 27 words): 5 hold a column >= 64 (words 8,
  // 16, 17, 25, 26) and follow N-tile 1; the other 22 are written 163..185,
  // those 5 at 230..235.
  gemm_bench b;
  const auto p = gemm_problem::random(3, 70, 37, true, 8);
  std::vector<uint16_t> out;
  const auto o = run_problem(b, p, UCA_FLAG_W_SCALE, out);
  ASSERT_EQ(o.err, 0u) << o.detail;
  expect_same(out, p.expected(false));
  EXPECT_EQ(b.gemm->group_ntiles(3, 70), 2u);
  EXPECT_EQ(b.l2->statistics(1).words_read, 14u + 4);
  EXPECT_DOUBLE_EQ(o.cycles(), 235);
  EXPECT_EQ(b.gemm->statistics().l2_stall_cycles, 0u);
}

TEST(GemmFunctional, KBelowOneTileNotAMultipleOf8) {
  // (5, 64, 20): one slice, the 100 elements are contiguous: 13 words.
  gemm_bench b;
  const auto p = gemm_problem::random(5, 64, 20, false, 9);
  std::vector<uint16_t> out;
  ASSERT_EQ(run_problem(b, p, 0, out).err, 0u);
  expect_same(out, p.expected(false));
  EXPECT_EQ(b.l2->statistics(1).words_read, 13u);
}

TEST(GemmFunctional, GroupThenSingleNTiles) {
  // 5 N-tiles, accumulator for 2 x (64 x 64): N-tiles 0, 1 K-tile outer,
  // then 2, 3, 4 one by one; K = 100 gives 4 K-tiles, the last partial.
  gemm_bench b(with_acc(2 * 64 * 64));
  const auto p = gemm_problem::random(64, 300, 100, true, 10);
  std::vector<uint16_t> out;
  ASSERT_EQ(run_problem(b, p, UCA_FLAG_W_SCALE, out).err, 0u);
  EXPECT_EQ(b.gemm->group_ntiles(64, 300), 2u);
  expect_same(out, p.expected(false));
  EXPECT_EQ(b.gemm->statistics().tiles, 5u * 4);
}

TEST(GemmFunctional, SingleNTileGroups) {
  // An accumulator smaller than one N-tile's outputs still gives groups of 1.
  gemm_bench b(with_acc(100));
  const auto p = gemm_problem::random(3, 200, 100, true, 11);
  std::vector<uint16_t> out;
  ASSERT_EQ(run_problem(b, p, UCA_FLAG_W_SCALE | UCA_FLAG_ACCM, out).err, 0u);
  EXPECT_EQ(b.gemm->group_ntiles(3, 200), 1u);
  expect_same(out, p.expected(true));
}

TEST(GemmFunctional, ActivationsBeyondTheBuffer) {
  gemm_bench_options opt;
  opt.gemm.section.act_buffer_bytes = 4096;
  gemm_bench b(opt);
  gemm_outcome fits, over;
  b.run([&](gemm_driver& d) {
    gemm_call c;
    c.M = 64, c.N = 64, c.K = 64, c.src = kSrc, c.dst = kDst;  // 4096 bytes: fits
    const uint64_t bytes = npu::gemm_stream_bytes_of_fifo(64, 64, false, 0);
    for (auto& f : b.fifos) f->push(bytes, sc_core::sc_time_stamp(), nullptr);
    fits = d.execute(c);
    c.K = 65;  // 4160 bytes
    over = d.execute(c);
  });
  EXPECT_EQ(fits.err, 0u) << fits.detail;
  EXPECT_EQ(over.err, uint32_t{PCCX_ERR_UNIT_FAULT});
  EXPECT_NE(over.detail.find("M*K = 4160"), std::string::npos) << over.detail;
  EXPECT_NE(over.detail.find("4096 bytes (npu.gemm.act_buffer_bytes)"), std::string::npos)
      << over.detail;
  // Refused before any L2 access: only the first instruction's 512 words.
  EXPECT_EQ(b.l2->statistics(1).words_read, 64u * 64 / 8);
  EXPECT_DOUBLE_EQ((over.retire - over.start) / ns(2.5), 0);
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
  // The one array ignores parallel_lane (strict mode refuses it at decode).
  EXPECT_EQ(lanes.err, uint32_t{PCCX_ERR_NONE}) << lanes.detail;
}

// A part of K straight from the records: inputs 32..95 of a K = 96 matrix
// (what a K-split instruction streams with two 2-D descriptors per FIFO:
// the scale beats, then 48 bytes of each record from byte 16). The lead
// (bytes 14..15 of the record, inputs 28..31) and the tail are ignored.
TEST(GemmFunctional, APartOfKFromTheRowRecords) {
  gemm_bench b;
  const auto full = gemm_problem::random(4, 70, 96, true, 12);
  const auto part = full.window(32, 64);
  b.put(kSrc, part.x);
  gemm_outcome o;
  b.run([&](gemm_driver& d) {
    for (unsigned f = 0; f < 2; ++f) {
      const auto s = full.stream(f, 32, 64);
      ASSERT_EQ(s.size(), 35u * (16 + 48));
      b.fifos[f]->push(s.size(), sc_core::sc_time_stamp(), s.data());
    }
    gemm_call c;
    c.M = 4, c.N = 70, c.K = 64, c.src = kSrc, c.dst = kDst, c.flags = UCA_FLAG_W_SCALE;
    o = d.execute(c);
  });
  ASSERT_EQ(o.err, 0u) << o.detail;
  expect_same(b.get(kDst, 4 * 70), part.expected(false));
}

// An N-tile's columns are held whole: at K = 4096, 32 x pad16(2 + 2048) =
// 66,048 bytes per FIFO do not fit a 64 KiB block buffer; K = 2048
// (32 x 1,040) does, one block at a time.
TEST(GemmFunctional, AnNTileBeyondTheWeightBlockBufferIsRefused) {
  gemm_bench_options opt;
  opt.gemm.section.weight_block_bytes = 65536;
  gemm_bench b(opt);
  gemm_outcome over;
  b.run([&](gemm_driver& d) {
    gemm_call c;
    c.M = 1, c.N = 64, c.K = 4096, c.src = kSrc, c.dst = kDst, c.flags = UCA_FLAG_W_SCALE;
    over = d.execute(c);
  });
  EXPECT_EQ(over.err, uint32_t{PCCX_ERR_UNIT_FAULT});
  EXPECT_NE(over.detail.find("32 columns x 2064 bytes (K = 4096) = 66048 bytes per FIFO"),
            std::string::npos)
      << over.detail;
  EXPECT_NE(over.detail.find("65536 bytes (npu.gemm.weight_block_bytes): split K"),
            std::string::npos)
      << over.detail;
  EXPECT_EQ(b.gemm->block_bytes_per_fifo(2048, true), 32u * 1040);
  EXPECT_EQ(b.gemm->group_ntiles(64, 512, 2048, true), 1u);   // 65,536 / 33,280
  EXPECT_EQ(b.gemm->group_ntiles(64, 512, 1024, false), 4u);  // 65,536 / 16,384
}
