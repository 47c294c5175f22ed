// Round trips with the error bound of each format, the Walsh-Hadamard
// rotation, non-finite inputs, and the rotated-basis decode.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "kv_test_util.h"

using namespace kvtest;
using pccx::kv::fwht_orthonormal;
using pccx::kv::kv_codec;

namespace {

using bytes = std::vector<uint8_t>;

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kFloatMax = std::numeric_limits<float>::max();

struct codec_run {
  bytes record;
  std::vector<float> back;
};

codec_run round_trip(const kv_codec& c, const std::vector<float>& x) {
  codec_run r{bytes(c.format().record_bytes()), std::vector<float>(c.format().head_dim)};
  c.encode(x.data(), r.record.data());
  c.decode(r.record.data(), r.back.data());
  return r;
}

double sq_norm(const std::vector<float>& v) {
  double s = 0.0;
  for (float f : v) s += double(f) * f;
  return s;
}

double sq_dist(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0.0;
  for (size_t i = 0; i < a.size(); ++i) s += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
  return s;
}

// Mean over `n` N(0, I) vectors of |x - x_hat|^2 / |x|^2. For the rotated
// formats this is E|u - u_hat|^2 / d: the rotation is orthonormal and u is
// the rotated vector scaled to norm sqrt(d).
double normalised_mse(const kv_format& f, int n, uint64_t seed, double pre_scale = 1.0) {
  const kv_codec c(f);
  gaussian g(seed);
  double sum = 0.0;
  for (int k = 0; k < n; ++k) {
    std::vector<float> x = g.vec(f.head_dim, pre_scale);
    const codec_run r = round_trip(c, x);
    sum += sq_dist(x, r.back) / sq_norm(x);
  }
  return sum / n;
}

constexpr double kPi = 3.14159265358979323846;

// TurboQuant's upper bound on the MSE of its scalar-quantized rotation.
double turboquant_bound(uint32_t bits) {
  return std::sqrt(3.0) * kPi / 2.0 * std::pow(4.0, -double(bits));
}

}  // namespace

// ---- Walsh-Hadamard

TEST(KvFwht, MatchesTheSylvesterMatrix) {
  std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  std::vector<float> want(16);
  for (uint32_t i = 0; i < 16; ++i) {
    double s = 0;
    for (uint32_t j = 0; j < 16; ++j) {
      uint32_t parity = 0;
      for (uint32_t m = i & j; m; m >>= 1) parity ^= m & 1u;
      s += (parity ? -1.0 : 1.0) * x[j];
    }
    want[i] = static_cast<float>(s / 4.0);
  }
  fwht_orthonormal(x.data(), 16);
  EXPECT_EQ(x, want);  // integers, then a power-of-two scale: exact
}

TEST(KvFwht, OrthonormalAndSelfInverse) {
  gaussian g(11);
  for (uint32_t n : {1u, 2u, 8u, 32u, 256u, 1024u}) {
    SCOPED_TRACE(n);
    for (int k = 0; k < 20; ++k) {
      const std::vector<float> x = g.vec(n);
      std::vector<float> y = x;
      fwht_orthonormal(y.data(), n);
      EXPECT_NEAR(std::sqrt(sq_norm(y)), std::sqrt(sq_norm(x)), 1e-6 * std::sqrt(sq_norm(x)));
      fwht_orthonormal(y.data(), n);
      for (uint32_t i = 0; i < n; ++i) ASSERT_NEAR(y[i], x[i], 2e-6) << i;
    }
  }
  std::vector<float> e(64, 0.0f);
  e[0] = 1.0f;
  fwht_orthonormal(e.data(), 64);
  for (float v : e) EXPECT_EQ(v, 0.125f);
  EXPECT_THROW(fwht_orthonormal(e.data(), 48), std::invalid_argument);
  EXPECT_THROW(fwht_orthonormal(e.data(), 0), std::invalid_argument);
}

// ---- fp16: |x - x_hat| <= 2^-11 |x| (half an ulp) in the normal range,
// <= 2^-25 among the subnormals; beyond 65504 the value saturates.

TEST(KvRoundTrip, Fp16HalfUlp) {
  const kv_codec c(fp16());
  gaussian g(21);
  for (int e = -30; e <= 14; ++e) {
    const std::vector<float> x = g.vec(256, std::ldexp(1.0, e));
    const codec_run r = round_trip(c, x);
    for (size_t i = 0; i < x.size(); ++i) {
      const double ax = std::fabs(x[i]);
      const double err = std::fabs(double(x[i]) - r.back[i]);
      if (ax > 65504.0) {
        ASSERT_EQ(std::fabs(r.back[i]), 65504.0f) << x[i];
      } else {
        ASSERT_LE(err, std::max(0x1p-11 * ax, 0x1p-25)) << x[i];
      }
    }
  }
}

// ---- int8/int4 with stored scales: |x - x_hat| <= s/2 for every element,
// s the group's stored scale, and s within a BF16 rounding of max|x| / qmax.

TEST(KvRoundTrip, IntGroupsWithinHalfAScale) {
  gaussian g(31);
  for (const kv_format& f :
       {int8(256), int8(64), int8(32), int8(1), int4(256), int4(128), int4(32), int4(2), int4(1)}) {
    SCOPED_TRACE(f.name());
    const kv_codec c(f);
    const double qmax = f.kind == kv_kind::int8 ? 127.0 : 7.0;
    for (int k = 0; k < 200; ++k) {
      std::vector<float> x = g.vec(256, std::ldexp(1.0, k % 40 - 20));
      if (k % 3 == 0) x[k % 256] *= 50.0f;  // an outlier
      const codec_run r = round_trip(c, x);
      for (uint32_t i = 0; i < 256; ++i) {
        const double s = bf16_value(le16(&r.record[2 * (i / f.group)]));
        ASSERT_LE(std::fabs(double(x[i]) - r.back[i]), s / 2) << i;
      }
      for (uint32_t gi = 0; gi < 256 / f.group; ++gi) {
        double m = 0.0;
        for (uint32_t i = gi * f.group; i < (gi + 1) * f.group; ++i) {
          m = std::max(m, std::fabs(double(x[i])));
        }
        const double s = bf16_value(le16(&r.record[2 * gi]));
        ASSERT_NEAR(s, m / qmax, m / qmax * 0x1p-8) << gi;
      }
    }
  }
}

// Static scale (group 0): codes are round(x) clamped to +-qmax, so
// |x - x_hat| <= 1/2 for |x| <= qmax + 1/2.
TEST(KvRoundTrip, IntStaticWithinHalf) {
  gaussian g(41);
  for (const kv_format& f : {int8(0), int4(0)}) {
    SCOPED_TRACE(f.name());
    const kv_codec c(f);
    const double qmax = f.kind == kv_kind::int8 ? 127.0 : 7.0;
    for (int k = 0; k < 100; ++k) {
      std::vector<float> x(256);
      for (float& v : x) {
        const double u = static_cast<double>(g.raw() >> 11) * 0x1p-53;  // [0, 1)
        v = static_cast<float>((2 * u - 1) * (qmax + 0.5));
      }
      const codec_run r = round_trip(c, x);
      for (uint32_t i = 0; i < 256; ++i) {
        ASSERT_LE(std::fabs(double(x[i]) - r.back[i]), 0.5) << x[i];
        ASSERT_EQ(r.back[i], std::nearbyint(r.back[i]));
      }
    }
  }
}

// ---- rotated: the normalised MSE over Gaussian vectors is the codebook's
// distortion D_b (u's coordinates are close to N(0, 1) for d = 256): assert
// within 10 % of D_b, and below TurboQuant's sqrt(3) pi / 2 * 4^-b.

TEST(KvRoundTrip, RotatedMseMatchesTheCodebook) {
  for (uint32_t b : {2u, 3u, 4u}) {
    SCOPED_TRACE(b);
    const double d_b = codebook_mse(kv_codec(rot(b)).codebook());
    const double mse = normalised_mse(rot(b), 2000, 100 + b);
    EXPECT_NEAR(mse, d_b, 0.1 * d_b);
    EXPECT_LT(mse, turboquant_bound(b));
    const double sketch = normalised_mse(rot(b, true), 2000, 100 + b);
    EXPECT_LT(sketch, 0.5 * mse);  // the sign sketch removes most of the residual
  }
}

TEST(KvRoundTrip, RotatedMseAtOtherHeadDims) {
  for (uint32_t d : {64u, 128u, 512u}) {
    SCOPED_TRACE(d);
    const double d_b = codebook_mse(kv_codec(rot(3, false, d)).codebook());
    EXPECT_NEAR(normalised_mse(rot(3, false, d), 1000, 200 + d), d_b, 0.1 * d_b);
  }
}

// A single spike is the structured worst case: its rotation has every
// coordinate of u equal to +-1, so every coordinate takes the centroid c*
// nearest 1 and the decode is the spike scaled by c* (2 bits: 1.51, a 26 %
// normalised error; 3 bits: 0.756; 4 bits: 0.942). The sketch then stores
// a = |1 - c*| and the sign of every residual, which restores it exactly.
TEST(KvRoundTrip, RotatedSpikeIsScaledByTheCentroidNearestOne) {
  std::vector<float> x(256, 0.0f);
  x[17] = 3.0f;  // norm 3: exact in BF16
  for (uint32_t b : {2u, 3u, 4u}) {
    SCOPED_TRACE(b);
    const kv_codec c(rot(b));
    const std::vector<float>& cb = c.codebook();
    float nearest = cb[0];
    for (float v : cb) {
      if (std::fabs(v - 1.0f) <= std::fabs(nearest - 1.0f)) nearest = v;
    }
    const codec_run r = round_trip(c, x);
    for (uint32_t i = 0; i < 256; ++i) {
      ASSERT_NEAR(r.back[i], i == 17 ? 3.0f * nearest : 0.0f, 1e-6f) << i;
    }
    const codec_run s = round_trip(kv_codec(rot(b, true)), x);
    for (uint32_t i = 0; i < 256; ++i) {
      ASSERT_NEAR(s.back[i], x[i], 3.0f * std::fabs(1.0f - nearest) * 0x1p-8f + 1e-6f) << i;
    }
  }
}

TEST(KvRoundTrip, DecodeRotatedIsTheRotatedDecode) {
  gaussian g(51);
  for (const kv_format& f : {rot(2), rot(3), rot(4), rot(3, true), rot(4, false, 64)}) {
    SCOPED_TRACE(f.name());
    const kv_codec c(f);
    for (int k = 0; k < 50; ++k) {
      const std::vector<float> x = g.vec(f.head_dim, 1.0 + k);
      const codec_run r = round_trip(c, x);
      std::vector<float> y(f.head_dim), y_from_x(r.back);
      c.decode_rotated(r.record.data(), y.data());
      fwht_orthonormal(y_from_x.data(), f.head_dim);
      const double tol = 1e-6 * std::sqrt(sq_norm(x));
      for (uint32_t i = 0; i < f.head_dim; ++i) ASSERT_NEAR(y[i], y_from_x[i], tol) << i;
      // And the rotated-basis error equals the original-basis error.
      std::vector<float> y_true(x);
      fwht_orthonormal(y_true.data(), f.head_dim);
      EXPECT_NEAR(sq_dist(y_true, y), sq_dist(x, r.back), 1e-5 * sq_norm(x));
    }
  }
  // Non-rotated formats: decode_rotated is decode.
  const kv_codec c(int4(32));
  const std::vector<float> x = g.vec(256);
  const codec_run r = round_trip(c, x);
  std::vector<float> y(256);
  c.decode_rotated(r.record.data(), y.data());
  EXPECT_EQ(y, r.back);
}

TEST(KvRoundTrip, ZeroVectorDecodesToZero) {
  const std::vector<float> zero(256, 0.0f);
  for (const kv_format& f :
       {fp16(), int8(0), int8(32), int4(0), int4(128), rot(2), rot(3), rot(4), rot(3, true)}) {
    SCOPED_TRACE(f.name());
    const kv_codec c(f);
    const codec_run r = round_trip(c, zero);
    EXPECT_EQ(r.back, zero);
    std::vector<float> y(256, 1.0f);
    c.decode_rotated(r.record.data(), y.data());
    EXPECT_EQ(y, zero);
  }
}

// ---- non-finite inputs: NaN encodes as 0, +-inf as +-FLT_MAX, then each
// format saturates; nothing decodes to inf or NaN.

TEST(KvRoundTrip, NanEncodesAsZero) {
  gaussian g(61);
  for (const kv_format& f :
       {fp16(), int8(0), int8(32), int4(0), int4(128), rot(2), rot(3), rot(4), rot(3, true)}) {
    SCOPED_TRACE(f.name());
    const kv_codec c(f);
    std::vector<float> x = g.vec(256);
    x[3] = 0.0f;
    x[200] = 0.0f;
    const codec_run with_zero = round_trip(c, x);
    x[3] = kNaN;
    x[200] = -kNaN;
    EXPECT_EQ(round_trip(c, x).record, with_zero.record);
  }
}

TEST(KvRoundTrip, InfinitySaturates) {
  gaussian g(71);
  for (const kv_format& f :
       {fp16(), int8(0), int8(32), int4(0), int4(128), rot(2), rot(3), rot(4), rot(3, true)}) {
    SCOPED_TRACE(f.name());
    const kv_codec c(f);
    std::vector<float> x = g.vec(256);
    x[5] = kInf;
    x[6] = -kInf;
    const codec_run r = round_trip(c, x);
    for (float v : r.back) ASSERT_TRUE(std::isfinite(v));
    std::vector<float> y(256);
    c.decode_rotated(r.record.data(), y.data());
    for (float v : y) ASSERT_TRUE(std::isfinite(v));
    if (f.kind != kv_kind::rotated) {
      EXPECT_GT(r.back[5], 0.0f);
      EXPECT_LT(r.back[6], 0.0f);
    }
  }
  // The largest values each format keeps for +inf.
  std::vector<float> x(256, 0.0f);
  x[0] = kInf;
  EXPECT_EQ(round_trip(kv_codec(fp16()), x).back[0], 65504.0f);
  EXPECT_EQ(round_trip(kv_codec(int8(0)), x).back[0], 127.0f);
  EXPECT_EQ(round_trip(kv_codec(int4(0)), x).back[0], 7.0f);
  EXPECT_NEAR(round_trip(kv_codec(int8(32)), x).back[0], kFloatMax, kFloatMax * 0x1p-8);
  EXPECT_NEAR(round_trip(kv_codec(int4(32)), x).back[0], kFloatMax, kFloatMax * 0x1p-8);
}

TEST(KvRoundTrip, HugeRotatedNormSaturates) {
  std::vector<float> x(256, 1e38f);  // |x| = 1.6e39, past the largest BF16
  const kv_codec c(rot(4));
  const codec_run r = round_trip(c, x);
  EXPECT_EQ(le16(&r.record[0]), 0x7F7F);
  for (float v : r.back) ASSERT_TRUE(std::isfinite(v));
}

// Records are a pure function of the input: the same bytes on every run and
// machine. Inputs built from integer arithmetic on mt19937_64 (exactly
// specified), records hashed with FNV-1a.
TEST(KvRoundTrip, RecordsAreReproducible) {
  std::mt19937_64 rng(2024);
  uint64_t h = 0xcbf29ce484222325ull;
  for (const kv_format& f : {fp16(), int8(0), int8(32), int8(256), int4(0), int4(32), int4(128),
                             rot(2), rot(3), rot(4), rot(3, true)}) {
    const kv_codec c(f);
    bytes rec(f.record_bytes());
    for (int k = 0; k < 16; ++k) {
      std::vector<float> x(256);
      for (float& v : x) {
        v = static_cast<float>(static_cast<int32_t>(rng() >> 40) - (1 << 23)) * 0x1p-21f;
      }
      c.encode(x.data(), rec.data());
      for (uint8_t b : rec) h = (h ^ b) * 0x100000001b3ull;
    }
  }
  EXPECT_EQ(h, 0xc82e3ddb3ba327e2ull);
}

// The measured numbers quoted in docs/reference/kv-formats.md (N(0, 1) vectors,
// head_dim 256). Static formats: the driver scales by qmax / 4 (clipping at
// 4 sigma) before the append, and back after the read.
TEST(KvRoundTrip, ReportNormalisedMse) {
  struct row {
    kv_format f;
    double pre;
  };
  const row rows[] = {{fp16(), 1.0},      {int8(0), 127.0 / 4}, {int8(256), 1.0},
                      {int8(32), 1.0},    {int4(0), 7.0 / 4},   {int4(128), 1.0},
                      {int4(32), 1.0},    {rot(2), 1.0},        {rot(3), 1.0},
                      {rot(4), 1.0},      {rot(2, true), 1.0},  {rot(3, true), 1.0},
                      {rot(4, true), 1.0}};
  for (const row& r : rows) {
    const double mse = normalised_mse(r.f, 2000, 7, r.pre);
    std::printf("  %-12s bits/elem %6.3f  normalised MSE %.4g\n", r.f.name().c_str(),
                r.f.bits_per_element(), mse);
    EXPECT_LT(mse, 0.2);
  }
}
