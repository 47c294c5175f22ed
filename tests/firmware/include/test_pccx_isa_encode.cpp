// pccx_isa_encode.h against the decoder: for every format, words the header
// builds from random fields (fixed seeds) decode to exactly those fields and
// re-encode through isa::encode to the same word, and nonzero reserved fields
// land where the decoder looks for them. The limits are widened so that every
// value of every field is legal, and the random values cover every bit.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>

#include "isa_test_util.h"
#include "models/npu/isa/instruction.h"
#include "pccx_isa.h"
#include "pccx_isa_encode.h"
#include "uCA_v1_api.h"

using namespace pccx::isa;
using isa_test::must_decode;
using isa_test::must_fail;

namespace {

constexpr int kCases = 20000;

// Every 17-bit L2 address, 15 GEMV cores (lanes[3:0] = 0..15) and CVO
// lengths up to 65535; the other defaults already accept every value.
decode_limits wide_limits() {
  decode_limits lim;
  lim.l2_words = 1u << PCCX_MM_DEST_W;
  lim.gemv_cores = PCCX_LANES_COUNT_MASK;
  lim.cvo_max_length = (1u << PCCX_CVO_LEN_W) - 1u;
  return lim;
}

uint32_t bits(std::mt19937& rng, unsigned width) {
  return static_cast<uint32_t>(rng() & PCCX_FIELD_MASK(width));
}

uint32_t pick(std::mt19937& rng, uint32_t lo, uint32_t hi) {
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
}

std::string hex(uint32_t value, int digits = 1) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*x", digits, value);
  return buf;
}

}  // namespace

TEST(EncodeHeader, MatmulDecodesToItsFields) {
  const decode_limits lim = wide_limits();
  std::mt19937 rng(0x5eed0001u);
  for (int i = 0; i < kCases; ++i) {
    const bool gemm = (i & 1) != 0;
    const uint32_t op = gemm ? UCA_OP_GEMM : UCA_OP_GEMV;
    const uint32_t dest = bits(rng, PCCX_MM_DEST_W);
    const uint32_t src = bits(rng, PCCX_MM_SRC_W);
    // flags[2:0]: GEMV weight format 0..2, zero on GEMM.
    const uint32_t flags = (bits(rng, PCCX_MM_FLAGS_W) & ~PCCX_MM_WFMT_MASK) |
                           (gemm ? 0u : pick(rng, 0, PCCX_WFMT_KV_VALUE_ACCUMULATE));
    const uint32_t size_ptr = bits(rng, PCCX_MM_SIZE_PTR_W);
    const uint32_t shape_ptr = bits(rng, PCCX_MM_SHAPE_PTR_W);
    const uint32_t lanes = gemm ? pick(rng, 0, 1) : bits(rng, PCCX_MM_LANE_W);
    const uint64_t w = pccx_encode_matmul(op, dest, src, flags, size_ptr, shape_ptr, lanes, 0);
    const instruction ins = must_decode(w, lim);
    ASSERT_EQ(ins.op, gemm ? opcode::gemm : opcode::gemv) << i;
    const auto& m = std::get<matmul_instr>(ins.body);
    ASSERT_EQ(m.dest_reg, dest) << i;
    ASSERT_EQ(m.src_addr, src) << i;
    ASSERT_EQ(m.flags, flags) << i;
    ASSERT_EQ(m.size_ptr, size_ptr) << i;
    ASSERT_EQ(m.shape_ptr, shape_ptr) << i;
    ASSERT_EQ(m.lanes, lanes) << i;
    ASSERT_EQ(encode(ins), w) << i;

    const uint32_t rsv = pick(rng, 1, PCCX_FIELD_MASK(PCCX_MM_RSV_W));
    const decode_error e =
        must_fail(pccx_encode_matmul(op, dest, src, flags, size_ptr, shape_ptr, lanes, rsv), lim);
    ASSERT_EQ(e.code, PCCX_ERR_RESERVED_BITS) << i;
    ASSERT_EQ(e.message, std::string(gemm ? "GEMM" : "GEMV") +
                             " reserved bits [2:0] = " + hex(rsv) + " must be zero")
        << i;
  }
}

TEST(EncodeHeader, MemcpyDecodesToItsFields) {
  const decode_limits lim = wide_limits();
  std::mt19937 rng(0x5eed0002u);
  for (int i = 0; i < kCases; ++i) {
    const uint32_t from = bits(rng, 1), to = bits(rng, 1);
    const uint32_t dest = bits(rng, PCCX_MC_DEST_W);
    const uint32_t src = bits(rng, PCCX_MC_SRC_W);
    const uint32_t shape_ptr = bits(rng, PCCX_MC_SHAPE_PTR_W);
    const uint32_t async = bits(rng, 1);
    const uint64_t w = pccx_encode_memcpy(from, to, dest, src, 0, shape_ptr, async);
    const instruction ins = must_decode(w, lim);
    ASSERT_EQ(ins.op, opcode::memcpy) << i;
    const auto& m = std::get<memcpy_instr>(ins.body);
    ASSERT_EQ(m.from_host, from != 0) << i;
    ASSERT_EQ(m.to_host, to != 0) << i;
    ASSERT_EQ(m.dest, dest) << i;
    ASSERT_EQ(m.src, src) << i;
    ASSERT_EQ(m.aux_addr, 0u) << i;
    ASSERT_EQ(m.shape_ptr, shape_ptr) << i;
    ASSERT_EQ(m.async, async != 0) << i;
    ASSERT_EQ(encode(ins), w) << i;

    const uint32_t aux = pick(rng, 1, PCCX_FIELD_MASK(PCCX_MC_AUX_W));
    const decode_error e =
        must_fail(pccx_encode_memcpy(from, to, dest, src, aux, shape_ptr, async), lim);
    ASSERT_EQ(e.code, PCCX_ERR_RESERVED_BITS) << i;
    ASSERT_EQ(e.message, "MEMCPY aux_addr = " + hex(aux, 5) +
                             " must be zero: host addresses come from DMA descriptors")
        << i;
  }
}

TEST(EncodeHeader, MemsetDecodesToItsFields) {
  const decode_limits lim = wide_limits();
  std::mt19937 rng(0x5eed0003u);
  for (int i = 0; i < kCases; ++i) {
    const uint32_t cache = bits(rng, PCCX_MS_CACHE_W);
    const uint32_t slot = bits(rng, PCCX_MS_SLOT_W);
    const uint32_t a = bits(rng, PCCX_MS_VALUE_W);
    const uint32_t b = bits(rng, PCCX_MS_VALUE_W);
    const uint32_t c = bits(rng, PCCX_MS_VALUE_W);
    const uint64_t w = pccx_encode_memset(cache, slot, a, b, c, 0);
    const instruction ins = must_decode(w, lim);
    ASSERT_EQ(ins.op, opcode::memset) << i;
    const auto& m = std::get<memset_instr>(ins.body);
    ASSERT_EQ(m.cache, cache) << i;
    ASSERT_EQ(m.slot, slot) << i;
    ASSERT_EQ(m.a, a) << i;
    ASSERT_EQ(m.b, b) << i;
    ASSERT_EQ(m.c, c) << i;
    ASSERT_EQ(encode(ins), w) << i;

    const uint32_t rsv = pick(rng, 1, PCCX_FIELD_MASK(PCCX_MS_RSV_W));
    const decode_error e = must_fail(pccx_encode_memset(cache, slot, a, b, c, rsv), lim);
    ASSERT_EQ(e.code, PCCX_ERR_RESERVED_BITS) << i;
    ASSERT_EQ(e.message, "MEMSET reserved bits [3:0] = " + hex(rsv) + " must be zero") << i;
  }
}

TEST(EncodeHeader, CvoDecodesToItsFields) {
  const decode_limits lim = wide_limits();
  std::mt19937 rng(0x5eed0004u);
  for (int i = 0; i < kCases; ++i) {
    const uint32_t func = bits(rng, PCCX_CVO_FUNC_W);
    const uint32_t length = pick(rng, 1, PCCX_FIELD_MASK(PCCX_CVO_LEN_W));
    const uint32_t words = l2_words_for_elements(length);
    const uint32_t in_words = words + (func == UCA_CVO_SCALE ? 1u : 0u);
    const uint32_t out_words = func == UCA_CVO_REDUCE_SUM ? 1u : words;
    const uint32_t src = pick(rng, 0, lim.l2_words - in_words);
    const uint32_t dst = pick(rng, 0, lim.l2_words - out_words);
    // flags[1:0] are reserved.
    const uint32_t flags = bits(rng, PCCX_CVO_FLAGS_W) & ~PCCX_CVO_FLAGS_RSV_MASK;
    const uint32_t async = bits(rng, 1);
    const uint64_t w = pccx_encode_cvo(func, src, dst, length, flags, async);
    if (func > PCCX_CVO_LAST_DEFINED) {  // codes 0xC..0xF: the function field alone fails
      const decode_error e = must_fail(w, lim);
      ASSERT_EQ(e.code, PCCX_ERR_UNKNOWN_CVO_FUNC) << i;
      ASSERT_EQ(e.message, "CVO cvo_func " + hex(func) + ": undefined function code") << i;
      continue;
    }
    const instruction ins = must_decode(w, lim);
    ASSERT_EQ(ins.op, opcode::cvo) << i;
    const auto& c = std::get<cvo_instr>(ins.body);
    ASSERT_EQ(c.func, func) << i;
    ASSERT_EQ(c.src, src) << i;
    ASSERT_EQ(c.dst, dst) << i;
    ASSERT_EQ(c.length, length) << i;
    ASSERT_EQ(c.flags, flags) << i;
    ASSERT_EQ(c.async, async != 0) << i;
    ASSERT_EQ(encode(ins), w) << i;
  }
}

TEST(EncodeHeader, ReservedOpcodesDecodeAsUnknown) {
  for (uint32_t op = UCA_OP_CVO + 1; op <= PCCX_FIELD_MASK(PCCX_OPCODE_W); ++op) {
    const decode_error e = must_fail(pccx_encode_opcode(op), wide_limits());
    EXPECT_EQ(e.code, PCCX_ERR_UNKNOWN_OPCODE) << op;
    EXPECT_EQ(e.message, "opcode " + hex(op) + ": reserved opcode");
  }
}

// Literal words from the spec's field table (the same as the driver's in
// tests/firmware/uca/test_uCA_v1_api.cpp), independent of pccx_isa.h.
TEST(EncodeHeader, WordsMatchSpecBitPositions) {
  EXPECT_EQ(
      pccx_encode_matmul(UCA_OP_GEMV, 0x100, 0x200, UCA_FLAG_FINDEMAX | UCA_FLAG_ACCM, 3, 4, 4, 0),
      0x000800080300c420ull);
  EXPECT_EQ(pccx_encode_matmul(UCA_OP_GEMM, 0x1BFFF, 0x00001, UCA_FLAG_W_SCALE, 63, 0, 1, 0),
            0x1dfff800048fc008ull);
  EXPECT_EQ(pccx_encode_memcpy(1, 0, 0x10, 0x20, 0, 2, 1), 0x2800200020000005ull);
  EXPECT_EQ(pccx_encode_memcpy(1, 1, 0x10, 0x20, 0, 2, 1), 0x2c00200020000005ull);
  EXPECT_EQ(pccx_encode_memset(1, 3, 1, 2048, 2048, 0), 0x3430001080008000ull);
  EXPECT_EQ(
      pccx_encode_cvo(UCA_CVO_EXP, 0x100, 0x200, 2048,
                      UCA_CVO_FLAG_SUB_EMAX | UCA_CVO_FLAG_RECIP_SCALE | UCA_CVO_FLAG_ACCM, 1),
      0x4000800080020039ull);
}

// Values wider than their field are masked to it: all-ones arguments fill
// exactly bits [59:0] under the opcode, so the fields leave no gap and
// nothing spills into the opcode.
TEST(EncodeHeader, OverWideValuesAreMaskedToTheirFields) {
  const uint32_t ones = 0xFFFFFFFFu;
  EXPECT_EQ(pccx_encode_opcode(0x1F), 0xF000000000000000ull);
  EXPECT_EQ(pccx_encode_matmul(UCA_OP_GEMV, ones, ones, ones, ones, ones, ones, ones),
            0x0FFFFFFFFFFFFFFFull);
  EXPECT_EQ(pccx_encode_memcpy(ones, ones, ones, ones, ones, ones, ones), 0x2FFFFFFFFFFFFFFFull);
  EXPECT_EQ(pccx_encode_memset(ones, ones, ones, ones, ones, ones), 0x3FFFFFFFFFFFFFFFull);
  EXPECT_EQ(pccx_encode_cvo(ones, ones, ones, ones, ones, ones), 0x4FFFFFFFFFFFFFFFull);
}
