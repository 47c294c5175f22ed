// Timing from the structure: activation slices streamed through L2 port 1
// into the activation buffer, N-groups (first group K-tile outer), double-
// buffered weight tile loads from the N-tile blocks taken from HP0/HP1, M
// clocks per tile, systolic latency per N-tile, drain windows, per-word
// result writes.
#include <gtest/gtest.h>

#include "gemm_bench.h"
#include "gemm_reference.h"
#include "pccx_npu_regs.h"
#include "uCA_v1_api.h"

using namespace pccx;
using namespace pccx::test;

namespace {
constexpr uint32_t kSrc = 0x100, kDst = 0x10000;

gemm_bench_options timing(uint64_t fifo_bytes, uint32_t l2_words = 114688) {
  gemm_bench_options o;
  o.functional = false;
  o.fifo_bytes = fifo_bytes;
  o.l2.section.words = l2_words;
  return o;
}

// All weight bytes in the FIFOs at time 0 (timing only), one GEMM.
gemm_outcome preloaded(gemm_bench& b, uint32_t M, uint32_t N, uint32_t K, uint32_t dst = kDst) {
  gemm_outcome o;
  b.run([&](gemm_driver& d) {
    for (unsigned f = 0; f < 2; ++f)
      b.fifos[f]->push(npu::gemm_stream_bytes_of_fifo(N, K, false, f), sc_core::SC_ZERO_TIME,
                       nullptr);
    gemm_call c;
    c.M = M, c.N = N, c.K = K, c.src = kSrc, c.dst = dst;
    o = d.execute(c);
  });
  return o;
}
}  // namespace

TEST(GemmTiming, OneTileExact) {
  gemm_bench b(timing(64 * 1024));
  const auto o = preloaded(b, 4, 64, 32);
  ASSERT_EQ(o.err, 0u) << o.detail;
  // The one slice (16 words, in at 16 + 3) arrives during the 32-clock tile
  // load; 4 rows + 64 systolic latency; 32 result words.
  EXPECT_DOUBLE_EQ(o.cycles(), 32 + 4 + 64 + 32);
  EXPECT_EQ(b.counters.value(PCCX_PERF_GEMM_WEIGHT_STALL), 0u);
  EXPECT_EQ(b.gemm->statistics().l2_stall_cycles, 0u);
}

TEST(GemmTiming, DrainWindowsCost) {
  gemm_bench_options opt = timing(64 * 1024);
  opt.gemm.section.drain_limit = 64;
  gemm_bench b(opt);
  const auto o = preloaded(b, 64, 64, 256);  // 4 windows: 3 extra x 4 clocks
  ASSERT_EQ(o.err, 0u) << o.detail;
  // One N-tile, 8 slices of 64 rows x 4 words = 256 words: slice i is in at
  // 256 (i + 1) + 3. A tile needs 64 clocks, so each waits for its slice:
  // the last starts at 8 x 256 + 3, runs 64 rows + 64 latency + 12 drain,
  // then 512 result words.
  EXPECT_DOUBLE_EQ(o.cycles(), 8 * 256 + 3 + 64 + 64 + 3 * 4 + 512);
  // Activation stall: tile 0 is loaded at 32 and waits to 259; each later
  // tile waits 256 - 64 clocks.
  EXPECT_EQ(b.gemm->statistics().l2_stall_cycles, 259u - 32 + 7 * (256 - 64));
}

TEST(GemmTiming, Utilisation1024Cubed) {
  // 1024 x 1024 BF16 activations (2 MiB) exceed the 1.75 MiB L2: timing-only
  // run on a larger L2 with the same port timing. The 1 MiB activation
  // buffer holds the 1024 x 1024 INT8 activations; the 262,144-entry
  // accumulator holds 4 N-tiles of 1024 x 64 partial sums, so G = 4.
  //
  // Slice i = 1024 rows x 4 words = 4,096 words, in at 4,096 (i + 1) + 3.
  // First group (N-tiles 0..3, K-tile outer): a slice serves 4 tiles of
  // 1,024 clocks = 4,096 clocks, exactly its successor's load time, so tile
  // (j, i) starts at 4,099 + 4,096 i + 1,024 j and the array never waits
  // after the first slice. In slice 31 each N-tile's last K-tile adds the
  // 64-clock systolic latency: the group ends at 4,099 + 32 x 4,096 +
  // 4 x 64 = 135,427. N-tiles 4..15 follow one by one (all slices
  // resident), 32 x 1,024 + 64 = 32,832 clocks each: the array is done at
  // 135,427 + 12 x 32,832 = 529,411 = 4,099 + 512 x 1,024 + 16 x 64.
  // Result words: 8,192 per N-tile. The first group's 32,768 words
  // (132,163..164,931) and each later N-tile's words finish before the next
  // N-tile does; the last N-tile's 8,192 words end the instruction at
  // 537,603 clocks.
  const uint32_t D = 1024;
  gemm_bench b(timing(256 * 1024, 300000));
  EXPECT_EQ(b.gemm->group_ntiles(D, D), 4u);
  const auto o = preloaded(b, D, D, D, 140000);
  ASSERT_EQ(o.err, 0u) << o.detail;
  const double macs = double(D) * D * D, peak = 2048;
  const auto& s = b.gemm->statistics();
  const double first_slice = 4 * D + 3;
  const double array = 16.0 * 32 * D + 16 * 64;  // tiles + systolic latency
  const double tail = D * 64 / 8;                // last N-tile's result words
  EXPECT_DOUBLE_EQ(o.cycles(), first_slice + array + tail);
  EXPECT_DOUBLE_EQ(o.cycles(), 537603);
  EXPECT_EQ(s.array_cycles, uint64_t(array));
  EXPECT_EQ(s.l2_stall_cycles, uint64_t(first_slice) - 32);  // tile 0 loaded at 32
  EXPECT_EQ(b.l2->statistics(1).words_read, uint64_t(D) * D / 8);
  EXPECT_EQ(b.counters.value(PCCX_PERF_GEMM_WEIGHT_STALL), 0u);
  EXPECT_EQ(b.counters.value(PCCX_PERF_GEMM_MACS), uint64_t(D) * D * D);
  const double u_array = macs / array / peak;
  const double u_run = macs / o.cycles() / peak;  // issue to retire
  EXPECT_GE(u_run, 0.95);
  EXPECT_GE(u_array, 0.95);
  std::printf(
      "GEMM 1024^3: %.0f cycles, issue to retire %.2f%% (%.1f MAC/clk), array busy %.2f%%\n",
      o.cycles(), 100 * u_run, macs / o.cycles(), 100 * u_array);
  RecordProperty("cycles", std::to_string(o.cycles()));
  RecordProperty("utilisation_run", std::to_string(u_run));
  RecordProperty("utilisation_array", std::to_string(u_array));
}

// (128, 512, 1024) with an accumulator of `entries`: 8 N-tiles, 32 slices
// of 128 rows x 4 words = 512 words, slice i in at 512 (i + 1) + 3; a tile
// needs 128 clocks, an N-tile 32 x 128 + 64 = 4,160 once its slices are
// in; 1,024 result words per N-tile.
struct grouped_run {
  double cycles = 0;
  uint64_t act_stall = 0;
  uint32_t group = 0;
};

grouped_run run_grouped(uint32_t entries) {
  gemm_bench_options opt = timing(256 * 1024);
  opt.gemm.section.acc_buffer_entries = entries;
  gemm_bench b(opt);
  const auto o = preloaded(b, 128, 512, 1024);
  EXPECT_EQ(o.err, 0u) << o.detail;
  EXPECT_EQ(b.gemm->statistics().array_cycles, 8u * 4160);
  EXPECT_EQ(b.counters.value(PCCX_PERF_GEMM_WEIGHT_STALL), 0u);
  EXPECT_EQ(b.counters.value(PCCX_PERF_GEMM_L2_STALL), b.gemm->statistics().l2_stall_cycles);
  std::printf("(128, 512, 1024), %u entries: G = %u, %.0f cycles, activation stall %llu\n", entries,
              b.gemm->group_ntiles(128, 512), o.cycles(),
              static_cast<unsigned long long>(b.gemm->statistics().l2_stall_cycles));
  return {o.cycles(), b.gemm->statistics().l2_stall_cycles, b.gemm->group_ntiles(128, 512)};
}

TEST(GemmTiming, SingleNTileGroupsAreLoadBound) {
  // G = 1 (8,192 entries = one N-tile): N-tile 0 is paced by the stream,
  // K-tile i starts when slice i is in; its last tile starts at 32 x 512 + 3
  // = 16,387 and ends at 16,387 + 128 + 64 = 16,579. N-tiles 1..7 then run
  // back to back: 16,579 + 7 x 4,160 = 45,699, + 1,024 words = 46,723
  // (against 34,819 with G = 4 below).
  // Activation stall: tile 0 from 32 (loaded) to 515, then 31 x (512 - 128).
  const auto r = run_grouped(8192);
  EXPECT_EQ(r.group, 1u);
  EXPECT_DOUBLE_EQ(r.cycles, 46723);
  EXPECT_EQ(r.act_stall, 515u - 32 + 31 * (512 - 128));
}

TEST(GemmTiming, FourNTileGroupHidesTheStream) {
  // G = 4 (32,768 entries): a slice serves 4 x 128 = 512 clocks, its
  // successor's load time: tile (j, i) starts at 515 + 512 i + 128 j; the
  // group ends at 515 + 32 x 512 + 4 x 64 = 17,155 (its 4,096 result words
  // are written 16,579..20,675, during N-tile 4); N-tiles 4..7: 17,155 +
  // 4 x 4,160 = 33,795, + 1,024 words = 34,819.
  const auto r = run_grouped(4 * 8192);
  EXPECT_EQ(r.group, 4u);
  EXPECT_DOUBLE_EQ(r.cycles, 34819);
  EXPECT_EQ(r.act_stall, 515u - 32);
}

TEST(GemmTiming, GroupStopsAtTheSizeThatHidesTheStream) {
  // The default 262,144 entries would hold all 8 N-tiles as one group; the
  // unit stops at G = 4, which already hides the slice loads (a larger
  // group is done at the same time, 33,795, but then writes all 8 N-tiles'
  // 8,192 result words at the end: 40,643). Same timing as G = 4 above.
  const auto r = run_grouped(262144);
  EXPECT_EQ(r.group, 4u);
  EXPECT_DOUBLE_EQ(r.cycles, 34819);
  EXPECT_EQ(r.act_stall, 515u - 32);
}

TEST(GemmTiming, WeightStarvedFollowsThePortRate) {
  // Each FIFO gets 512 bytes every 256 ns (2 GB/s per port): an N-tile's
  // block (32 columns x 512 bytes = 16 KiB) every 8,192 ns, while the array
  // needs 32 tiles x 32 clocks (the tile loads) = 2,560 ns for it, so the
  // ports set the pace. The last block is in at 8 x 8,192 ns = 26,214.4
  // clocks; its 32 tile loads, 8 rows, the 64-clock latency and the 64
  // result words of the last N-tile follow.
  const uint32_t M = 8, N = 512, K = 1024;
  gemm_bench b(timing(64 * 1024));
  const uint32_t pushes = N / 2 * K / 2 / 512;
  const sc_time per_push = ns(256);
  b.producer->body = [&] {
    for (uint32_t i = 0; i < pushes; ++i) {
      sc_core::wait(per_push);
      for (auto& f : b.fifos) f->push(512, sc_core::sc_time_stamp(), nullptr);
    }
  };
  gemm_outcome o;
  b.run([&](gemm_driver& d) {
    gemm_call c;
    c.M = M, c.N = N, c.K = K, c.src = kSrc, c.dst = kDst;
    o = d.execute(c);
  });
  ASSERT_EQ(o.err, 0u) << o.detail;
  const double port_limited = pushes * 256 / 2.5 + 32 * 32 + M + 64 + M * 64 / 8;
  EXPECT_NEAR(o.cycles(), port_limited, 1.0) << o.cycles();
  const auto& s = b.gemm->statistics();
  EXPECT_EQ(s.l2_stall_cycles, 0u);
  // Array idle from the instruction's start (the gap before tile 0 counts).
  const double idle = (s.last_compute_end - o.start) / ns(2.5) - s.array_cycles;
  const double stall = double(b.counters.value(PCCX_PERF_GEMM_WEIGHT_STALL));
  EXPECT_GT(stall, 0.5 * idle) << stall << " of " << idle << " idle";
  EXPECT_LE(stall, idle + 0.5);
  std::printf("starved: %.1f cycles (port-limited %.1f), weight stall %.0f of %.0f idle\n",
              o.cycles(), port_limited, stall, idle);
}
