// Record layouts byte by byte: binary16 conversion, INT8/INT4 codes and
// scales, rotated index packing across byte boundaries and the residual
// sketch fields, zeroed padding.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kv_test_util.h"

using namespace kvtest;
using pccx::kv::fp16_from_float;
using pccx::kv::fp16_to_float;
using pccx::kv::kv_codec;

namespace {

using bytes = std::vector<uint8_t>;

bytes encode(const kv_format& f, const std::vector<float>& x) {
  kv_codec c(f);
  bytes out(f.record_bytes(), 0xAA);  // padding must come back zeroed
  c.encode(x.data(), out.data());
  return out;
}

std::vector<float> decode(const kv_format& f, const bytes& r, bool rotated_basis = false) {
  kv_codec c(f);
  std::vector<float> out(f.head_dim);
  if (rotated_basis) {
    c.decode_rotated(r.data(), out.data());
  } else {
    c.decode(r.data(), out.data());
  }
  return out;
}

uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

}  // namespace

TEST(KvFp16, ConversionOfSpecialValues) {
  EXPECT_EQ(fp16_from_float(1.0f), 0x3C00);
  EXPECT_EQ(fp16_from_float(-2.0f), 0xC000);
  EXPECT_EQ(fp16_from_float(0.0f), 0x0000);
  EXPECT_EQ(fp16_from_float(-0.0f), 0x8000);
  EXPECT_EQ(fp16_from_float(65504.0f), 0x7BFF);
  EXPECT_EQ(fp16_from_float(65519.996f), 0x7BFF);
  EXPECT_EQ(fp16_from_float(65520.0f), 0x7C00);  // the tie rounds to even: inf
  EXPECT_EQ(fp16_from_float(kInf), 0x7C00);
  EXPECT_EQ(fp16_from_float(-kInf), 0xFC00);
  EXPECT_EQ(fp16_from_float(kNaN), 0x7E00);
  EXPECT_EQ(fp16_from_float(-kNaN), 0xFE00);
  EXPECT_EQ(fp16_from_float(1.0f / 3.0f), 0x3555);
  EXPECT_EQ(fp16_from_float(1.0f + 0x1p-11f), 0x3C00);      // tie, even down
  EXPECT_EQ(fp16_from_float(1.0f + 3 * 0x1p-11f), 0x3C02);  // tie, even up
  EXPECT_EQ(fp16_from_float(0x1p-14f), 0x0400);             // smallest normal
  EXPECT_EQ(fp16_from_float(0x1p-14f - 0x1p-25f), 0x0400);  // tie carries into normal
  EXPECT_EQ(fp16_from_float(0x1p-24f), 0x0001);             // smallest subnormal
  EXPECT_EQ(fp16_from_float(0x1p-25f), 0x0000);             // tie to even 0
  EXPECT_EQ(fp16_from_float(0x1.8p-25f), 0x0001);
  EXPECT_EQ(fp16_from_float(3 * 0x1p-25f), 0x0002);   // 1.5 units: even 2
  EXPECT_EQ(fp16_from_float(-5 * 0x1p-25f), 0x8002);  // 2.5 units: even 2
  EXPECT_EQ(fp16_from_float(std::numeric_limits<float>::denorm_min()), 0x0000);

  EXPECT_EQ(fp16_to_float(0x3C00), 1.0f);
  EXPECT_EQ(fp16_to_float(0x0001), 0x1p-24f);
  EXPECT_EQ(fp16_to_float(0x03FF), 1023 * 0x1p-24f);
  EXPECT_EQ(fp16_to_float(0x7BFF), 65504.0f);
  EXPECT_EQ(fp16_to_float(0xFC00), -kInf);
  EXPECT_TRUE(std::isnan(fp16_to_float(0x7E00)));
  EXPECT_EQ(float_bits(fp16_to_float(0x8000)), 0x80000000u);
}

TEST(KvFp16, EveryValueRoundTripsAndEveryMidpointRoundsToEven) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = fp16_to_float(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(fp16_to_float(fp16_from_float(f))));
      continue;
    }
    ASSERT_EQ(fp16_from_float(f), h) << std::hex << h;
  }
  for (uint32_t h = 0; h < 0x7C00; ++h) {
    const float lo = fp16_to_float(static_cast<uint16_t>(h));
    const float hi = h == 0x7BFF ? 65536.0f : fp16_to_float(static_cast<uint16_t>(h + 1));
    const float mid = 0.5f * (lo + hi);  // exact: 11 significant bits at most
    const uint32_t even = (h & 1u) ? h + 1 : h;
    ASSERT_EQ(fp16_from_float(mid), even) << std::hex << h;
    ASSERT_EQ(fp16_from_float(std::nextafter(mid, 0.0f)), h) << std::hex << h;
    ASSERT_EQ(fp16_from_float(std::nextafter(mid, kInf)), h + 1) << std::hex << h;
    ASSERT_EQ(fp16_from_float(-mid), even | 0x8000u) << std::hex << h;
  }
}

TEST(KvLayout, Fp16RecordBytes) {
  const std::vector<float> x = {1.0f,     -2.0f,    0.5f, 65504.0f, 1.0f / 3.0f, -0.0f,
                                0x1p-24f, 70000.0f, kInf, -kInf,    kNaN,        0x1p-14f,
                                0.0f,     0.0f,     0.0f, 1.5f,     -1.0f};
  const bytes r = encode(fp16(17), x);
  const bytes want = {0x00, 0x3C, 0x00, 0xC0, 0x00, 0x38, 0xFF, 0x7B, 0x55, 0x35, 0x00, 0x80,
                      0x01, 0x00, 0xFF, 0x7B, 0xFF, 0x7B, 0xFF, 0xFB, 0x00, 0x00, 0x00, 0x04,
                      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3E, 0x00, 0xBC, 0,    0,
                      0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0};
  EXPECT_EQ(r, want);
}

TEST(KvLayout, Int8StaticCodes) {
  const std::vector<float> x = {0.0f,   0.5f,   1.5f,    2.5f, -0.5f, -1.5f, 126.6f, 127.5f,
                                200.0f, -200.f, -127.4f, kNaN, kInf,  -kInf, 3.49f,  -3.5f};
  const bytes r = encode(int8(0, 16), x);
  const bytes want = {0x00, 0x00, 0x02, 0x02, 0x00, 0xFE, 0x7F, 0x7F,
                      0x7F, 0x81, 0x81, 0x00, 0x7F, 0x81, 0x03, 0xFC};
  EXPECT_EQ(r, want);
  const std::vector<float> back = decode(int8(0, 16), r);
  const std::vector<float> want_back = {0,   0,    2,    2, 0,   -2,   127, 127,
                                        127, -127, -127, 0, 127, -127, 3,   -4};
  EXPECT_EQ(back, want_back);
}

TEST(KvLayout, Int8GroupScalesThenCodes) {
  // Group 0: max |x| = 127/16, so the scale is exactly 1/16 (BF16 0x3D80).
  // Group 1: all zero, scale 1 (0x3F80).
  std::vector<float> x = {7.9375f, -7.9375f, 0.1875f, 0.03125f, 0.09375f, -0.15625f, 1.0f, -3.3f};
  x.resize(16, 0.0f);
  const bytes r = encode(int8(8, 16), x);
  const bytes want = {0x80, 0x3D, 0x80, 0x3F,                                       // scales
                      0x7F, 0x81, 0x03, 0x00, 0x02, 0xFE, 0x10, 0xCB,               // group 0
                      0,    0,    0,    0,    0,    0,    0,    0,                  // group 1
                      0,    0,    0,    0,    0,    0,    0,    0,    0, 0, 0, 0};  // padding
  EXPECT_EQ(r, want);
}

TEST(KvLayout, Int4Group32KnownVector) {
  // Group 0 (elements 0..31): max |x| = 3.5, scale 0.5 exactly (0x3F00).
  // Group 1 (32..63): max |x| = 1, scale BF16(1/7) = 0x3E12 = 0.142578125.
  std::vector<float> x = {3.5f, -3.5f, 0.25f, 0.75f, -1.25f, 1.0f, -0.6f, 2.9f};
  for (int i = 8; i < 32; ++i) x.push_back(0.5f * static_cast<float>(i % 15 - 7));
  x.push_back(1.0f);
  x.push_back(-1.0f);
  x.push_back(0.5f);   // 3.507 -> 4
  x.push_back(-0.3f);  // -2.104 -> -2
  x.resize(64, 0.0f);
  const bytes r = encode(int4(32, 64), x);
  bytes want = {0x00, 0x3F, 0x12, 0x3E,                          // scales
                0x97, 0x20, 0x2E, 0x6F, 0x21, 0x43, 0x65, 0x97,  // group 0
                0xBA, 0xDC, 0xFE, 0x10, 0x32, 0x54, 0x76, 0xA9,  //
                0x97, 0xE4};                                     // group 1
  want.resize(48, 0);
  EXPECT_EQ(r, want);

  const std::vector<float> back = decode(int4(32, 64), r);
  EXPECT_EQ(back[0], 3.5f);
  EXPECT_EQ(back[2], 0.0f);
  EXPECT_EQ(back[4], -1.0f);
  EXPECT_EQ(back[6], -0.5f);
  EXPECT_EQ(back[32], 7 * 0.142578125f);
  EXPECT_EQ(back[34], 4 * 0.142578125f);
  EXPECT_EQ(back[35], -2 * 0.142578125f);
}

TEST(KvLayout, Int4NibbleEightDecodesAsMinusEight) {
  bytes r(16, 0);
  r[0] = 0x08;  // element 0 = -8, element 1 = 0
  r[1] = 0x7F;  // element 2 = -1, element 3 = 7
  const std::vector<float> back = decode(int4(0, 32), r);
  EXPECT_EQ(back[0], -8.0f);
  EXPECT_EQ(back[1], 0.0f);
  EXPECT_EQ(back[2], -1.0f);
  EXPECT_EQ(back[3], 7.0f);
}

TEST(KvLayout, IntScaleThatUnderflowsIsTheSmallestSubnormal) {
  std::vector<float> x(16, 0.0f);
  x[3] = std::numeric_limits<float>::denorm_min();
  const bytes r = encode(int8(16, 16), x);
  EXPECT_EQ(le16(&r[0]), 0x0001);
  for (size_t i = 2; i < r.size(); ++i) EXPECT_EQ(r[i], 0) << i;
}

namespace {

// A 16-element input whose rotation is exactly `centroids of pattern`: x =
// H v / 16 with v_i = c[p_i], so H x = v and u = v * 4 / |v| lies about 4.5 %
// above each centroid, well inside its cell.
const uint32_t kPattern[16] = {5, 2, 7, 0, 3, 6, 1, 4, 3, 4, 4, 3, 3, 4, 4, 3};

std::vector<float> pattern_input(const std::vector<float>& c) {
  std::vector<float> x(16);
  for (uint32_t i = 0; i < 16; ++i) {
    double s = 0.0;
    for (uint32_t j = 0; j < 16; ++j) {
      uint32_t parity = 0;
      for (uint32_t m = i & j; m; m >>= 1) parity ^= m & 1u;
      const int sign = parity ? -1 : 1;  // H_ij = (-1)^popcount(i & j)
      s += sign * static_cast<double>(c[kPattern[j]]);
    }
    x[i] = static_cast<float>(s / 16.0);
  }
  return x;
}

}  // namespace

TEST(KvLayout, Rotated3BitIndicesPackAcrossBytes) {
  const kv_format f = rot(3, false, 16);
  const std::vector<float> x = pattern_input(kv_codec(f).codebook());
  const bytes r = encode(f, x);
  // Norm = sqrt(sum c_p^2 / 16) = 0.95583 -> BF16 0x3F75; indices 5,2,7,0,
  // 3,6,1,4,3,4,4,3,3,4,4,3 at 3 bits each, LSB first: 0x723723'8731D5.
  const bytes want = {0x75, 0x3F, 0xD5, 0x31, 0x87, 0x23, 0x37, 0x72, 0, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(r, want);
}

TEST(KvLayout, RotatedSketchFields) {
  const kv_format f = rot(3, true, 16);
  const kv_codec codec(f);
  const std::vector<float>& c = codec.codebook();
  const std::vector<float> x = pattern_input(c);
  const bytes r = encode(f, x);
  ASSERT_EQ(r.size(), 16u);
  const bytes head = {0x75, 0x3F, 0xD5, 0x31, 0x87, 0x23, 0x37, 0x72};
  EXPECT_EQ(bytes(r.begin(), r.begin() + 8), head);
  // u = v / 0.95703125 is above every positive centroid and below every
  // negative one: the sign bit is set exactly where the index is >= 4.
  EXPECT_EQ(r[10], 0xA5);
  EXPECT_EQ(r[11], 0x66);
  for (size_t i = 12; i < 16; ++i) EXPECT_EQ(r[i], 0) << i;
  // a = mean |u - c_p| = (1/0.95703125 - 1) mean |c_p|, within half a BF16 ulp.
  double mean_abs = 0.0;
  for (uint32_t p : kPattern) mean_abs += std::fabs(c[p]);
  const double a = (1.0 / 0.95703125 - 1.0) * mean_abs / 16.0;
  const float stored = bf16_value(le16(&r[8]));
  EXPECT_NEAR(stored, a, a * 0x1p-8 * 1.01);
}

TEST(KvLayout, RotatedDecodeOfAHandBuiltRecord) {
  // Norm 4 (0x4080) over sqrt(16): the rotated decode is the centroids.
  const bytes rec = {0x80, 0x40, 0xD5, 0x31, 0x87, 0x23, 0x37, 0x72, 0, 0, 0, 0, 0, 0, 0, 0};
  const kv_format f = rot(3, false, 16);
  const std::vector<float> c = kv_codec(f).codebook();
  const std::vector<float> y = decode(f, rec, true);
  for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(y[i], c[kPattern[i]]) << i;

  // With the sketch: a = 0.25 (0x3E80) at byte 8, signs at bytes 10..11.
  bytes srec = rec;
  srec[8] = 0x80;
  srec[9] = 0x3E;
  srec[10] = 0x0F;  // coordinates 0..3 +a, 4..7 -a
  srec[11] = 0xF0;  // 8..11 -a, 12..15 +a
  const kv_format fs = rot(3, true, 16);
  const std::vector<float> ys = decode(fs, srec, true);
  for (uint32_t i = 0; i < 16; ++i) {
    const bool plus = (i < 4) || (i >= 12);
    EXPECT_EQ(ys[i],
              static_cast<float>(static_cast<double>(c[kPattern[i]]) + (plus ? 0.25 : -0.25)))
        << i;
  }
}

TEST(KvLayout, ZeroVectorRecords) {
  const std::vector<float> zero(256, 0.0f);
  for (const kv_format& f : {rot(2), rot(3), rot(4), rot(3, true), fp16(), int8(0), int4(0)}) {
    SCOPED_TRACE(f.name());
    EXPECT_EQ(encode(f, zero), bytes(f.record_bytes(), 0));
  }
  // Grouped formats store scale 1 for an all-zero group.
  const bytes r = encode(int4(32), zero);
  for (int g = 0; g < 8; ++g) EXPECT_EQ(le16(&r[2 * g]), 0x3F80) << g;
  for (size_t i = 16; i < r.size(); ++i) EXPECT_EQ(r[i], 0) << i;
}

TEST(KvLayout, RotatedNormBelowBf16IsTheZeroRecord) {
  std::vector<float> x(64, 0.0f);
  x[5] = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(encode(rot(4, true, 64), x), bytes(rot(4, true, 64).record_bytes(), 0));
}

TEST(KvLayout, PaddingIsZeroed) {
  gaussian g(7);
  for (const kv_format& f :
       {int8(256), int4(128), rot(2), rot(3), rot(4), rot(3, true), rot(2, true), rot(4, true)}) {
    SCOPED_TRACE(f.name());
    const bytes r = encode(f, g.vec(256));
    for (size_t i = f.payload_bytes(); i < r.size(); ++i) EXPECT_EQ(r[i], 0) << i;
  }
}

// x = (1, 1): H x = (2, 0), so u_1 = 0 lies exactly on the middle threshold
// and takes the upper centroid (index 2 of 0..3).
TEST(KvLayout, RotatedValueOnAMidpointTakesTheUpperCentroid) {
  const bytes r = encode(rot(2, false, 2), {1.0f, 1.0f});
  // norm sqrt(2) -> BF16 0x3FB5; u_0 = 2 / 1.4140625 -> index 3; u_1 -> 2.
  bytes want = {0xB5, 0x3F, 0x0B};
  want.resize(16, 0);
  EXPECT_EQ(r, want);
}
