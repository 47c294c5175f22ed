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

TEST(Hazards, StallsAndInstructionsAreCountedPerEngine) {
  hazard_bench h;
  h.b.run([](mmio_master& m) {
    shapes(m);
    m.issue(cvo_word(UCA_CVO_EXP, 0x000, 0x100, 64, true));  // writes 0x100..0x107
    m.issue(gemv_word(0x800, 0x104, 0, 0));                  // RAW: waits for the CVO
    m.wait_not_busy();
  });
  const auto& cmd = h.b.dut->cmd();
  EXPECT_GT(cmd.counter(PCCX_PERF_GEMV_HAZARD_STALL), 900u);
  EXPECT_EQ(cmd.counter(PCCX_PERF_SFU_HAZARD_STALL), 0u);
  EXPECT_EQ(cmd.counter(PCCX_PERF_GEMV_HAZARD_STALL), cmd.counter(PCCX_PERF_HAZARD_STALL));
  EXPECT_EQ(cmd.counter(PCCX_PERF_GEMV_INSTRUCTIONS), 1u);
  EXPECT_EQ(cmd.counter(PCCX_PERF_SFU_INSTRUCTIONS), 1u);
  EXPECT_EQ(cmd.counter(PCCX_PERF_GEMM_INSTRUCTIONS), 0u);
  const uint64_t cycles = cmd.counter(PCCX_PERF_CYCLES);
  for (auto [busy, idle] : {std::pair{PCCX_PERF_GEMV_BUSY, PCCX_PERF_GEMV_IDLE},
                            {PCCX_PERF_GEMM_BUSY, PCCX_PERF_GEMM_IDLE},
                            {PCCX_PERF_SFU_BUSY, PCCX_PERF_SFU_IDLE},
                            {PCCX_PERF_DMA_BUSY, PCCX_PERF_DMA_IDLE}})
    EXPECT_EQ(cmd.counter(busy) + cmd.counter(idle), cycles) << "counter " << busy;
  EXPECT_EQ(cmd.counter(PCCX_PERF_GEMV_BUSY), 1000u);
}

TEST(Hazards, BusyIncludesTheInstructionInFlight) {
  hazard_bench h;
  uint64_t busy = 0, idle = 0, cycles = 0;
  uint64_t busy_mmio = 0;
  h.b.run([&](mmio_master& m) {
    shapes(m);
    m.issue(gemv_word(0x800, 0x200, 0, 0));
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_US));  // about 400 clocks into the GEMV
    const auto& cmd = h.b.dut->cmd();  // one instant: no MMIO time between the reads
    busy = cmd.counter(PCCX_PERF_GEMV_BUSY);
    idle = cmd.counter(PCCX_PERF_GEMV_IDLE);
    cycles = cmd.counter(PCCX_PERF_CYCLES);
    busy_mmio = m.read64(PCCX_REG_PERF_LO(PCCX_PERF_GEMV_BUSY));
    m.wait_not_busy();
  });
  EXPECT_GT(busy, 300u);
  EXPECT_LT(busy, 1000u);
  EXPECT_EQ(busy + idle, cycles);
  EXPECT_GE(busy_mmio, busy) << "firmware sees the same counter, a little later";
  EXPECT_LT(busy_mmio, 1000u);
}

// A CVO reading a GEMV's result is chained to it (the direct path): it issues
// while the GEMV runs. With npu.sfu.gemv_chaining off it waits (RAW).
class HazardsChaining : public ::testing::TestWithParam<bool> {};
TEST_P(HazardsChaining, CvoOnAGemvResultChainsUnlessDisabled) {
  {
    const bool chaining = GetParam();
    npu::npu_params p;
    p.gemv_sfu_chaining = chaining;
    npu_bench b(p);
    fake_unit& gemv = b.add_unit(npu::unit_kind::gemv, 1000);
    fake_unit& sfu = b.add_unit(npu::unit_kind::sfu, 100);
    b.run([](mmio_master& m) {
      shapes(m);
      m.issue(gemv_word(0x800, 0x200, 0, 0));                   // writes 0x800..0x807
      m.issue(cvo_word(UCA_CVO_GELU, 0x800, 0x900, 64, true));  // reads them
      m.wait_not_busy();
    });
    ASSERT_EQ(sfu.runs.size(), 1u);
    const auto& cmd = b.dut->cmd();
    if (chaining) {
      EXPECT_LT(sfu.runs[0].start, gemv.runs[0].end);
      ASSERT_TRUE(sfu.runs[0].d.consumes);
      EXPECT_EQ(sfu.runs[0].d.consumes, gemv.runs[0].d.produces);
      EXPECT_EQ(cmd.counter(PCCX_PERF_SFU_CHAINED), 1u);
      EXPECT_EQ(cmd.counter(PCCX_PERF_HAZARD_STALL), 0u);
    } else {
      EXPECT_GE(sfu.runs[0].start, gemv.runs[0].end);
      EXPECT_FALSE(sfu.runs[0].d.consumes);
      EXPECT_EQ(cmd.counter(PCCX_PERF_SFU_CHAINED), 0u);
      EXPECT_GT(cmd.counter(PCCX_PERF_SFU_HAZARD_STALL), 900u);
    }
  }
}
INSTANTIATE_TEST_SUITE_P(OnOff, HazardsChaining, ::testing::Bool());

// Only a source wholly inside the GEMV's result chains; a CVO that would
// overwrite what the GEMV reads still waits (WAR).
TEST(Hazards, ChainingKeepsTheOtherHazards) {
  hazard_bench h;
  h.b.run([](mmio_master& m) {
    shapes(m);
    m.issue(gemv_word(0x800, 0x200, 0, 0));                   // reads 0x200.., writes 0x800..0x807
    m.issue(cvo_word(UCA_CVO_GELU, 0x804, 0x200, 64, true));  // source 0x804..0x80B: partly outside
    m.wait_not_busy();
  });
  EXPECT_GE(h.sfu.runs[0].start, h.gemv.runs[0].end);
  EXPECT_EQ(h.b.dut->cmd().counter(PCCX_PERF_SFU_CHAINED), 0u);
}

// The e_max a findemax GEMV leaves is known only when it ends: an EXP with
// sub_emax on its result is not chained and waits for it (RAW).
TEST(Hazards, SubEmaxWaitsForTheFindemaxGemv) {
  hazard_bench h;
  h.b.run([](mmio_master& m) {
    shapes(m);
    m.issue(gemv_word(0x800, 0x200, 0, 0, UCA_FLAG_FINDEMAX));
    m.issue(cvo_word(UCA_CVO_EXP, 0x800, 0x900, 64, true, UCA_CVO_FLAG_SUB_EMAX));
    m.wait_not_busy();
  });
  ASSERT_EQ(h.sfu.runs.size(), 1u);
  EXPECT_GE(h.sfu.runs[0].start, h.gemv.runs[0].end);
  EXPECT_EQ(h.b.dut->cmd().counter(PCCX_PERF_SFU_CHAINED), 0u);
}
