// Timing from the structure: activation load through L2 port 1, double-
// buffered weight tile loads from HP0/HP1, M clocks per tile, systolic
// latency per N-tile, drain windows, per-word result writes.
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
  o.l2.words = l2_words;
  return o;
}

// All weight bytes in the FIFOs at time 0 (timing only), one GEMM.
gemm_outcome preloaded(gemm_bench& b, uint32_t M, uint32_t N, uint32_t K, uint32_t dst = kDst) {
  gemm_outcome o;
  b.run([&](gemm_driver& d) {
    const uint64_t bytes = b.gemm->stream_bytes_per_fifo(N, K, false);
    for (auto& f : b.fifos) f->push(bytes, sc_core::SC_ZERO_TIME, nullptr);
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
  // Activations 16 words (+3 URAM latency) overlap the 32-clock tile load;
  // 4 rows + 64 systolic latency; 32 result words.
  EXPECT_DOUBLE_EQ(o.cycles(), 32 + 4 + 64 + 32);
  EXPECT_EQ(b.counters.value(PCCX_PERF_GEMM_WEIGHT_STALL), 0u);
}

TEST(GemmTiming, DrainWindowsCost) {
  gemm_bench_options opt = timing(64 * 1024);
  opt.gemm.drain_limit = 64;
  gemm_bench b(opt);
  const auto o = preloaded(b, 64, 64, 256);  // 4 windows: 3 extra x 4 clocks
  ASSERT_EQ(o.err, 0u) << o.detail;
  // Activations 2048 words + 3; then 8 tiles x 64 rows, + 64 + 12; 512 words.
  EXPECT_DOUBLE_EQ(o.cycles(), 2048 + 3 + 8 * 64 + 64 + 3 * 4 + 512);
}

TEST(GemmTiming, Utilisation1024Cubed) {
  // 1024 x 1024 BF16 activations (2 MiB) exceed the 1.75 MiB L2: timing-only
  // run on a larger L2 with the same port timing.
  const uint32_t D = 1024;
  gemm_bench b(timing(256 * 1024, 300000));
  const auto o = preloaded(b, D, D, D, 140000);
  ASSERT_EQ(o.err, 0u) << o.detail;
  const double macs = double(D) * D * D, peak = 2048;
  const auto& s = b.gemm->statistics();
  const double act = D * D / 8 + 3;              // activation load
  const double array = 16.0 * 32 * D + 16 * 64;  // tiles + systolic latency
  const double tail = D * 64 / 8;                // last N-tile's result words
  EXPECT_DOUBLE_EQ(o.cycles(), act + array + tail);
  EXPECT_EQ(s.array_cycles, uint64_t(array));
  EXPECT_EQ(b.counters.value(PCCX_PERF_GEMM_WEIGHT_STALL), 0u);
  EXPECT_EQ(b.counters.value(PCCX_PERF_GEMM_MACS), uint64_t(D) * D * D);
  const double after_load = (o.retire - s.last_compute_start) / ns(2.5);
  const double u_array = macs / array / peak;
  const double u_after_load = macs / after_load / peak;
  const double u_run = macs / o.cycles() / peak;
  EXPECT_GE(u_array, 0.95);
  EXPECT_GE(u_after_load, 0.95);
  std::printf(
      "GEMM 1024^3: %.0f cycles, run %.2f%% (%.1f MAC/clk), after activation load "
      "%.2f%%, array busy %.2f%%\n",
      o.cycles(), 100 * u_run, macs / o.cycles(), 100 * u_after_load, 100 * u_array);
  RecordProperty("utilisation_run", std::to_string(u_run));
  RecordProperty("utilisation_after_load", std::to_string(u_after_load));
}

TEST(GemmTiming, WeightStarvedFollowsThePortRate) {
  // Each FIFO gets one 512-byte K-tile every 256 ns (2 GB/s per port); the
  // array needs only 8 clocks per tile, so the ports set the pace.
  const uint32_t M = 8, N = 128, K = 1024;
  gemm_bench b(timing(64 * 1024));
  const uint32_t tiles = 2 * 32;
  const sc_time per_tile = ns(256);
  b.producer->body = [&] {
    for (uint32_t i = 0; i < tiles; ++i) {
      sc_core::wait(per_tile);
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
  // Last bytes at 64 x 256 ns, then load 32 + 8 rows + 64 latency + 64 words.
  const double port_limited = tiles * 256 / 2.5 + 32 + M + 64 + M * 64 / 8;
  EXPECT_NEAR(o.cycles(), port_limited, 1.0) << o.cycles();
  const auto& s = b.gemm->statistics();
  const double idle = (s.last_compute_end - s.last_compute_start) / ns(2.5) - s.array_cycles;
  const double stall = double(b.counters.value(PCCX_PERF_GEMM_WEIGHT_STALL));
  EXPECT_GT(stall, 0.9 * idle) << stall << " of " << idle << " idle";
  EXPECT_LE(stall, idle + 0.5);
  std::printf("starved: %.1f cycles (port-limited %.1f), weight stall %.0f of %.0f idle\n",
              o.cycles(), port_limited, stall, idle);
}
