// The driver's platform extensions (firmware/uca/pccx_uca_ext.c) against the
// capturing HAL: the error bank, write-one-to-clear, the 64-bit counters.
#include <gtest/gtest.h>

#include <vector>

#include "capture_hal.h"
#include "capture_test.h"
#include "pccx_npu_regs.h"
#include "pccx_uca_ext.h"
#include "uCA_v1_api.h"

using uca_test::CaptureTest;
using uca_test::expect_writes;
using uca_test::read_offsets;

TEST_F(CaptureTest, ReadErrorReadsTheErrorBank) {
  capture_set_reg(UCA_REG_STATUS, PCCX_STAT_ERROR | UCA_STAT_BUSY);
  capture_set_reg(PCCX_REG_ERR_CODE, PCCX_ERR_L2_RANGE);
  capture_set_reg(PCCX_REG_ERR_INSTR_LO, 0x89ABCDEFu);
  capture_set_reg(PCCX_REG_ERR_INSTR_HI, 0x40123456u);
  capture_set_reg(PCCX_REG_ERR_SEQ, 17);
  pccx_npu_error err{};
  EXPECT_EQ(pccx_npu_read_error(&err), 1);
  EXPECT_EQ(err.code, static_cast<uint32_t>(PCCX_ERR_L2_RANGE));
  EXPECT_EQ(err.instruction, 0x4012345689ABCDEFull);
  EXPECT_EQ(err.sequence, 17u);
  EXPECT_EQ(read_offsets(),
            (std::vector<uint32_t>{UCA_REG_STATUS, PCCX_REG_ERR_CODE, PCCX_REG_ERR_INSTR_LO,
                                   PCCX_REG_ERR_INSTR_HI, PCCX_REG_ERR_SEQ}));
  EXPECT_EQ(capture_write_count(), 0u);
  capture_set_reg(UCA_REG_STATUS, UCA_STAT_DONE);
  EXPECT_EQ(pccx_npu_read_error(&err), 0);
  EXPECT_EQ(pccx_npu_read_error(nullptr), 0);
}

TEST_F(CaptureTest, ClearErrorWritesOneToClear) {
  pccx_npu_clear_error();
  expect_writes({{UCA_REG_STATUS, PCCX_STAT_ERROR}});
  EXPECT_EQ(capture_read_count(), 0u);
}

TEST_F(CaptureTest, CountersReadLoThenHi) {
  capture_set_reg(PCCX_REG_PERF_LO(3), 0xDEADBEEFu);
  capture_set_reg(PCCX_REG_PERF_HI(3), 0x00000012u);
  EXPECT_EQ(pccx_npu_read_counter(PCCX_PERF_GEMM_BUSY), 0x12DEADBEEFull);
  EXPECT_EQ(read_offsets(), (std::vector<uint32_t>{0x58, 0x5C}));
  capture_reset();
  EXPECT_EQ(pccx_npu_read_counter(PCCX_PERF_COUNT), 0u);  // out of range: no access
  EXPECT_EQ(capture_read_count(), 0u);
  capture_set_reg(PCCX_REG_RETIRED_LO, 5);
  capture_set_reg(PCCX_REG_RETIRED_HI, 1);
  EXPECT_EQ(pccx_npu_retired(), 0x100000005ull);
  EXPECT_EQ(read_offsets(), (std::vector<uint32_t>{PCCX_REG_RETIRED_LO, PCCX_REG_RETIRED_HI}));
}
