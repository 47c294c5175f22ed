// BF16 conversions: exact widening, round to nearest even (ties, carries
// into the exponent, overflow to inf), NaN/inf/subnormals, single rounding
// from double, and the L2 element layout.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "models/npu/units/bf16.h"

using namespace pccx::npu;

namespace {
float f_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
}  // namespace

TEST(Bf16, WideningIsExact) {
  EXPECT_EQ(bf16::to_float(0x3F80), 1.0f);
  EXPECT_EQ(bf16::to_float(0xC000), -2.0f);
  EXPECT_EQ(bf16::to_float(0x3F81), 1.0f + 1.0f / 128);
  EXPECT_TRUE(std::signbit(bf16::to_float(0x8000)));
  for (uint32_t b = 0; b < 0x10000; b += 7) {
    if (!bf16::is_nan(static_cast<uint16_t>(b))) {
      EXPECT_EQ(bf16::from_float(bf16::to_float(static_cast<uint16_t>(b))), b);
    }
  }
}

TEST(Bf16, RoundsToNearestEven) {
  EXPECT_EQ(bf16::from_float(f_of(0x3F808000)), 0x3F80);  // tie, even below: down
  EXPECT_EQ(bf16::from_float(f_of(0x3F818000)), 0x3F82);  // tie, odd below: up
  EXPECT_EQ(bf16::from_float(f_of(0x3F808001)), 0x3F81);  // above the tie: up
  EXPECT_EQ(bf16::from_float(f_of(0x3F807FFF)), 0x3F80);  // below the tie: down
  EXPECT_EQ(bf16::from_float(f_of(0xBF818000)), 0xBF82);  // negative tie
  EXPECT_EQ(bf16::from_float(f_of(0x3FFF8000)), 0x4000);  // carry into the exponent
  EXPECT_EQ(bf16::from_float(1.00390625f), 0x3F80);       // 1 + 2^-8 is a tie
}

TEST(Bf16, InfNanOverflowAndSubnormals) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(bf16::from_float(inf), bf16::kPosInf);
  EXPECT_EQ(bf16::from_float(-inf), bf16::kNegInf);
  EXPECT_EQ(bf16::from_float(std::numeric_limits<float>::max()), bf16::kPosInf);  // RNE overflow
  EXPECT_EQ(bf16::from_float(f_of(0x7F7F7FFF)), 0x7F7F);  // largest finite stays
  EXPECT_TRUE(bf16::is_nan(bf16::from_float(std::nanf(""))));
  EXPECT_EQ(bf16::from_float(f_of(0x7F800001)) & 0x7FFF, 0x7FC0);  // payload in the low bits
  EXPECT_EQ(bf16::from_float(f_of(0xFF800001)), 0xFFC0);           // sign kept
  EXPECT_EQ(bf16::from_float(f_of(0x00008000)), 0x0000);           // subnormal tie to even
  EXPECT_EQ(bf16::from_float(f_of(0x00018000)), 0x0002);
  EXPECT_EQ(bf16::from_float(f_of(0x00010000)), 0x0001);  // smallest subnormal kept
  EXPECT_EQ(bf16::from_float(-0.0f), 0x8000);
}

TEST(Bf16, FromDoubleRoundsOnce) {
  // 1 + 2^-8 + 2^-30: rounding to float first would land on the tie and
  // round down to even; correctly rounded it is just above the tie: up.
  EXPECT_EQ(bf16::from_double(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30)), 0x3F81);
  EXPECT_EQ(bf16::from_double(1.0 + std::ldexp(1.0, -8)), 0x3F80);
  EXPECT_EQ(bf16::from_double(1e40), bf16::kPosInf);
  EXPECT_EQ(bf16::from_double(-1e-50), 0x8000);
  EXPECT_EQ(bf16::from_double(3.0), 0x4040);
  EXPECT_TRUE(bf16::is_nan(bf16::from_double(std::nan(""))));
}

TEST(Bf16, UlpDistanceAndLayout) {
  EXPECT_EQ(bf16::ulp_distance(0x3F80, 0x3F81), 1u);
  EXPECT_EQ(bf16::ulp_distance(0x0000, 0x8000), 0u);
  EXPECT_EQ(bf16::ulp_distance(0x0001, 0x8001), 2u);
  EXPECT_EQ(bf16::ulp_distance(0x7F7F, bf16::kPosInf), 1u);
  uint8_t w[16] = {};
  bf16::store(w, 3, 0xABCD);
  EXPECT_EQ(w[6], 0xCD);
  EXPECT_EQ(w[7], 0xAB);
  EXPECT_EQ(bf16::load(w, 3), 0xABCD);
}
