// The uCA API (firmware/uca/uCA_v1_api.c) against the capturing HAL: route
// mapping by meaning, API errors (bad route, over-wide field), uca_sync; and
// round trips: uca_* encoder -> captured word -> decode -> fields, and
// encode(decode(w)) == w, over randomized legal values (fixed seeds).
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "capture_hal.h"
#include "capture_test.h"
#include "isa_test_util.h"
#include "models/npu/isa/instruction.h"
#include "pccx_npu_regs.h"
#include "pccx_uca_ext.h"
#include "uCA_v1_api.h"

// Provided by the lead in pccx_uca_ext.h; the driver's private header holds
// the same value until then.
#ifndef PCCX_API_FIELD_RANGE
#define PCCX_API_FIELD_RANGE 2
#endif

using namespace pccx::isa;
using isa_test::must_decode;
using uca_test::CaptureTest;

namespace {

constexpr int kCases = 5000;
const decode_limits kLim{};  // defaults: 114688 words, 4 GEMV cores, ...

uint32_t pick(std::mt19937& rng, uint32_t lo, uint32_t hi) {
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
}

// Random subset of the given flag bits.
uint8_t pick_flags(std::mt19937& rng, std::initializer_list<uint32_t> bits) {
  uint8_t f = 0;
  for (uint32_t b : bits)
    if (pick(rng, 0, 1)) f = static_cast<uint8_t>(f | b);
  return f;
}

uint64_t issued_one() {
  EXPECT_EQ(capture_issued_count(), 1u);
  return capture_issued(0);
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

// Bit positions checked against literal words computed by hand from the
// spec's field table (digest section 2), independent of pccx_isa.h.
TEST_F(CaptureTest, ApiWordsMatchSpecBitPositions) {
  uca_gemv(0x100, 0x200, UCA_FLAG_FINDEMAX | UCA_FLAG_ACCM, 3, 4, 4);
  uca_gemm(0x1BFFF, 0x00001, UCA_FLAG_W_SCALE, 63, 0, 1);
  uca_memset(1, 3, 1, 2048, 2048);
  uca_cvo(UCA_CVO_EXP, 0x100, 0x200, 2048,
          UCA_CVO_FLAG_SUB_EMAX | UCA_CVO_FLAG_RECIP_SCALE | UCA_CVO_FLAG_ACCM, 1);
  ASSERT_EQ(capture_issued_count(), 4u);
  EXPECT_EQ(capture_issued(0), 0x000800080300c420ull);
  EXPECT_EQ(capture_issued(1), 0x1dfff800048fc008ull);
  EXPECT_EQ(capture_issued(2), 0x3430001080008000ull);
  EXPECT_EQ(capture_issued(3), 0x4000800080020039ull);
  EXPECT_EQ(pccx_uca_take_api_error(), PCCX_API_OK);
}

TEST_F(CaptureTest, RoundTripMatmul) {
  std::mt19937 rng(0x9e3779b9u);
  for (int i = 0; i < kCases; ++i) {
    capture_reset();
    const bool gemm = (i & 1) != 0;
    const uint32_t dest = pick(rng, 0, kLim.l2_words - 1);
    const uint32_t src = pick(rng, 0, kLim.l2_words - 1);
    const uint8_t flags = pick_flags(rng, {UCA_FLAG_FINDEMAX, UCA_FLAG_ACCM, UCA_FLAG_W_SCALE});
    const uint8_t size_ptr = static_cast<uint8_t>(pick(rng, 0, 63));
    const uint8_t shape_ptr = static_cast<uint8_t>(pick(rng, 0, 63));
    const uint8_t lanes = static_cast<uint8_t>(pick(rng, 0, gemm ? 1 : kLim.gemv_cores));
    if (gemm)
      uca_gemm(dest, src, flags, size_ptr, shape_ptr, lanes);
    else
      uca_gemv(dest, src, flags, size_ptr, shape_ptr, lanes);
    const uint64_t w = issued_one();
    const instruction ins = must_decode(w, kLim);
    ASSERT_EQ(ins.op, gemm ? opcode::gemm : opcode::gemv) << i;
    ASSERT_EQ(ins.word, w);
    const auto& m = std::get<matmul_instr>(ins.body);
    ASSERT_EQ(m.dest_reg, dest) << i;
    ASSERT_EQ(m.src_addr, src) << i;
    ASSERT_EQ(m.flags, flags) << i;
    ASSERT_EQ(m.size_ptr, size_ptr) << i;
    ASSERT_EQ(m.shape_ptr, shape_ptr) << i;
    ASSERT_EQ(m.lanes, lanes) << i;
    ASSERT_EQ(encode(ins), w) << i;
  }
  EXPECT_EQ(pccx_uca_take_api_error(), PCCX_API_OK);
}

TEST_F(CaptureTest, RoundTripMemcpy) {
  struct route_case {
    uint8_t route;
    bool from_host, to_host;
    memcpy_route expect;
  };
  const route_case routes[] = {
      {UCA_ROUTE_HOST_TO_L2, true, false, memcpy_route::host_to_l2},
      {UCA_ROUTE_L2_TO_HOST, false, true, memcpy_route::l2_to_host},
      {PCCX_ROUTE_L2_TO_L2, false, false, memcpy_route::l2_to_l2},
      {PCCX_ROUTE_KV_APPEND, true, true, memcpy_route::kv_append},
  };
  std::mt19937 rng(12345u);
  for (int i = 0; i < kCases; ++i) {
    capture_reset();
    const route_case& rc = routes[pick(rng, 0, 3)];
    const uint32_t dest = pick(rng, 0, kLim.l2_words - 1);
    const uint32_t src = pick(rng, 0, kLim.l2_words - 1);
    const uint8_t shape_ptr = static_cast<uint8_t>(pick(rng, 0, 63));
    const uint8_t async = static_cast<uint8_t>(pick(rng, 0, 1));
    uca_memcpy(rc.route, dest, src, shape_ptr, async);
    const uint64_t w = issued_one();
    const instruction ins = must_decode(w, kLim);
    ASSERT_EQ(ins.op, opcode::memcpy);
    const auto& m = std::get<memcpy_instr>(ins.body);
    ASSERT_EQ(m.from_host, rc.from_host) << i;
    ASSERT_EQ(m.to_host, rc.to_host) << i;
    ASSERT_EQ(m.route(), rc.expect) << i;
    ASSERT_EQ(m.dest, dest) << i;
    ASSERT_EQ(m.src, src) << i;
    ASSERT_EQ(m.aux_addr, 0u) << i;
    ASSERT_EQ(m.shape_ptr, shape_ptr) << i;
    ASSERT_EQ(m.async, async != 0) << i;
    ASSERT_EQ(encode(ins), w) << i;
  }
  EXPECT_EQ(pccx_uca_take_api_error(), PCCX_API_OK);
}

TEST_F(CaptureTest, RoundTripMemset) {
  std::mt19937 rng(777u);
  for (int i = 0; i < kCases; ++i) {
    capture_reset();
    const uint8_t cache = static_cast<uint8_t>(pick(rng, 0, 3));
    const uint8_t slot = static_cast<uint8_t>(pick(rng, 0, 63));
    const uint16_t a = static_cast<uint16_t>(pick(rng, 0, 0xFFFF));
    const uint16_t b = static_cast<uint16_t>(pick(rng, 0, 0xFFFF));
    const uint16_t c = static_cast<uint16_t>(pick(rng, 0, 0xFFFF));
    uca_memset(cache, slot, a, b, c);
    const uint64_t w = issued_one();
    const instruction ins = must_decode(w, kLim);
    ASSERT_EQ(ins.op, opcode::memset);
    const auto& m = std::get<memset_instr>(ins.body);
    ASSERT_EQ(m.cache, cache) << i;
    ASSERT_EQ(m.slot, slot) << i;
    ASSERT_EQ(m.a, a) << i;
    ASSERT_EQ(m.b, b) << i;
    ASSERT_EQ(m.c, c) << i;
    ASSERT_EQ(encode(ins), w) << i;
  }
  EXPECT_EQ(pccx_uca_take_api_error(), PCCX_API_OK);
}

TEST_F(CaptureTest, RoundTripCvo) {
  std::mt19937 rng(4242u);
  for (int i = 0; i < kCases; ++i) {
    capture_reset();
    const uint8_t func = static_cast<uint8_t>(pick(rng, 0, PCCX_CVO_LAST_DEFINED));
    const uint16_t length = static_cast<uint16_t>(pick(rng, 1, kLim.cvo_max_length));
    const uint32_t words = (length + 7u) / 8u;
    const uint32_t in_words = words + (func == UCA_CVO_SCALE ? 1u : 0u);  // scalar word first
    const uint32_t out_words = func == UCA_CVO_REDUCE_SUM ? 1u : words;
    const uint32_t src = pick(rng, 0, kLim.l2_words - in_words);
    const uint32_t dst = pick(rng, 0, kLim.l2_words - out_words);
    const uint8_t flags =
        pick_flags(rng, {UCA_CVO_FLAG_SUB_EMAX, UCA_CVO_FLAG_RECIP_SCALE, UCA_CVO_FLAG_ACCM});
    const uint8_t async = static_cast<uint8_t>(pick(rng, 0, 1));
    uca_cvo(func, src, dst, length, flags, async);
    const uint64_t w = issued_one();
    const instruction ins = must_decode(w, kLim);
    ASSERT_EQ(ins.op, opcode::cvo);
    const auto& c = std::get<cvo_instr>(ins.body);
    ASSERT_EQ(c.func, func) << i;
    ASSERT_EQ(c.src, src) << i;
    ASSERT_EQ(c.dst, dst) << i;
    ASSERT_EQ(c.length, length) << i;
    ASSERT_EQ(c.flags, flags) << i;
    ASSERT_EQ(c.async, async != 0) << i;
    ASSERT_EQ(encode(ins), w) << i;
    ASSERT_EQ(cvo_source_range(c).words, in_words);
    ASSERT_EQ(cvo_dest_range(c).words, out_words);
  }
  EXPECT_EQ(pccx_uca_take_api_error(), PCCX_API_OK);
}
