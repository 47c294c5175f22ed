// Timing: one element per clock, function latency, output register, the L2
// read pipeline (1 address clock + 3 URAM latency) in front, and port-1
// contention. Cycle counts are exact for the uncontended cases (docs/models/sfu.md:
// total = 4 + elements + latency + output_register).
#include <gtest/gtest.h>

#include "sfu_bench.h"
#include "sfu_reference.h"

using namespace pccx;
using namespace pccx::test;

namespace {
constexpr uint32_t kSrc = 0x400, kDst = 0x4000;
constexpr double kReadPipe = 4;  // address clock + URAM read latency 3
}  // namespace

TEST(SfuTiming, Exp2048IsLatencyPlusLengthPlusOutputRegister) {
  sfu_bench b;
  sfu_outcome r;
  b.run([&](sfu_driver& d) { r = d.execute(cvo(UCA_CVO_EXP, kSrc, kDst, 2048)); });
  ASSERT_EQ(r.err, 0u);
  EXPECT_DOUBLE_EQ(r.cycles(), kReadPipe + 2048 + 4 + 1);
  EXPECT_EQ(b.l2->statistics(1).words_read, 256u);
  EXPECT_EQ(b.l2->statistics(1).words_written, 256u);
  EXPECT_EQ(b.l2->statistics(0).words_read + b.l2->statistics(0).words_written, 0u);
}

TEST(SfuTiming, ReduceSumIsLengthPlusItsLatency) {
  sfu_bench b;
  sfu_outcome r;
  b.run([&](sfu_driver& d) { r = d.execute(cvo(UCA_CVO_REDUCE_SUM, kSrc, kDst, 2048)); });
  ASSERT_EQ(r.err, 0u);
  EXPECT_DOUBLE_EQ(r.cycles(), kReadPipe + 2048 + 1 + 1);
  EXPECT_EQ(b.l2->statistics(1).words_written, 1u);
}

TEST(SfuTiming, AVectorLongerThanTheBridgeRunsInPasses) {
  // 2048 elements through a 512-element stream bridge: four passes, and each
  // refill waits for the previous pass to drain (latency + output register).
  sfu_bench_options o;
  o.sfu.section.max_length = 512;
  o.sfu.chunk_words = 24;  // chunk and pass boundaries apart and together
  sfu_bench b(o);
  sfu_outcome r;
  b.run([&](sfu_driver& d) { r = d.execute(cvo(UCA_CVO_EXP, kSrc, kDst, 2048)); });
  ASSERT_EQ(r.err, 0u);
  EXPECT_DOUBLE_EQ(r.cycles(), kReadPipe + 2048 + 3 * (4 + 1) + 4 + 1);
  EXPECT_EQ(b.l2->statistics(1).words_written, 256u);
}

TEST(SfuTiming, LatenciesComeFromTheParams) {
  sfu_bench_options o;
  o.sfu.section.latency_cycles.sin = 30;
  o.sfu.section.latency_cycles.scale = 7;
  o.sfu.section.latency_cycles.output_register = 2;
  o.sfu.chunk_words = 5;  // chunking does not change the total
  sfu_bench b(o);
  sfu_outcome s, c, sc;
  b.run([&](sfu_driver& d) {
    s = d.execute(cvo(UCA_CVO_SIN, kSrc, kDst, 100));
    c = d.execute(cvo(UCA_CVO_COS, kSrc, kDst, 100));
    sc = d.execute(cvo(UCA_CVO_SCALE, kSrc, kDst, 100));
  });
  EXPECT_DOUBLE_EQ(s.cycles(), kReadPipe + 100 + 30 + 2);
  EXPECT_DOUBLE_EQ(c.cycles(), kReadPipe + 100 + 16 + 2);
  EXPECT_DOUBLE_EQ(sc.cycles(), kReadPipe + 1 + 100 + 7 + 2);  // the scalar streams first
  EXPECT_EQ(b.sfu->latency_cycles(UCA_CVO_SIN), 30u);
}

TEST(SfuTiming, TwoOperandFunctionsHideTheDstRead) {
  sfu_bench b;
  sfu_outcome m;
  b.run([&](sfu_driver& d) { m = d.execute(cvo(PCCX_CVO_MUL, kSrc, kDst, 2048)); });
  ASSERT_EQ(m.err, 0u);
  EXPECT_DOUBLE_EQ(m.cycles(), kReadPipe + 2048 + 3 + 1);
  EXPECT_EQ(b.l2->statistics(1).words_read, 512u);
}

TEST(SfuTiming, Port1ContentionDelaysTheUnit) {
  sfu_bench b;
  sfu_outcome r;
  b.run([&](sfu_driver& d) {
    // Another compute-side user holds port 1 for 500 clocks from now ...
    b.l2->read(mem::l2_memory::kComputePort, 0, 500, nullptr, sc_core::sc_time_stamp());
    // ... while port 0 traffic does not touch the SFU.
    b.l2->write(mem::l2_memory::kAcpPort, 0, 800, nullptr, sc_core::sc_time_stamp());
    r = d.execute(cvo(UCA_CVO_EXP, kSrc, kDst, 256));
  });
  ASSERT_EQ(r.err, 0u);
  EXPECT_DOUBLE_EQ(r.cycles(), 500 + kReadPipe + 256 + 4 + 1);
}

TEST(SfuTiming, BackToBackInstructionsAddUp) {
  sfu_bench b;
  sc_time start, end;
  b.run([&](sfu_driver& d) {
    start = sc_core::sc_time_stamp();
    for (int i = 0; i < 3; ++i) d.execute(cvo(UCA_CVO_RECIP, kSrc, kDst, 64));
    end = sc_core::sc_time_stamp();
  });
  EXPECT_DOUBLE_EQ((end - start) / ns(2.5), 3 * (kReadPipe + 64 + 4 + 1));
  EXPECT_EQ(b.perf().value(PCCX_PERF_SFU_ELEMENTS), 192u);
}
