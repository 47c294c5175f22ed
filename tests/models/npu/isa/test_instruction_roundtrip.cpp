// Round trips: uca_* encoder -> captured word -> decode -> fields, and
// encode(decode(w)) == w, over randomized legal values (fixed seeds).
#include <gtest/gtest.h>

#include <random>

#include "capture_hal.h"
#include "isa_test_util.h"
#include "models/npu/isa/instruction.h"
#include "pccx_uca_ext.h"
#include "uCA_v1_api.h"

using namespace pccx::isa;
using isa_test::CaptureTest;
using isa_test::must_decode;

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

// Raw words built field by field (not through the driver) decode to the same
// fields and re-encode bit-exactly.
TEST(DecodeRaw, RandomLegalWordsRoundTrip) {
  std::mt19937 rng(0xC0FFEEu);
  for (int i = 0; i < 4 * kCases; ++i) {
    const uint32_t op = pick(rng, 0, 4);
    const uint32_t a1 = pick(rng, 0, kLim.l2_words - 1);
    const uint32_t a2 = pick(rng, 0, kLim.l2_words - 1);
    const uint32_t p1 = pick(rng, 0, 63), p2 = pick(rng, 0, 63);
    uint64_t w = 0;
    switch (op) {
      case UCA_OP_GEMV:
      case UCA_OP_GEMM: {
        const uint32_t flags = pick(rng, 0, 7) << 3;
        const uint32_t lanes = pick(rng, 0, op == UCA_OP_GEMV ? 4 : 1);
        w = isa_test::mm_word(op, a1, a2, flags, p1, p2, lanes);
        const instruction ins = must_decode(w, kLim);
        const auto& m = std::get<matmul_instr>(ins.body);
        ASSERT_EQ(static_cast<uint32_t>(ins.op), op);
        ASSERT_EQ(m.dest_reg, a1);
        ASSERT_EQ(m.src_addr, a2);
        ASSERT_EQ(m.flags, flags);
        ASSERT_EQ(m.size_ptr, p1);
        ASSERT_EQ(m.shape_ptr, p2);
        ASSERT_EQ(m.lanes, lanes);
        ASSERT_EQ(encode(ins), w);
        break;
      }
      case UCA_OP_MEMCPY: {
        const uint32_t from = pick(rng, 0, 1), to = pick(rng, 0, 1), async = pick(rng, 0, 1);
        w = isa_test::mc_word(from, to, a1, a2, 0, p1, async);
        const instruction ins = must_decode(w, kLim);
        const auto& m = std::get<memcpy_instr>(ins.body);
        ASSERT_EQ(m.from_host, from != 0);
        ASSERT_EQ(m.to_host, to != 0);
        ASSERT_EQ(m.dest, a1);
        ASSERT_EQ(m.src, a2);
        ASSERT_EQ(m.shape_ptr, p1);
        ASSERT_EQ(m.async, async != 0);
        ASSERT_EQ(encode(ins), w);
        break;
      }
      case UCA_OP_MEMSET: {
        const uint32_t cache = pick(rng, 0, 3);
        const uint32_t va = pick(rng, 0, 0xFFFF), vb = pick(rng, 0, 0xFFFF),
                       vc = pick(rng, 0, 0xFFFF);
        w = isa_test::ms_word(cache, p1, va, vb, vc);
        const instruction ins = must_decode(w, kLim);
        const auto& m = std::get<memset_instr>(ins.body);
        ASSERT_EQ(m.cache, cache);
        ASSERT_EQ(m.slot, p1);
        ASSERT_EQ(m.a, va);
        ASSERT_EQ(m.b, vb);
        ASSERT_EQ(m.c, vc);
        ASSERT_EQ(encode(ins), w);
        break;
      }
      default: {
        const uint32_t func = pick(rng, 0, PCCX_CVO_LAST_DEFINED);
        const uint32_t len = pick(rng, 1, 2048);
        const uint32_t words = (len + 7) / 8;
        const uint32_t src = pick(rng, 0, kLim.l2_words - words - (func == UCA_CVO_SCALE ? 1 : 0));
        const uint32_t dst = pick(rng, 0, kLim.l2_words - (func == 5 ? 1 : words));
        const uint32_t flags = pick(rng, 0, 7) << 2, async = pick(rng, 0, 1);
        w = isa_test::cvo_word(func, src, dst, len, flags, async);
        const instruction ins = must_decode(w, kLim);
        const auto& c = std::get<cvo_instr>(ins.body);
        ASSERT_EQ(c.func, func);
        ASSERT_EQ(c.src, src);
        ASSERT_EQ(c.dst, dst);
        ASSERT_EQ(c.length, len);
        ASSERT_EQ(c.flags, flags);
        ASSERT_EQ(c.async, async != 0);
        ASSERT_EQ(encode(ins), w);
        break;
      }
    }
    ASSERT_NE(disassemble(w, kLim).rfind(".word", 0), 0u) << disassemble(w, kLim);
  }
}

// Every legal word re-encodes exactly, including boundary values.
TEST(DecodeRaw, BoundaryWordsRoundTrip) {
  const uint32_t last = kLim.l2_words - 1;
  const uint64_t words[] = {
      isa_test::mm_word(0, 0, 0, 0, 0, 0, 0),
      isa_test::mm_word(0, last, last, 0x38, 63, 63, 4),
      isa_test::mm_word(1, last, 0, 0x38, 0, 63, 1),
      isa_test::mc_word(1, 1, last, last, 0, 63, 1),
      isa_test::ms_word(3, 63, 0xFFFF, 0xFFFF, 0xFFFF),
      isa_test::cvo_word(UCA_CVO_EXP, last - 255, last - 255, 2048, 0x1C, 1),
      isa_test::cvo_word(UCA_CVO_REDUCE_SUM, 0, last, 2048, 0, 0),
      isa_test::cvo_word(PCCX_CVO_MAX, last, last, 8, 0, 0),
  };
  for (uint64_t w : words) {
    const instruction ins = must_decode(w, kLim);
    EXPECT_EQ(encode(ins), w) << std::hex << w;
  }
}

TEST(Encode, MismatchedOpcodeAndBodyThrows) {
  instruction ins;
  ins.op = opcode::cvo;
  ins.body = memset_instr{};
  EXPECT_THROW(encode(ins), std::invalid_argument);
  ins.op = opcode::memcpy;
  ins.body = matmul_instr{};
  EXPECT_THROW(encode(ins), std::invalid_argument);
  ins.op = opcode::gemm;
  EXPECT_EQ(encode(ins), 0x1000000000000000ull);
}

TEST(MemcpyRoute, FromBits) {
  memcpy_instr m;
  EXPECT_EQ(m.route(), memcpy_route::l2_to_l2);
  m.to_host = true;
  EXPECT_EQ(m.route(), memcpy_route::l2_to_host);
  m.from_host = true;
  EXPECT_EQ(m.route(), memcpy_route::kv_append);
  m.to_host = false;
  EXPECT_EQ(m.route(), memcpy_route::host_to_l2);
}
