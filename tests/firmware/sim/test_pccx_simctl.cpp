// The sim-control helpers (firmware/sim/pccx_simctl.c) against the capturing
// HAL: prints, markers, EXIT, the simulated time and the ID check; and the
// line builder for prints.
#include <gtest/gtest.h>

#include <vector>

#include "capture_hal.h"
#include "capture_test.h"
#include "pccx_simctl.h"
#include "uCA_v1_api.h"

using uca_test::CaptureTest;
using uca_test::expect_writes;
using uca_test::read_offsets;

TEST_F(CaptureTest, SimctlPrintAddsNewline) {
  const uint32_t putc = PCCX_SIMCTL_OFFSET + PCCX_SIMCTL_PUTC;
  pccx_simctl_print("hi");
  expect_writes({{putc, 'h'}, {putc, 'i'}, {putc, '\n'}});
  capture_reset();
  pccx_simctl_print("ok\n");
  expect_writes({{putc, 'o'}, {putc, 'k'}, {putc, '\n'}});
  capture_reset();
  pccx_simctl_print("");
  expect_writes({{putc, '\n'}});
  capture_reset();
  pccx_simctl_print("\xE9");  // bytes go out unsigned
  expect_writes({{putc, 0xE9}, {putc, '\n'}});
}

TEST_F(CaptureTest, SimctlMarkerThenEmit) {
  pccx_simctl_marker("L0");
  const uint32_t mp = PCCX_SIMCTL_OFFSET + PCCX_SIMCTL_MARKER_PUTC;
  ASSERT_EQ(capture_write_count(), 3u);
  expect_writes({{mp, 'L'}, {mp, '0'}, {PCCX_SIMCTL_OFFSET + PCCX_SIMCTL_MARKER_EMIT, 1}});
}

TEST_F(CaptureTest, SimctlExitWritesCode) {
  pccx_simctl_exit(3);
  pccx_simctl_exit(-1);
  expect_writes({{PCCX_SIMCTL_OFFSET + PCCX_SIMCTL_EXIT, 3},
                 {PCCX_SIMCTL_OFFSET + PCCX_SIMCTL_EXIT, 0xFFFFFFFFu}});
}

TEST_F(CaptureTest, SimctlTimeReadsLoThenHi) {
  capture_set_reg(PCCX_SIMCTL_OFFSET + PCCX_SIMCTL_TIME_NS_LO, 0x00000005u);
  capture_set_reg(PCCX_SIMCTL_OFFSET + PCCX_SIMCTL_TIME_NS_HI, 0x00000002u);
  EXPECT_EQ(pccx_simctl_time_ns(), 0x200000005ull);
  EXPECT_EQ(read_offsets(), (std::vector<uint32_t>{0x00100014u, 0x00100018u}));
}

TEST_F(CaptureTest, SimctlPresentChecksMagic) {
  EXPECT_EQ(pccx_simctl_present(), 0);
  capture_set_reg(PCCX_SIMCTL_OFFSET + PCCX_SIMCTL_ID, PCCX_SIMCTL_MAGIC);
  EXPECT_EQ(pccx_simctl_present(), 1);
  EXPECT_EQ(read_offsets(), (std::vector<uint32_t>{0x00100000u, 0x00100000u}));
}

// The firmware's line builder for sim-control prints: decimal, hex and text
// appended in order, always terminated, cut off at the buffer's end.
TEST(SimctlLine, FormatsNumbersAndCutsAtTheEnd) {
  pccx_line l;
  pccx_line_start(&l, "decode: ");
  pccx_line_str(&l, "token ");
  pccx_line_dec(&l, 0);
  pccx_line_str(&l, " at ");
  pccx_line_hex(&l, 0xA0000000ull);
  pccx_line_str(&l, " n=");
  pccx_line_dec(&l, 18446744073709551615ull);
  EXPECT_STREQ(l.text, "decode: token 0 at 0xa0000000 n=18446744073709551615");
  for (int i = 0; i < 50; ++i) pccx_line_str(&l, "0123456789");
  EXPECT_EQ(l.n, sizeof l.text - 1);
  EXPECT_EQ(l.text[sizeof l.text - 1], '\0');
  pccx_line_start(&l, "");
  pccx_line_hex(&l, 0);
  EXPECT_STREQ(l.text, "0x0");
}
