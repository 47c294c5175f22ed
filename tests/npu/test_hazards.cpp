// Hazard ordering: the command processor issues in order and holds an
// instruction whose L2 ranges overlap an older in-flight one (RAW, WAR,
// WAW) or whose unit is busy; independent work overlaps in time.
#include <gtest/gtest.h>

#include "npu_bench.h"

using namespace pccx;
using namespace pccx::test;

namespace {

// fmap slot 0: 64 elements (8 words); weight slot 0: M=1, N=64, K=64.
void shapes(mmio_master& m) {
  m.issue(memset_word(0, 0, 1, 1, 64));
  m.issue(memset_word(1, 0, 1, 64, 64));
}

struct hazard_bench {
  npu_bench b;
  fake_unit& sfu = b.add_unit(npu::unit_kind::sfu, 1000);
  fake_unit& gemv = b.add_unit(npu::unit_kind::gemv, 1000);
};

}  // namespace

TEST(Hazards, ReadAfterWriteWaitsForTheWriter) {
  hazard_bench h;
  h.b.run([](mmio_master& m) {
    shapes(m);
    m.issue(cvo_word(UCA_CVO_EXP, 0x000, 0x100, 64, true));  // writes 0x100..0x107
    m.issue(gemv_word(0x800, 0x104, 0, 0));                  // reads 0x104..0x10B
    m.wait_not_busy();
  });
  ASSERT_EQ(h.sfu.runs.size(), 1u);
  ASSERT_EQ(h.gemv.runs.size(), 1u);
  EXPECT_GE(h.gemv.runs[0].start, h.sfu.runs[0].end);
  EXPECT_GT(h.b.dut->counters().value(PCCX_PERF_HAZARD_STALL), 900u);
}

TEST(Hazards, IndependentInstructionsOverlap) {
  hazard_bench h;
  h.b.run([](mmio_master& m) {
    shapes(m);
    m.issue(cvo_word(UCA_CVO_EXP, 0x000, 0x100, 64, true));
    m.issue(gemv_word(0x800, 0x200, 0, 0));  // disjoint ranges
    m.wait_not_busy();
  });
  EXPECT_LT(h.gemv.runs[0].start, h.sfu.runs[0].end);
  EXPECT_EQ(h.b.dut->counters().value(PCCX_PERF_HAZARD_STALL), 0u);
}

TEST(Hazards, WriteAfterReadWaitsForTheReader) {
  hazard_bench h;
  h.b.run([](mmio_master& m) {
    shapes(m);
    m.issue(gemv_word(0x800, 0x200, 0, 0));                  // reads 0x200..0x207
    m.issue(cvo_word(UCA_CVO_EXP, 0x000, 0x206, 16, true));  // writes 0x206..0x207
    m.wait_not_busy();
  });
  EXPECT_GE(h.sfu.runs[0].start, h.gemv.runs[0].end);
}

TEST(Hazards, WriteAfterWriteWaitsForTheFirstWriter) {
  hazard_bench h;
  h.b.run([](mmio_master& m) {
    shapes(m);
    m.issue(cvo_word(UCA_CVO_EXP, 0x000, 0x100, 64, true));  // writes 0x100..0x107
    m.issue(gemv_word(0x107, 0x300, 0, 0));                  // writes 0x107..0x10E
    m.wait_not_busy();
  });
  EXPECT_GE(h.gemv.runs[0].start, h.sfu.runs[0].end);
}

TEST(Hazards, ReaderOfAResultWaitsWhileOthersProceed) {
  hazard_bench h;
  h.b.run([](mmio_master& m) {
    shapes(m);
    m.issue(gemv_word(0x500, 0x300, 0, 0));                 // writes 0x500..0x507
    m.issue(cvo_word(UCA_CVO_EXP, 0x000, 0x600, 8, true));  // independent
    m.issue(cvo_word(UCA_CVO_EXP, 0x500, 0x700, 8, true));  // RAW on the GEMV result
    m.wait_not_busy();
  });
  ASSERT_EQ(h.sfu.runs.size(), 2u);
  EXPECT_LT(h.sfu.runs[0].start, h.gemv.runs[0].end);
  EXPECT_GE(h.sfu.runs[1].start, h.gemv.runs[0].end);
}

TEST(Hazards, BusyUnitHoldsTheNextInstructionForIt) {
  hazard_bench h;
  h.b.run([](mmio_master& m) {
    shapes(m);
    m.issue(gemv_word(0x800, 0x200, 0, 0));
    m.issue(gemv_word(0x900, 0x300, 0, 0));  // disjoint, but the GEMV unit is busy
    m.wait_not_busy();
  });
  ASSERT_EQ(h.gemv.runs.size(), 2u);
  EXPECT_GE(h.gemv.runs[1].start, h.gemv.runs[0].end);
  EXPECT_GT(h.b.dut->counters().value(PCCX_PERF_UNIT_STALL), 900u);
}

TEST(Hazards, IssueStaysInOrderBehindAStalledHead) {
  hazard_bench h;
  sc_core::sc_time memset_seen_at;
  h.b.run([&](mmio_master& m) {
    shapes(m);
    m.issue(cvo_word(UCA_CVO_EXP, 0x000, 0x100, 64, true));
    m.issue(gemv_word(0x800, 0x100, 0, 0));  // RAW: stalls
    m.issue(memset_word(0, 9, 1, 1, 1));     // independent, but behind the stalled GEMV
    while (!h.b.dut->cache().read(0, 9)) sc_core::wait(sc_core::sc_time(10, sc_core::SC_NS));
    memset_seen_at = sc_core::sc_time_stamp();
    m.wait_not_busy();
  });
  ASSERT_EQ(h.gemv.runs.size(), 1u);
  EXPECT_GE(h.gemv.runs[0].start, h.sfu.runs[0].end);
  EXPECT_GE(memset_seen_at, h.gemv.runs[0].start) << "the MEMSET overtook the stalled GEMV";
}

TEST(Hazards, SynchronousCvoHoldsIssueUntilItRetires) {
  hazard_bench h;
  sc_core::sc_time memset_seen_at;
  h.b.run([&](mmio_master& m) {
    m.issue(cvo_word(UCA_CVO_EXP, 0x000, 0x100, 64, false));  // async = 0
    m.issue(memset_word(0, 1, 1, 1, 1));
    while (!h.b.dut->cache().read(0, 1)) sc_core::wait(sc_core::sc_time(10, sc_core::SC_NS));
    memset_seen_at = sc_core::sc_time_stamp();
    m.wait_not_busy();
  });
  EXPECT_GE(memset_seen_at, h.sfu.runs[0].end);
}

TEST(Hazards, AsynchronousCvoLetsIssueContinue) {
  hazard_bench h;
  sc_core::sc_time memset_seen_at;
  h.b.run([&](mmio_master& m) {
    m.issue(cvo_word(UCA_CVO_EXP, 0x000, 0x100, 64, true));  // async = 1
    m.issue(memset_word(0, 1, 1, 1, 1));
    while (!h.b.dut->cache().read(0, 1)) sc_core::wait(sc_core::sc_time(10, sc_core::SC_NS));
    memset_seen_at = sc_core::sc_time_stamp();
    m.wait_not_busy();
  });
  EXPECT_LT(memset_seen_at, h.sfu.runs[0].end);
}

TEST(Hazards, BusyCountersAddUpUnitTime) {
  hazard_bench h;
  h.b.run([](mmio_master& m) {
    shapes(m);
    m.issue(gemv_word(0x800, 0x200, 0, 0));
    m.issue(gemv_word(0x900, 0x300, 0, 0));
    m.issue(cvo_word(UCA_CVO_EXP, 0x000, 0x100, 64, true));
    m.wait_not_busy();
  });
  EXPECT_EQ(h.b.dut->counters().value(PCCX_PERF_GEMV_BUSY), 2000u);
  EXPECT_EQ(h.b.dut->counters().value(PCCX_PERF_SFU_BUSY), 1000u);
}
