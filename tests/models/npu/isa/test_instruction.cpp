// The decoder and encoder (models/npu/isa/instruction): every illegal
// encoding yields its documented PCCX_ERR_* code and message, and the
// priority order holds when several checks fail; raw words decode to their
// fields and encode(decode(w)) == w, over randomized legal values (fixed
// seeds).
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

#include "isa_test_util.h"
#include "models/npu/isa/instruction.h"
#include "pccx_isa_encode.h"
#include "uCA_v1_api.h"

using namespace pccx::isa;
using isa_test::cvo_word;
using isa_test::mc_word;
using isa_test::mm_word;
using isa_test::ms_word;
using isa_test::must_decode;
using isa_test::must_fail;

namespace {

constexpr int kCases = 5000;
// The platform's strict reading (simulation.strict): the checks below are
// those it makes; UpstreamReadings shows what the default accepts besides.
decode_limits strict_limits() {
  decode_limits l;
  l.upstream_readings = false;
  return l;
}
const decode_limits kLim = strict_limits();
constexpr uint32_t kLast = 114687;  // last L2 word with the default limits

uint32_t pick(std::mt19937& rng, uint32_t lo, uint32_t hi) {
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
}

void expect_error(uint64_t word, const decode_limits& lim, uint32_t code, const std::string& msg) {
  const decode_error e = must_fail(word, lim);
  EXPECT_EQ(e.code, code) << error_name(e.code) << ": " << e.message;
  EXPECT_EQ(e.message, msg);
}

}  // namespace

TEST(DecodeError, UnknownOpcode) {
  for (uint32_t op = 0x5; op <= 0xF; ++op) {
    char msg[64];
    std::snprintf(msg, sizeof msg, "opcode 0x%x: reserved opcode", static_cast<unsigned>(op));
    expect_error(pccx_encode_opcode(op), kLim, PCCX_ERR_UNKNOWN_OPCODE, msg);
  }
  // The RTL's kick marker decodes as opcode 0x8.
  expect_error(0x8000000000000000ull, kLim, PCCX_ERR_UNKNOWN_OPCODE, "opcode 0x8: reserved opcode");
}

TEST(DecodeError, ReservedBitsMatmul) {
  expect_error(mm_word(0, 0, 0, 0, 0, 0, 0, 0x5), kLim, PCCX_ERR_RESERVED_BITS,
               "GEMV reserved bits [2:0] = 0x5 must be zero");
  expect_error(mm_word(0, 0, 0, 0x25, 0, 0, 0), kLim, PCCX_ERR_RESERVED_BITS,
               "GEMV flags reserved bits [2:0] = 0x5 must be zero (GEMV weight formats: 1 KV key "
               "rows, 2 KV value accumulate)");
  // GEMV flags[2:0] = 1, 2 select a KV weight stream (platform extension).
  must_decode(mm_word(0, 0, 0, 0x21, 0, 0, 0), kLim);
  must_decode(mm_word(0, 0, 0, 0x02, 0, 0, 0), kLim);
  decode_limits no_kv = kLim;
  no_kv.gemv_kv_formats = false;
  expect_error(mm_word(0, 0, 0, 0x01, 0, 0, 0), no_kv, PCCX_ERR_RESERVED_BITS,
               "GEMV flags reserved bits [2:0] = 0x1 must be zero (KV weight formats are off: "
               "npu.kv.gemv_formats)");
  expect_error(mm_word(0, 0, 0, 0x03, 0, 0, 0), no_kv, PCCX_ERR_RESERVED_BITS,
               "GEMV flags reserved bits [2:0] = 0x3 must be zero");
  expect_error(mm_word(1, 0, 0, 0x01, 0, 0, 0), kLim, PCCX_ERR_RESERVED_BITS,
               "GEMM flags reserved bits [2:0] = 0x1 must be zero");
  expect_error(mm_word(1, 0, 0, 0, 0, 0, 0, 0x4), kLim, PCCX_ERR_RESERVED_BITS,
               "GEMM reserved bits [2:0] = 0x4 must be zero");
}

TEST(DecodeError, ReservedBitsMemcpyAux) {
  expect_error(mc_word(1, 0, 0, 0, 0x10, 0, 0), kLim, PCCX_ERR_RESERVED_BITS,
               "MEMCPY aux_addr = 0x00010 must be zero: host addresses come from DMA descriptors");
}

TEST(DecodeError, ReservedBitsMemset) {
  expect_error(ms_word(0, 0, 1, 1, 1, 0x3), kLim, PCCX_ERR_RESERVED_BITS,
               "MEMSET reserved bits [3:0] = 0x3 must be zero");
}

TEST(DecodeError, ReservedBitsCvoFlags) {
  expect_error(cvo_word(0, 0, 0, 8, 0x01, 0), kLim, PCCX_ERR_RESERVED_BITS,
               "CVO flags reserved bits [1:0] = 0x1 must be zero");
  expect_error(cvo_word(0, 0, 0, 8, 0x12, 0), kLim, PCCX_ERR_RESERVED_BITS,
               "CVO flags reserved bits [1:0] = 0x2 must be zero");
}

TEST(DecodeError, UnknownCvoFunc) {
  for (uint32_t f = PCCX_CVO_LAST_DEFINED + 1; f <= 0xF; ++f) {
    char msg[64];
    std::snprintf(msg, sizeof msg, "CVO cvo_func 0x%x: undefined function code", f);
    expect_error(cvo_word(f, 0, 0, 8, 0, 0), kLim, PCCX_ERR_UNKNOWN_CVO_FUNC, msg);
  }
}

TEST(DecodeError, CvoExtensionsSwitchable) {
  decode_limits off = kLim;
  off.cvo_extensions = false;
  expect_error(cvo_word(PCCX_CVO_TANH, 0, 0, 8, 0, 0), off, PCCX_ERR_UNKNOWN_CVO_FUNC,
               "CVO cvo_func 0x8 (TANH): platform extension disabled");
  expect_error(cvo_word(PCCX_CVO_MAX, 0, 0, 8, 0, 0), off, PCCX_ERR_UNKNOWN_CVO_FUNC,
               "CVO cvo_func 0xb (MAX): platform extension disabled");
  // The base functions stay legal, and the extensions are legal when on.
  for (uint32_t f = 0; f <= UCA_CVO_RECIP; ++f) must_decode(cvo_word(f, 0, 0, 8, 0, 0), off);
  for (uint32_t f = PCCX_CVO_TANH; f <= PCCX_CVO_LAST_DEFINED; ++f)
    must_decode(cvo_word(f, 0, 0, 8, 0, 0), kLim);
}

TEST(DecodeError, InvalidLanes) {
  expect_error(mm_word(0, 0, 0, 0, 0, 0, 5), kLim, PCCX_ERR_INVALID_LANES,
               "GEMV lanes 5 exceeds the 4 GEMV cores (0 = all); strict reading: a count, not the "
               "upstream API's core mask");
  decode_limits two = kLim;
  two.gemv_cores = 2;
  expect_error(mm_word(0, 0, 0, 0, 0, 0, 3), two, PCCX_ERR_INVALID_LANES,
               "GEMV lanes 3 exceeds the 2 GEMV cores (0 = all); strict reading: a count, not the "
               "upstream API's core mask");
  must_decode(mm_word(0, 0, 0, 0, 0, 0, 2), two);
  // Bit 4 selects head-parallel partitioning; the core count is bits 3:0.
  must_decode(mm_word(0, 0, 0, 0, 0, 0, 0x10 | 2), two);
  must_decode(mm_word(0, 0, 0, 0, 0, 0, 0x10), kLim);
  expect_error(mm_word(0, 0, 0, 0, 0, 0, 0x10 | 3), two, PCCX_ERR_INVALID_LANES,
               "GEMV lanes 19 (head-parallel, 3 cores) exceeds the 2 GEMV cores (0 = all); strict "
               "reading: a count, not the upstream API's core mask");
  decode_limits no_head = kLim;
  no_head.gemv_head_parallel = false;
  expect_error(mm_word(0, 0, 0, 0, 0, 0, 0x10 | 4), no_head, PCCX_ERR_INVALID_LANES,
               "GEMV lanes 20: bit 4 (head-parallel) is a platform extension and "
               "npu.gemv.head_parallel is off");
  must_decode(mm_word(0, 0, 0, 0, 0, 0, 4), no_head);
  expect_error(mm_word(1, 0, 0, 0, 0, 0, 2), kLim, PCCX_ERR_INVALID_LANES,
               "GEMM lanes 2: the single systolic array takes 0 or 1 (strict reading; otherwise "
               "the lanes are ignored)");
  expect_error(mm_word(1, 0, 0, 0, 0, 0, 31), kLim, PCCX_ERR_INVALID_LANES,
               "GEMM lanes 31: the single systolic array takes 0 or 1 (strict reading; otherwise "
               "the lanes are ignored)");
}

TEST(DecodeError, InvalidCacheSlots) {
  decode_limits small = kLim;
  small.cache_slots = 32;
  expect_error(mm_word(0, 0, 0, 0, 32, 0, 0), small, PCCX_ERR_INVALID_CACHE,
               "GEMV size_ptr 32 beyond the 32 constant-cache slots");
  expect_error(mm_word(1, 0, 0, 0, 0, 63, 0), small, PCCX_ERR_INVALID_CACHE,
               "GEMM shape_ptr 63 beyond the 32 constant-cache slots");
  expect_error(mc_word(0, 0, 0, 0, 0, 40, 0), small, PCCX_ERR_INVALID_CACHE,
               "MEMCPY shape_ptr 40 beyond the 32 constant-cache slots");
  expect_error(ms_word(1, 33, 0, 0, 0), small, PCCX_ERR_INVALID_CACHE,
               "MEMSET dest_addr 33 beyond the 32 constant-cache slots");
  must_decode(mm_word(0, 0, 0, 0, 31, 31, 0), small);
  must_decode(ms_word(1, 31, 0, 0, 0), small);
}

TEST(DecodeError, InvalidCacheBank) {
  decode_limits shapes_only = kLim;
  shapes_only.enabled_banks = 0x3;
  expect_error(ms_word(2, 0, 0x3f80, 0, 0), shapes_only, PCCX_ERR_INVALID_CACHE,
               "MEMSET dest_cache 2 (head_scale): bank not enabled");
  expect_error(ms_word(3, 0, 0, 0, 0), shapes_only, PCCX_ERR_INVALID_CACHE,
               "MEMSET dest_cache 3 (channel_scale): bank not enabled");
  must_decode(ms_word(1, 0, 0, 0, 0), shapes_only);
  decode_limits no_fmap = kLim;
  no_fmap.enabled_banks = 0xE;
  expect_error(ms_word(0, 0, 0, 0, 0), no_fmap, PCCX_ERR_INVALID_CACHE,
               "MEMSET dest_cache 0 (fmap_shape): bank not enabled");
}

TEST(DecodeError, InvalidRoute) {
  decode_limits no_kv = kLim;
  no_kv.kv_append = false;
  expect_error(mc_word(1, 1, 0, 0, 0, 0, 0), no_kv, PCCX_ERR_INVALID_ROUTE,
               "MEMCPY route kv-append (from_device=1, to_device=1): KV append path disabled");
  must_decode(mc_word(1, 0, 0, 0, 0, 0, 0), no_kv);
  must_decode(mc_word(0, 1, 0, 0, 0, 0, 0), no_kv);
  must_decode(mc_word(0, 0, 0, 0, 0, 0, 0), no_kv);
  must_decode(mc_word(1, 1, 0, 0, 0, 0, 0), kLim);
}

TEST(DecodeError, ZeroLength) {
  expect_error(cvo_word(UCA_CVO_EXP, 0, 0, 0, 0, 0), kLim, PCCX_ERR_ZERO_LENGTH,
               "CVO length 0: zero-length transfer");
}

TEST(DecodeError, LengthTooLarge) {
  expect_error(cvo_word(UCA_CVO_GELU, 0, 0x1000, 2049, 0, 0), kLim, PCCX_ERR_LENGTH_TOO_LARGE,
               "CVO length 2049 exceeds the limit of 2048 elements (strict reading; otherwise it "
               "runs in passes)");
  expect_error(cvo_word(UCA_CVO_GELU, 0, 0x1000, 0xFFFF, 0, 0), kLim, PCCX_ERR_LENGTH_TOO_LARGE,
               "CVO length 65535 exceeds the limit of 2048 elements (strict reading; otherwise it "
               "runs in passes)");
  decode_limits big = kLim;
  big.cvo_max_length = 65535;
  must_decode(cvo_word(UCA_CVO_GELU, 0, 0x10000, 0xFFFF, 0, 0), big);
}

// What the default (not strict) decoder accepts of the upstream artefacts:
// GEMV lanes above the core count as a core mask, GEMM lanes, long CVOs.
TEST(UpstreamReadings, LanesMaskGemmLanesAndLongCvo) {
  const decode_limits lim{};
  ASSERT_TRUE(lim.upstream_readings);
  must_decode(mm_word(0, 0, 0, 0, 0, 0, 0x0F), lim);  // the API docs' "all four cores"
  must_decode(mm_word(1, 0, 0, 0, 0, 0, 4), lim);     // the smoke program's GEMM
  must_decode(cvo_word(UCA_CVO_GELU, 0, 0x1000, 4096, 0, 0), lim);
  // A mask needs its bits inside the cores: 2 cores take 0..3 only.
  decode_limits two = lim;
  two.gemv_cores = 2;
  EXPECT_EQ(must_fail(mm_word(0, 0, 0, 0, 0, 0, 5), two).code, PCCX_ERR_INVALID_LANES);

  const auto count = pccx::isa::gemv_lanes(3, 4, true);
  ASSERT_TRUE(count);
  EXPECT_EQ(count->cores, 3u);
  EXPECT_FALSE(count->mask);
  const auto all = pccx::isa::gemv_lanes(0, 4, true);
  EXPECT_EQ(all->cores, 4u);
  const auto mask = pccx::isa::gemv_lanes(0x0F, 4, true);
  ASSERT_TRUE(mask);
  EXPECT_EQ(mask->cores, 4u);
  EXPECT_TRUE(mask->mask);
  EXPECT_EQ(pccx::isa::gemv_lanes(0x0C, 4, true)->cores, 2u);
  EXPECT_FALSE(pccx::isa::gemv_lanes(0x0F, 4, false));
}

TEST(DecodeError, L2RangeStartAddresses) {
  expect_error(mm_word(0, kLast + 1, 0, 0, 0, 0, 0), kLim, PCCX_ERR_L2_RANGE,
               "GEMV dest_reg 0x1c000 beyond the last L2 word 0x1bfff");
  expect_error(mm_word(1, 0, 0x1FFFF, 0, 0, 0, 0), kLim, PCCX_ERR_L2_RANGE,
               "GEMM src_addr 0x1ffff beyond the last L2 word 0x1bfff");
  expect_error(mc_word(1, 0, 0x1C000, 0, 0, 0, 0), kLim, PCCX_ERR_L2_RANGE,
               "MEMCPY dest 0x1c000 beyond the last L2 word 0x1bfff");
  expect_error(mc_word(0, 1, 0, 0x1C001, 0, 0, 0), kLim, PCCX_ERR_L2_RANGE,
               "MEMCPY src 0x1c001 beyond the last L2 word 0x1bfff");
  expect_error(cvo_word(0, 0x1C000, 0, 8, 0, 0), kLim, PCCX_ERR_L2_RANGE,
               "CVO src 0x1c000 beyond the last L2 word 0x1bfff");
  expect_error(cvo_word(0, 0, 0x1C000, 8, 0, 0), kLim, PCCX_ERR_L2_RANGE,
               "CVO dst 0x1c000 beyond the last L2 word 0x1bfff");
  // The last word itself is legal.
  must_decode(mm_word(0, kLast, kLast, 0, 0, 0, 0), kLim);
  must_decode(mc_word(0, 0, kLast, kLast, 0, 0, 0), kLim);
}

TEST(DecodeError, L2RangeCvoSourceEnd) {
  // 2048 elements = 256 words: src = last - 255 fits exactly, one more does not.
  must_decode(cvo_word(UCA_CVO_EXP, kLast - 255, 0, 2048, 0, 0), kLim);
  expect_error(cvo_word(UCA_CVO_EXP, kLast - 254, 0, 2048, 0, 0), kLim, PCCX_ERR_L2_RANGE,
               "CVO source range 0x1bf01..0x1c000 (256 words for 2048 elements) ends beyond "
               "the last L2 word 0x1bfff");
  // 9 elements round up to 2 words.
  must_decode(cvo_word(UCA_CVO_EXP, kLast, 0, 8, 0, 0), kLim);
  expect_error(cvo_word(UCA_CVO_EXP, kLast, 0, 9, 0, 0), kLim, PCCX_ERR_L2_RANGE,
               "CVO source range 0x1bfff..0x1c000 (2 words for 9 elements) ends beyond the last "
               "L2 word 0x1bfff");
}

TEST(DecodeError, L2RangeCvoDestinationEnd) {
  // REDUCE_SUM writes one word whatever the length.
  must_decode(cvo_word(UCA_CVO_REDUCE_SUM, 0, kLast, 2048, 0, 0), kLim);
  // Every other function writes ceil(length / 8) words.
  expect_error(cvo_word(UCA_CVO_SCALE, 0, kLast, 9, 0, 0), kLim, PCCX_ERR_L2_RANGE,
               "CVO destination range 0x1bfff..0x1c000 (2 words for 9 elements) ends beyond the "
               "last L2 word 0x1bfff");
  must_decode(cvo_word(UCA_CVO_SCALE, 0, kLast - 1, 9, 0, 0), kLim);
  expect_error(cvo_word(PCCX_CVO_ADD, 0, kLast - 100, 2048, 0, 0), kLim, PCCX_ERR_L2_RANGE,
               "CVO destination range 0x1bf9b..0x1c09a (256 words for 2048 elements) ends beyond "
               "the last L2 word 0x1bfff");
}

TEST(DecodeError, L2RangeFollowsConfiguredSize) {
  decode_limits small = kLim;
  small.l2_words = 0x100;
  expect_error(mm_word(0, 0x100, 0, 0, 0, 0, 0), small, PCCX_ERR_L2_RANGE,
               "GEMV dest_reg 0x00100 beyond the last L2 word 0x000ff");
  must_decode(mm_word(0, 0xFF, 0xFF, 0, 0, 0, 0), small);
}

// ---- priority: opcode, reserved bits, function code, lanes, cache, route,
// zero length, length too large, L2 range ----

TEST(DecodePriority, OpcodeBeforeEverything) {
  EXPECT_EQ(must_fail(0xFFFFFFFFFFFFFFFFull, kLim).code, PCCX_ERR_UNKNOWN_OPCODE);
}

TEST(DecodePriority, ReservedBeforeFunctionCode) {
  EXPECT_EQ(must_fail(cvo_word(0xF, 0x1FFFF, 0x1FFFF, 0, 0x3, 0), kLim).code,
            PCCX_ERR_RESERVED_BITS);
}

TEST(DecodePriority, ReservedBeforeLanesCacheAndRange) {
  decode_limits small = kLim;
  small.cache_slots = 8;
  const decode_error e = must_fail(mm_word(0, 0x1FFFF, 0x1FFFF, 0x07, 63, 63, 31, 0x7), small);
  EXPECT_EQ(e.code, PCCX_ERR_RESERVED_BITS);
  // Within one step the most significant field wins: flags[22:20] before rsv[2:0].
  EXPECT_EQ(e.message,
            "GEMV flags reserved bits [2:0] = 0x7 must be zero (GEMV weight formats: 1 KV key "
            "rows, 2 KV value accumulate)");
  small.kv_append = false;
  EXPECT_EQ(must_fail(mc_word(1, 1, 0x1FFFF, 0x1FFFF, 1, 63, 0), small).code,
            PCCX_ERR_RESERVED_BITS);
  small.enabled_banks = 0;
  EXPECT_EQ(must_fail(ms_word(3, 63, 0, 0, 0, 1), small).code, PCCX_ERR_RESERVED_BITS);
}

TEST(DecodePriority, FunctionCodeBeforeLengthAndRange) {
  EXPECT_EQ(must_fail(cvo_word(0xC, 0x1FFFF, 0x1FFFF, 0, 0, 0), kLim).code,
            PCCX_ERR_UNKNOWN_CVO_FUNC);
  EXPECT_EQ(must_fail(cvo_word(0xC, 0, 0, 4000, 0, 0), kLim).code, PCCX_ERR_UNKNOWN_CVO_FUNC);
}

TEST(DecodePriority, LanesBeforeCacheBeforeRange) {
  decode_limits small = kLim;
  small.cache_slots = 8;
  EXPECT_EQ(must_fail(mm_word(0, 0x1FFFF, 0, 0, 63, 0, 9), small).code, PCCX_ERR_INVALID_LANES);
  const decode_error e = must_fail(mm_word(1, 0x1FFFF, 0, 0, 9, 10, 1), small);
  EXPECT_EQ(e.code, PCCX_ERR_INVALID_CACHE);
  EXPECT_EQ(e.message, "GEMM size_ptr 9 beyond the 8 constant-cache slots");
}

TEST(DecodePriority, CacheBeforeRouteBeforeRange) {
  decode_limits lim = kLim;
  lim.cache_slots = 8;
  lim.kv_append = false;
  EXPECT_EQ(must_fail(mc_word(1, 1, 0x1FFFF, 0, 0, 9, 0), lim).code, PCCX_ERR_INVALID_CACHE);
  EXPECT_EQ(must_fail(mc_word(1, 1, 0x1FFFF, 0x1FFFF, 0, 7, 0), lim).code, PCCX_ERR_INVALID_ROUTE);
  lim.enabled_banks = 0x1;
  const decode_error e = must_fail(ms_word(2, 60, 0, 0, 0), lim);
  EXPECT_EQ(e.code, PCCX_ERR_INVALID_CACHE);
  EXPECT_EQ(e.message, "MEMSET dest_cache 2 (head_scale): bank not enabled");
}

TEST(DecodePriority, ZeroLengthBeforeRange) {
  EXPECT_EQ(must_fail(cvo_word(0, 0x1FFFF, 0x1FFFF, 0, 0, 0), kLim).code, PCCX_ERR_ZERO_LENGTH);
}

TEST(DecodePriority, LengthTooLargeBeforeRange) {
  EXPECT_EQ(must_fail(cvo_word(0, 0x1FFFF, 0x1FFFF, 4096, 0, 0), kLim).code,
            PCCX_ERR_LENGTH_TOO_LARGE);
}

TEST(DecodePriority, RangeStartsBeforeRangeEnds) {
  // src start in range, dst start out of range, src range end out of range:
  // the dst start address is reported first.
  const decode_error e = must_fail(cvo_word(0, kLast, 0x1C000, 2048, 0, 0), kLim);
  EXPECT_EQ(e.code, PCCX_ERR_L2_RANGE);
  EXPECT_EQ(e.message, "CVO dst 0x1c000 beyond the last L2 word 0x1bfff");
  EXPECT_EQ(must_fail(cvo_word(0, 0x1C000, 0x1C000, 8, 0, 0), kLim).message,
            "CVO src 0x1c000 beyond the last L2 word 0x1bfff");
  EXPECT_EQ(must_fail(mm_word(0, 0x1C000, 0x1C000, 0, 0, 0, 0), kLim).message,
            "GEMV dest_reg 0x1c000 beyond the last L2 word 0x1bfff");
}

TEST(Names, ErrorNamesForEveryCode) {
  const std::pair<uint32_t, const char*> names[] = {
      {PCCX_ERR_NONE, "ERR_NONE"},
      {PCCX_ERR_UNKNOWN_OPCODE, "ERR_UNKNOWN_OPCODE"},
      {PCCX_ERR_RESERVED_BITS, "ERR_RESERVED_BITS"},
      {PCCX_ERR_UNKNOWN_CVO_FUNC, "ERR_UNKNOWN_CVO_FUNC"},
      {PCCX_ERR_L2_RANGE, "ERR_L2_RANGE"},
      {PCCX_ERR_ZERO_LENGTH, "ERR_ZERO_LENGTH"},
      {PCCX_ERR_LENGTH_TOO_LARGE, "ERR_LENGTH_TOO_LARGE"},
      {PCCX_ERR_UNWRITTEN_SLOT, "ERR_UNWRITTEN_SLOT"},
      {PCCX_ERR_INVALID_ROUTE, "ERR_INVALID_ROUTE"},
      {PCCX_ERR_INVALID_CACHE, "ERR_INVALID_CACHE"},
      {PCCX_ERR_INVALID_LANES, "ERR_INVALID_LANES"},
      {PCCX_ERR_UNIT_UNAVAILABLE, "ERR_UNIT_UNAVAILABLE"},
      {PCCX_ERR_UNIT_FAULT, "ERR_UNIT_FAULT"},
      {PCCX_ERR_DMA_ADDRESS, "ERR_DMA_ADDRESS"},
  };
  for (const auto& [code, name] : names) EXPECT_EQ(error_name(code), name);
  EXPECT_EQ(error_name(0x0E), "ERR_0x0E");
}

TEST(Names, OpcodeAndCvoFunctionNames) {
  EXPECT_EQ(opcode_name(opcode::gemv), "GEMV");
  EXPECT_EQ(opcode_name(opcode::gemm), "GEMM");
  EXPECT_EQ(opcode_name(opcode::memcpy), "MEMCPY");
  EXPECT_EQ(opcode_name(opcode::memset), "MEMSET");
  EXPECT_EQ(opcode_name(opcode::cvo), "CVO");
  const char* funcs[] = {"EXP",   "SQRT",  "GELU", "SIN", "COS", "REDUCE_SUM",
                         "SCALE", "RECIP", "TANH", "MUL", "ADD", "MAX"};
  for (uint8_t f = 0; f < 12; ++f) EXPECT_EQ(cvo_func_name(f), funcs[f]);
  EXPECT_EQ(cvo_func_name(0xC), "FUNC_0xC");
  EXPECT_EQ(cvo_func_name(0xF), "FUNC_0xF");
  EXPECT_EQ(memcpy_route_name(memcpy_route::kv_append), "kv-append");
  EXPECT_EQ(cache_bank_name(3), "channel_scale");
}

// ---- round trips ----

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
