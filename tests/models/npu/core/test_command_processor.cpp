// The command processor (models/npu/core/command_processor): in-order issue
// with hazard checks, and the error latch.
#include <gtest/gtest.h>

#include "npu_bench.h"
#include "pccx_isa.h"
#include "pccx_isa_encode.h"
#include "uCA_v1_api.h"

using namespace pccx;
using namespace pccx::test;

// Hazard ordering: the command processor issues in order and holds an
// instruction whose L2 ranges overlap an older in-flight one (RAW, WAR,
// WAW) or whose unit is busy; independent work overlaps in time.

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
    p.section.sfu.gemv_chaining = chaining;
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

// Error handling: every illegal encoding and every issue-time check latches
// its code, the word and its sequence number, drops the instruction and
// halts issue until the driver clears ERROR; then the NPU serves again.

namespace {

struct error_case {
  const char* name;
  uint64_t word;
  uint32_t code;
  bool shapes = true;  // write fmap/weight slot 0 first
  bool units = true;   // bind every unit
  npu::npu_params params = npu::npu_params{};
};

npu::npu_params without_kv_append() {
  npu::npu_params p;
  p.section.memcpy.kv_append = false;
  return p;
}
npu::npu_params without_scale_banks() {
  npu::npu_params p;
  p.section.constant_cache.banks[2].enabled = false;
  p.section.constant_cache.banks[3].enabled = false;
  return p;
}
// simulation.strict: the upstream readings (lanes mask, GEMM lanes, long
// CVOs) are errors.
npu::npu_params strict() {
  npu::npu_params p;
  p.strict = true;
  return p;
}
npu::npu_params without_cvo_extensions() {
  npu::npu_params p;
  p.section.sfu.extensions = false;
  return p;
}

std::vector<error_case> cases() {
  return {
      {"unknown_opcode", 0x7000000000000000ull, PCCX_ERR_UNKNOWN_OPCODE},
      {"gemv_reserved", pccx_encode_matmul(UCA_OP_GEMV, 0, 0, 0, 0, 0, 0, 0x5),
       PCCX_ERR_RESERVED_BITS},
      {"gemv_reserved_flags", gemv_word(0, 0, 0, 0, 0x03), PCCX_ERR_RESERVED_BITS},
      {"memset_reserved", pccx_encode_memset(0, 0, 1, 1, 1, 0x8), PCCX_ERR_RESERVED_BITS},
      {"memcpy_aux_addr", pccx_encode_memcpy(1, 0, 0, 0, 1, 0, 1), PCCX_ERR_RESERVED_BITS},
      {"cvo_reserved_flags", cvo_word(0, 0, 8, 8, true, 0x1), PCCX_ERR_RESERVED_BITS},
      {"cvo_unknown_func", cvo_word(0xE, 0, 8, 8, true), PCCX_ERR_UNKNOWN_CVO_FUNC},
      {"cvo_extension_disabled", cvo_word(PCCX_CVO_TANH, 0, 8, 8, true), PCCX_ERR_UNKNOWN_CVO_FUNC,
       true, true, without_cvo_extensions()},
      {"cvo_zero_length", cvo_word(0, 0, 8, 0, true), PCCX_ERR_ZERO_LENGTH},
      {"cvo_too_long", cvo_word(0, 0, 0x1000, 2049, true), PCCX_ERR_LENGTH_TOO_LARGE, true, true,
       strict()},
      {"cvo_src_beyond_l2", cvo_word(0, 114687, 0, 16, true), PCCX_ERR_L2_RANGE},
      {"gemv_dest_beyond_l2", gemv_word(114688, 0, 0, 0), PCCX_ERR_L2_RANGE},
      {"gemv_too_many_lanes", gemv_word(0, 0x100, 0, 0, 0, 5), PCCX_ERR_INVALID_LANES, true, true,
       strict()},
      {"gemm_lanes", gemv_word(0, 0x100, 0, 0, 0, 2, true), PCCX_ERR_INVALID_LANES, true, true,
       strict()},
      {"memset_disabled_bank", memset_word(2, 0, 1, 1, 1), PCCX_ERR_INVALID_CACHE, true, true,
       without_scale_banks()},
      {"kv_append_disabled", memcpy_word(true, true, 0, 0, 0, true), PCCX_ERR_INVALID_ROUTE, true,
       true, without_kv_append()},
      {"unwritten_shape_slot", gemv_word(0x800, 0x100, 0, 7), PCCX_ERR_UNWRITTEN_SLOT},
      // Strict: otherwise the activations follow from the weight shape (WARN_SHAPE_UPSTREAM).
      {"unwritten_size_slot", gemv_word(0x800, 0x100, 9, 0), PCCX_ERR_UNWRITTEN_SLOT, true, true,
       strict()},
      {"memcpy_unwritten_slot", memcpy_word(true, false, 0, 0, 12, true), PCCX_ERR_UNWRITTEN_SLOT},
      {"memcpy_beyond_l2", memcpy_word(true, false, 114684, 0, 0, true), PCCX_ERR_L2_RANGE},
      {"l2_to_l2_overlap", memcpy_word(false, false, 0x104, 0x100, 0, true),
       PCCX_ERR_INVALID_ROUTE},
      {"gemv_result_beyond_l2", gemv_word(114684, 0x100, 0, 0), PCCX_ERR_L2_RANGE},
      {"no_gemv_unit", gemv_word(0x800, 0x100, 0, 0), PCCX_ERR_UNIT_UNAVAILABLE, true, false},
      {"no_sfu_unit", cvo_word(0, 0, 8, 8, true), PCCX_ERR_UNIT_UNAVAILABLE, true, false},
      {"no_dma_unit", memcpy_word(true, false, 0, 0, 0, true), PCCX_ERR_UNIT_UNAVAILABLE, true,
       false},
  };
}

// Names the case in test output instead of dumping its bytes.
void PrintTo(const error_case& c, std::ostream* os) {
  *os << c.name;
}

class IllegalInstruction : public ::testing::TestWithParam<error_case> {};

}  // namespace

TEST_P(IllegalInstruction, LatchesItsCodeAndRecoversAfterClear) {
  const error_case& c = GetParam();
  npu_bench b(c.params);
  if (c.units) {
    b.add_unit(npu::unit_kind::gemv, 10);
    b.add_unit(npu::unit_kind::gemm, 10);
    b.add_unit(npu::unit_kind::sfu, 10);
    b.add_unit(npu::unit_kind::dma, 10);
  }
  uint32_t status = 0, code = 0, word_lo = 0, word_hi = 0, seq = 0, status_after = 0;
  bool executed_while_halted = true;
  b.run([&](mmio_master& m) {
    if (c.shapes) {
      m.issue(memset_word(0, 0, 1, 1, 64));   // 64 activations = 8 words
      m.issue(memset_word(1, 0, 1, 64, 64));  // 64 outputs = 8 words
    }
    m.issue(c.word);
    m.issue(memset_word(1, 33, 4, 5, 6));  // must wait for the clear
    status = m.wait_not_busy();
    code = m.read32(PCCX_REG_ERR_CODE);
    word_lo = m.read32(PCCX_REG_ERR_INSTR_LO);
    word_hi = m.read32(PCCX_REG_ERR_INSTR_HI);
    seq = m.read32(PCCX_REG_ERR_SEQ);
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_US));
    executed_while_halted = b.dut->cache().read(1, 33).has_value();
    m.write32(UCA_REG_STATUS, PCCX_STAT_ERROR);  // write 1 to clear
    status_after = m.wait_not_busy();
  });
  EXPECT_TRUE(status & PCCX_STAT_ERROR) << c.name;
  EXPECT_EQ(code, c.code) << c.name << ": got " << isa::error_name(code);
  EXPECT_EQ((static_cast<uint64_t>(word_hi) << 32) | word_lo, c.word) << c.name;
  EXPECT_EQ(seq, c.shapes ? 2u : 0u) << c.name;
  EXPECT_FALSE(executed_while_halted) << c.name << ": issue continued past a latched error";
  EXPECT_FALSE(status_after & PCCX_STAT_ERROR) << c.name;
  EXPECT_TRUE(b.dut->cache().read(1, 33)) << c.name << ": the NPU did not resume";
  for (const auto& [kind, unit] : b.units) EXPECT_TRUE(unit->runs.empty()) << c.name;
}

INSTANTIATE_TEST_SUITE_P(EveryCheck, IllegalInstruction, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Errors, UnitFaultIsLatchedWhenTheInstructionRetires) {
  npu_bench b;
  auto& gemv = b.add_unit(npu::unit_kind::gemv, 100);
  gemv.fault_seq = 2;
  uint32_t code = 0, seq = 0;
  b.run([&](mmio_master& m) {
    m.issue(memset_word(0, 0, 1, 1, 64));
    m.issue(memset_word(1, 0, 1, 64, 64));
    m.issue(gemv_word(0x800, 0x100, 0, 0));
    m.wait_not_busy();
    code = m.read32(PCCX_REG_ERR_CODE);
    seq = m.read32(PCCX_REG_ERR_SEQ);
  });
  EXPECT_EQ(code, static_cast<uint32_t>(PCCX_ERR_UNIT_FAULT));
  EXPECT_EQ(seq, 2u);
}

TEST(Errors, FirstErrorStaysLatchedUntilCleared) {
  npu_bench b;
  b.add_unit(npu::unit_kind::gemv, 2000);
  b.units.at(npu::unit_kind::gemv)->fault_seq = 2;
  uint32_t code = 0;
  b.run([&](mmio_master& m) {
    m.issue(memset_word(0, 0, 1, 1, 64));
    m.issue(memset_word(1, 0, 1, 64, 64));
    m.issue(gemv_word(0x800, 0x100, 0, 0));  // faults when it retires, later
    m.issue(0xF000000000000000ull);          // decode error first
    m.wait_not_busy();
    sc_core::wait(sc_core::sc_time(10, sc_core::SC_US));  // let the GEMV fault too
    code = m.read32(PCCX_REG_ERR_CODE);
  });
  EXPECT_EQ(code, static_cast<uint32_t>(PCCX_ERR_UNKNOWN_OPCODE));
}

TEST(Errors, StrictModeReportsEveryError) {
  npu_bench b;
  std::vector<npu::npu_error> seen;
  b.dut->cmd().errors.subscribe([&](const npu::npu_error& e) { seen.push_back(e); });
  b.run([](mmio_master& m) {
    m.issue(0x9000000000000000ull);
    m.wait_not_busy();
  });
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].code, static_cast<uint32_t>(PCCX_ERR_UNKNOWN_OPCODE));
  EXPECT_EQ(seen[0].word, 0x9000000000000000ull);
  EXPECT_NE(seen[0].detail.find("opcode"), std::string::npos);
}
