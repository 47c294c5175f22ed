#include <gtest/gtest.h>

#include "npu_bench.h"

using namespace pccx;
using namespace pccx::test;
using sc_core::SC_NS;
using sc_core::sc_time;

TEST(CommandFifo, FullFifoHoldsTheWriterUntilASlotFrees) {
  npu::npu_params p;
  p.section.constant_cache.write_cycles = 400;  // 1 us per MEMSET, so the writer outruns the NPU
  npu_bench b(p);
  std::vector<sc_time> accepted;
  uint32_t max_level = 0;
  bool saw_full = false;
  b.run([&](mmio_master& m) {
    for (int i = 0; i < 20; ++i) {
      m.issue(memset_word(0, static_cast<uint8_t>(i), 1, 1, static_cast<uint16_t>(i + 1)));
      accepted.push_back(sc_core::sc_time_stamp());
      max_level = std::max(max_level, m.read32(PCCX_REG_CMD_LEVEL));
      saw_full |= (m.read32(UCA_REG_STATUS) & PCCX_STAT_CMD_FULL) != 0;
    }
    m.wait_not_busy();
  });
  EXPECT_LE(max_level, 8u);
  EXPECT_EQ(max_level, 8u);
  EXPECT_TRUE(saw_full);
  // The first word goes straight to the decoder and eight more fit: nine
  // writes complete at once; the tenth waits for the first MEMSET to finish.
  for (int i = 0; i < 9; ++i) EXPECT_EQ(accepted[i], sc_core::SC_ZERO_TIME) << i;
  EXPECT_GE(accepted[9], sc_time(1000, SC_NS));
  for (int i = 10; i < 20; ++i) EXPECT_GT(accepted[i], accepted[i - 1]) << i;
  EXPECT_EQ(b.dut->cmd().retired(), 20u);
  for (int i = 0; i < 20; ++i) {
    auto v = b.dut->cache().read(0, static_cast<uint32_t>(i));
    ASSERT_TRUE(v);
    EXPECT_EQ((*v)[2], i + 1);
  }
}

TEST(CommandFifo, DepthIsAConfigurationParameter) {
  npu::npu_params p;
  p.section.cmd_fifo_depth = 2;
  p.section.constant_cache.write_cycles = 400;
  npu_bench b(p);
  uint32_t max_level = 0, depth = 0;
  b.run([&](mmio_master& m) {
    depth = m.read32(PCCX_REG_CMD_DEPTH);
    for (int i = 0; i < 6; ++i) {
      m.issue(memset_word(0, static_cast<uint8_t>(i), 1, 1, 1));
      max_level = std::max(max_level, m.read32(PCCX_REG_CMD_LEVEL));
    }
    m.wait_not_busy();
  });
  EXPECT_EQ(depth, 2u);
  EXPECT_EQ(max_level, 2u);
  EXPECT_EQ(b.dut->cmd().retired(), 6u);
}

TEST(CommandFifo, InstructionsRetireInIssueOrder) {
  npu_bench b;
  b.run([](mmio_master& m) {
    for (int i = 0; i < 30; ++i) m.issue(memset_word(1, 5, static_cast<uint16_t>(i), 0, 0));
    m.wait_not_busy();
  });
  // The last write wins only if MEMSETs executed in order.
  EXPECT_EQ((*b.dut->cache().read(1, 5))[0], 29);
}

TEST(CommandFifo, WordWrittenAheadInTimeIsNotDecodedEarly) {
  npu_bench b;
  b.run([&](mmio_master& m) {
    // Push with a 500 ns local-time offset, as a decoupled CPU would.
    m.issue_ahead(memset_word(0, 1, 7, 7, 7), sc_time(500, SC_NS));
    sc_core::wait(sc_time(400, SC_NS));
    EXPECT_FALSE(b.dut->cache().read(0, 1)) << "executed before it was written";
    sc_core::wait(sc_time(200, SC_NS));
    EXPECT_TRUE(b.dut->cache().read(0, 1));
  });
}
