// The register bank as firmware sees it: STATUS semantics, identification,
// 64-bit counter pairs, the idle-or-error line, and access errors.
#include <gtest/gtest.h>

#include "npu_bench.h"

using namespace pccx;
using namespace pccx::test;
using sc_core::SC_NS;
using sc_core::sc_time;

TEST(Registers, IdentifyTheNpu) {
  npu_bench b;
  uint32_t id = 0, version = 0, depth = 0;
  b.run([&](mmio_master& m) {
    id = m.read32(PCCX_REG_ID);
    version = m.read32(PCCX_REG_VERSION);
    depth = m.read32(PCCX_REG_CMD_DEPTH);
  });
  EXPECT_EQ(id, PCCX_NPU_ID);
  EXPECT_EQ(version, PCCX_NPU_VERSION);
  EXPECT_EQ(depth, 8u);
}

TEST(Registers, StatusBusyThenDoneAndDoneClearsOnTheNextWord) {
  npu::npu_params p;
  p.section.constant_cache.write_cycles = 100;
  npu_bench b(p);
  uint32_t at_reset = 0xFF, while_busy = 0, drained = 0, after_push = 0;
  b.run([&](mmio_master& m) {
    at_reset = m.read32(UCA_REG_STATUS);
    m.issue(memset_word(0, 0, 1, 1, 1));
    while_busy = m.read32(UCA_REG_STATUS);
    drained = m.wait_not_busy();
    m.issue(memset_word(0, 1, 1, 1, 1));
    after_push = m.read32(UCA_REG_STATUS);
    m.wait_not_busy();
  });
  EXPECT_EQ(at_reset, 0u);
  EXPECT_EQ(while_busy & (UCA_STAT_BUSY | UCA_STAT_DONE), UCA_STAT_BUSY);
  EXPECT_EQ(drained & (UCA_STAT_BUSY | UCA_STAT_DONE | PCCX_STAT_ERROR), UCA_STAT_DONE);
  EXPECT_EQ(after_push & (UCA_STAT_BUSY | UCA_STAT_DONE), UCA_STAT_BUSY);
}

TEST(Registers, IdleOrErrorLineFollowsStatus) {
  npu::npu_params p;
  p.section.constant_cache.write_cycles = 100;
  npu_bench b(p);
  std::vector<bool> line;
  b.run([&](mmio_master& m) {
    sc_core::wait(sc_time(10, SC_NS));
    line.push_back(b.irq.read());  // idle after reset
    m.issue(memset_word(0, 0, 1, 1, 1));
    sc_core::wait(sc_time(10, SC_NS));
    line.push_back(b.irq.read());  // busy
    m.wait_not_busy();
    sc_core::wait(sc_time(10, SC_NS));
    line.push_back(b.irq.read());  // idle again
    m.issue(0xF000000000000000ull);
    m.issue(memset_word(0, 1, 1, 1, 1));
    sc_core::wait(sc_time(100, SC_NS));
    line.push_back(b.irq.read());  // error, with work still queued
  });
  EXPECT_EQ(line, (std::vector<bool>{true, false, true, true}));
}

TEST(Registers, RetiredAndIssuedCountersAndCyclePairIsConsistent) {
  npu_bench b;
  uint64_t retired = 0, issued = 0, cycles = 0;
  sc_time read_at;
  b.run([&](mmio_master& m) {
    for (int i = 0; i < 5; ++i) m.issue(memset_word(0, 0, 1, 1, 1));
    m.wait_not_busy();
    sc_core::wait(sc_time(1000, SC_NS));
    read_at = sc_core::sc_time_stamp();
    cycles = m.read64(PCCX_REG_PERF_LO(PCCX_PERF_CYCLES));
    retired = m.read64(PCCX_REG_RETIRED_LO);
    issued = m.read64(PCCX_REG_ISSUED_LO);
  });
  EXPECT_EQ(retired, 5u);
  EXPECT_EQ(issued, 5u);
  EXPECT_EQ(cycles, static_cast<uint64_t>(read_at / sc_time(2.5, SC_NS)));
}

TEST(Registers, ReadingLoLatchesHi) {
  npu_bench b;
  uint32_t hi_latched = 1, hi_direct = 1;
  b.run([&](mmio_master& m) {
    m.read32(PCCX_REG_PERF_LO(PCCX_PERF_CYCLES));
    hi_latched = m.read32(PCCX_REG_PERF_HI(PCCX_PERF_CYCLES));
    hi_direct = m.read32(PCCX_REG_RETIRED_HI);  // HI of another pair: the last latched HI
  });
  EXPECT_EQ(hi_latched, 0u);
  EXPECT_EQ(hi_direct, 0u);
}

TEST(Registers, AccessErrorsNameTheirKind) {
  npu_bench b;
  std::vector<tlm::tlm_response_status> r;
  b.run([&](mmio_master& m) {
    uint32_t v = 0;
    r.push_back(m.access(tlm::TLM_WRITE_COMMAND, PCCX_REG_ERR_CODE, v));   // read-only
    r.push_back(m.access(tlm::TLM_READ_COMMAND, UCA_REG_INSTR_LO, v));     // write-only
    r.push_back(m.access(tlm::TLM_READ_COMMAND, 0x800, v));                // nothing there
    r.push_back(m.access(tlm::TLM_READ_COMMAND, UCA_REG_STATUS + 1, v));   // unaligned
    r.push_back(m.access(tlm::TLM_READ_COMMAND, UCA_REG_INSTR_LO, v, 8));  // 64-bit access
    r.push_back(m.access(tlm::TLM_READ_COMMAND, UCA_REG_STATUS, v));       // fine
  });
  EXPECT_EQ(r, (std::vector<tlm::tlm_response_status>{
                   tlm::TLM_COMMAND_ERROR_RESPONSE, tlm::TLM_COMMAND_ERROR_RESPONSE,
                   tlm::TLM_ADDRESS_ERROR_RESPONSE, tlm::TLM_BURST_ERROR_RESPONSE,
                   tlm::TLM_BURST_ERROR_RESPONSE, tlm::TLM_OK_RESPONSE}));
}

TEST(Registers, RegisterNamesForTraces) {
  EXPECT_EQ(npu::npu_register_bank::register_name(UCA_REG_STATUS), "STATUS");
  EXPECT_EQ(npu::npu_register_bank::register_name(PCCX_REG_PERF_HI(3)), "PERF_HI[3]");
  EXPECT_EQ(npu::npu_register_bank::register_name(0x800), "");
}

TEST(Registers, StatusWriteWithoutErrorBitChangesNothing) {
  npu_bench b;
  uint32_t code = 0;
  b.run([&](mmio_master& m) {
    m.issue(0xF000000000000000ull);
    m.wait_not_busy();
    m.write32(UCA_REG_STATUS, UCA_STAT_BUSY | UCA_STAT_DONE);  // not the W1C bit
    code = m.read32(PCCX_REG_ERR_CODE);
  });
  EXPECT_EQ(code, static_cast<uint32_t>(PCCX_ERR_UNKNOWN_OPCODE));
}

TEST(Registers, DoneIsSetWhenTheLastUnitRetires) {
  npu_bench b;
  b.add_unit(npu::unit_kind::gemv, 500);
  uint32_t busy = 0, drained = 0;
  b.run([&](mmio_master& m) {
    m.issue(memset_word(0, 0, 1, 1, 64));
    m.issue(memset_word(1, 0, 1, 64, 64));
    m.issue(gemv_word(0x800, 0x100, 0, 0));
    sc_core::wait(sc_time(100, SC_NS));
    busy = m.read32(UCA_REG_STATUS);
    drained = m.wait_not_busy();
  });
  EXPECT_EQ(busy & (UCA_STAT_BUSY | UCA_STAT_DONE), UCA_STAT_BUSY);
  EXPECT_EQ(drained & (UCA_STAT_BUSY | UCA_STAT_DONE), UCA_STAT_DONE);
}

TEST(Registers, EmptyCmdInTimeIncludesWordsWrittenAheadOfTime) {
  npu_bench b;
  b.run([&](mmio_master& m) {
    // A decoupled writer 1 us ahead: the NPU waits 1 us with nothing to do.
    m.issue_ahead(memset_word(0, 1, 7, 7, 7), sc_time(1000, SC_NS));
    sc_core::wait(sc_time(2000, SC_NS));
  });
  EXPECT_EQ(b.dut->counters().value(PCCX_PERF_CMD_EMPTY), 400u);  // 1 us at 2.5 ns
}
