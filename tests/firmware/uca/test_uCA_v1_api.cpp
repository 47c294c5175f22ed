// uCA API behaviour against the capturing HAL: route mapping by meaning, API
// errors (bad route, over-wide field), uca_sync, the pccx_uca_ext helpers and
// the sim-control helpers.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "capture_hal.h"
#include "isa_test_util.h"
#include "models/npu/isa/instruction.h"
#include "pccx_npu_regs.h"
#include "pccx_simctl.h"
#include "pccx_uca_ext.h"
#include "uCA_v1_api.h"

// Provided by the lead in pccx_uca_ext.h; the driver's private header holds
// the same value until then.
#ifndef PCCX_API_FIELD_RANGE
#define PCCX_API_FIELD_RANGE 2
#endif

using isa_test::CaptureTest;

namespace {

std::vector<capture_access> writes() {
  std::vector<capture_access> v;
  for (size_t i = 0; i < capture_write_count(); ++i) v.push_back(capture_write(i));
  return v;
}

std::vector<uint32_t> read_offsets() {
  std::vector<uint32_t> v;
  for (size_t i = 0; i < capture_read_count(); ++i) v.push_back(capture_read(i).offset);
  return v;
}

void expect_writes(const std::vector<std::pair<uint32_t, uint32_t>>& expect) {
  const auto got = writes();
  ASSERT_EQ(got.size(), expect.size());
  for (size_t i = 0; i < expect.size(); ++i) {
    EXPECT_EQ(got[i].offset, expect[i].first) << "write " << i;
    EXPECT_EQ(got[i].value, expect[i].second) << "write " << i;
  }
}

}  // namespace

TEST_F(CaptureTest, InitFailsWhenStatusReadsAllOnes) {
  capture_set_reg(UCA_REG_STATUS, 0xFFFFFFFFu);
  EXPECT_EQ(uca_init(), -1);
  capture_set_reg(UCA_REG_STATUS, 0);
  EXPECT_EQ(uca_init(), 0);
  EXPECT_EQ(capture_init_calls(), 2u);
  uca_deinit();
  EXPECT_EQ(capture_deinit_calls(), 1u);
}

TEST_F(CaptureTest, InitClearsPendingApiError) {
  uca_memcpy(UCA_ROUTE_L2_TO_L1_GEMM, 0, 0, 0, 0);
  EXPECT_EQ(uca_init(), 0);
  EXPECT_EQ(pccx_uca_take_api_error(), PCCX_API_OK);
}

// The route constants map to the ISA bits by meaning (0 = NPU, 1 = host),
// not by the original driver's nibble arithmetic (spec conflict #3).
TEST_F(CaptureTest, MemcpyRouteMappingByMeaning) {
  uca_memcpy(UCA_ROUTE_HOST_TO_L2, 0x10, 0x20, 2, 1);
  uca_memcpy(UCA_ROUTE_L2_TO_HOST, 0x10, 0x20, 2, 1);
  uca_memcpy(PCCX_ROUTE_L2_TO_L2, 0x10, 0x20, 2, 1);
  uca_memcpy(PCCX_ROUTE_KV_APPEND, 0x10, 0x20, 2, 1);
  ASSERT_EQ(capture_issued_count(), 4u);
  // Literal words from the spec's field table: from[59] to[58] dest[57:41]
  // src[40:24] aux[23:7] shape[6:1] async[0].
  EXPECT_EQ(capture_issued(0), 0x2800200020000005ull);  // from=1 to=0
  EXPECT_EQ(capture_issued(1), 0x2400200020000005ull);  // from=0 to=1
  EXPECT_EQ(capture_issued(2), 0x2000200020000005ull);  // from=0 to=0
  EXPECT_EQ(capture_issued(3), 0x2c00200020000005ull);  // from=1 to=1
  using pccx::isa::memcpy_route;
  const memcpy_route expect[] = {memcpy_route::host_to_l2, memcpy_route::l2_to_host,
                                 memcpy_route::l2_to_l2, memcpy_route::kv_append};
  for (size_t i = 0; i < 4; ++i) {
    const auto ins = isa_test::must_decode(capture_issued(i), pccx::isa::decode_limits{});
    EXPECT_EQ(std::get<pccx::isa::memcpy_instr>(ins.body).route(), expect[i]) << i;
  }
  EXPECT_EQ(pccx_uca_take_api_error(), PCCX_API_OK);
}

TEST_F(CaptureTest, BadRoutesIssueNothing) {
  const uint8_t bad[] = {UCA_ROUTE_L2_TO_L1_GEMM,
                         UCA_ROUTE_L2_TO_L1_GEMV,
                         UCA_ROUTE_GEMV_RES_TO_L2,
                         UCA_ROUTE_GEMM_RES_TO_L2,
                         UCA_ROUTE_CVO_RES_TO_L2,
                         0x14 /* L2->CVO */,
                         0x00,
                         0x02,
                         0x20,
                         0xFF};
  for (uint8_t route : bad) {
    capture_reset();
    capture_set_wait_result(-1);
    uca_memcpy(route, 0x10, 0x20, 1, 0);
    EXPECT_EQ(capture_issued_count(), 0u) << int(route);
    EXPECT_EQ(capture_write_count(), 0u) << int(route);
    EXPECT_EQ(uca_sync(1000), PCCX_SYNC_API_ERROR) << int(route);
    EXPECT_EQ(uca_sync(1000), PCCX_SYNC_API_ERROR) << "sync must not clear the error";
    EXPECT_EQ(capture_wait_calls(), 0u);
    EXPECT_EQ(pccx_uca_take_api_error(), PCCX_API_BAD_ROUTE) << int(route);
    EXPECT_EQ(pccx_uca_take_api_error(), PCCX_API_OK);
    // Once taken, uca_sync waits on the HAL again and passes its result on.
    EXPECT_EQ(uca_sync(1000), -1);
    EXPECT_EQ(capture_wait_calls(), 1u);
    EXPECT_EQ(capture_last_wait_timeout(), 1000u);
  }
}

TEST_F(CaptureTest, OverWideFieldsIssueNothing) {
  const std::vector<std::pair<std::string, std::function<void()>>> calls = {
      {"gemv dest_reg", [] { uca_gemv(1u << 17, 0, 0, 0, 0, 0); }},
      {"gemv src_addr", [] { uca_gemv(0, 1u << 17, 0, 0, 0, 0); }},
      {"gemv flags", [] { uca_gemv(0, 0, 64, 0, 0, 0); }},
      {"gemv size_ptr", [] { uca_gemv(0, 0, 0, 64, 0, 0); }},
      {"gemv shape_ptr", [] { uca_gemv(0, 0, 0, 0, 64, 0); }},
      {"gemv lanes", [] { uca_gemv(0, 0, 0, 0, 0, 32); }},
      {"gemm dest_reg", [] { uca_gemm(0xFFFFFFFFu, 0, 0, 0, 0, 0); }},
      {"gemm lanes", [] { uca_gemm(0, 0, 0, 0, 0, 255); }},
      {"cvo func", [] { uca_cvo(16, 0, 0, 8, 0, 0); }},
      {"cvo src", [] { uca_cvo(0, 1u << 17, 0, 8, 0, 0); }},
      {"cvo dst", [] { uca_cvo(0, 0, 1u << 17, 8, 0, 0); }},
      {"cvo flags", [] { uca_cvo(0, 0, 0, 8, 32, 0); }},
      {"cvo async", [] { uca_cvo(0, 0, 0, 8, 0, 2); }},
      {"memcpy dest", [] { uca_memcpy(UCA_ROUTE_HOST_TO_L2, 1u << 17, 0, 0, 0); }},
      {"memcpy src", [] { uca_memcpy(UCA_ROUTE_L2_TO_HOST, 0, 1u << 17, 0, 0); }},
      {"memcpy shape_ptr", [] { uca_memcpy(PCCX_ROUTE_L2_TO_L2, 0, 0, 64, 0); }},
      {"memcpy async", [] { uca_memcpy(PCCX_ROUTE_KV_APPEND, 0, 0, 0, 2); }},
      {"memset dest_cache", [] { uca_memset(4, 0, 0, 0, 0); }},
      {"memset dest_addr", [] { uca_memset(0, 64, 0, 0, 0); }},
  };
  for (const auto& [name, call] : calls) {
    capture_reset();
    call();
    EXPECT_EQ(capture_issued_count(), 0u) << name;
    EXPECT_EQ(uca_sync(10), PCCX_SYNC_API_ERROR) << name;
    EXPECT_EQ(capture_wait_calls(), 0u) << name;
    EXPECT_EQ(pccx_uca_take_api_error(), PCCX_API_FIELD_RANGE) << name;
    EXPECT_EQ(uca_sync(10), 0) << name;
  }
}

// The largest value of each field still fits and is issued; the API does not
// apply the decoder's limits (an L2 address past 1.75 MiB reaches the NPU,
// which rejects it with ERR_L2_RANGE).
TEST_F(CaptureTest, FieldMaximaAreIssued) {
  uca_gemv(0x1FFFF, 0x1FFFF, 63, 63, 63, 31);
  uca_cvo(15, 0x1FFFF, 0x1FFFF, 0xFFFF, 31, 1);
  uca_memcpy(UCA_ROUTE_HOST_TO_L2, 0x1FFFF, 0x1FFFF, 63, 1);
  uca_memset(3, 63, 0xFFFF, 0xFFFF, 0xFFFF);
  ASSERT_EQ(capture_issued_count(), 4u);
  EXPECT_EQ(capture_issued(0), 0x0FFFFFFFFFFFFFF8ull);
  EXPECT_EQ(capture_issued(1), 0x4FFFFFFFFFFFFFFFull);
  EXPECT_EQ(capture_issued(2), 0x2BFFFFFFFF00007Full);
  EXPECT_EQ(capture_issued(3), 0x3FFFFFFFFFFFFFF0ull);
  EXPECT_EQ(pccx_uca_take_api_error(), PCCX_API_OK);
  const auto e = isa_test::must_fail(capture_issued(0), pccx::isa::decode_limits{});
  EXPECT_EQ(e.code, PCCX_ERR_RESERVED_BITS);  // flags 63 sets reserved flag bits
}

TEST_F(CaptureTest, OnlyTheFirstApiErrorIsKept) {
  uca_memcpy(UCA_ROUTE_GEMM_RES_TO_L2, 0, 0, 0, 0);
  uca_memset(9, 0, 0, 0, 0);
  uca_gemv(0x100, 0, 0, 0, 0, 0);  // legal calls still issue
  EXPECT_EQ(capture_issued_count(), 1u);
  EXPECT_EQ(uca_sync(5), PCCX_SYNC_API_ERROR);
  EXPECT_EQ(pccx_uca_take_api_error(), PCCX_API_BAD_ROUTE);
  EXPECT_EQ(pccx_uca_take_api_error(), PCCX_API_OK);
  uca_memset(9, 0, 0, 0, 0);
  uca_memcpy(UCA_ROUTE_GEMM_RES_TO_L2, 0, 0, 0, 0);
  EXPECT_EQ(pccx_uca_take_api_error(), PCCX_API_FIELD_RANGE);
}

TEST_F(CaptureTest, SyncPassesHalResultThrough) {
  capture_set_wait_result(0);
  EXPECT_EQ(uca_sync(123), 0);
  EXPECT_EQ(capture_last_wait_timeout(), 123u);
  capture_set_wait_result(-1);
  EXPECT_EQ(uca_sync(7), -1);
  capture_set_wait_result(PCCX_SYNC_NPU_ERROR);
  EXPECT_EQ(uca_sync(7), PCCX_SYNC_NPU_ERROR);
  EXPECT_EQ(capture_wait_calls(), 3u);
}

// ---- pccx_uca_ext ----

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

// ---- sim-control helpers ----

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
