// The Lloyd-Max codebooks of N(0, 1): values against an independent 40-digit
// computation, their exact bit patterns (the determinism guarantee),
// optimality conditions and distortions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "kv_test_util.h"

using namespace kvtest;
using pccx::kv::kv_codec;
using pccx::kv::normal_lloyd_max;

namespace {

// Positive centroids and distortion from Lloyd's algorithm in 40-digit
// arithmetic (mpmath, run to convergence), independent of the C++ code.
struct reference {
  uint32_t bits;
  std::vector<double> positive;
  double mse;
};

const reference kReference[] = {
    {1, {0.797884560802865}, 0.363380227632419},
    {2, {0.452780034636492, 1.5104176084991}, 0.117481847829329},
    {3,
     {0.245094178944222, 0.756005281205877, 1.343909278505, 2.15194570453699},
     0.0345477607885037},
    {4,
     {0.128395029851147, 0.38804829949029, 0.656759118532463, 0.942340456486961, 1.25623119734718,
      1.61804638602188, 2.06901722653139, 2.73258957099516},
     0.00950100800819189},
};

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

}  // namespace

TEST(KvCodebook, MatchesTheHighPrecisionReference) {
  for (const reference& r : kReference) {
    SCOPED_TRACE(r.bits);
    const std::vector<float> c = normal_lloyd_max(r.bits);
    const size_t m = r.positive.size();
    ASSERT_EQ(c.size(), 2 * m);
    for (size_t k = 0; k < m; ++k) {
      // The nearest float to the reference value.
      EXPECT_EQ(c[m + k], static_cast<float>(r.positive[k])) << k;
      EXPECT_EQ(c[m - 1 - k], -c[m + k]) << k;
    }
    for (size_t i = 1; i < c.size(); ++i) EXPECT_LT(c[i - 1], c[i]);
    EXPECT_NEAR(codebook_mse(c), r.mse, 1e-6 * r.mse);
  }
}

// Max (1960) and Lloyd (1982) list 0.3634, 0.1175, 0.03454 and 0.009497; the
// last is 0.0095010 when computed to convergence (see the reference above),
// 0.04 % from the historical table.
TEST(KvCodebook, PublishedDistortions) {
  const double published[] = {0.3634, 0.1175, 0.03454, 0.009497};
  for (uint32_t b = 1; b <= 4; ++b) {
    const double d = codebook_mse(normal_lloyd_max(b));
    EXPECT_NEAR(d, published[b - 1], 5e-4 * published[b - 1]) << b;
    if (b >= 2) {
      EXPECT_LT(d, std::sqrt(3.0) * 3.14159265358979323846 / 2 * std::pow(4.0, -double(b)));
    }
  }
}

// The exact floats: any change of the algorithm or of the arithmetic shows
// here first.
TEST(KvCodebook, BitPatterns) {
  const std::vector<uint32_t> want[] = {
      {0x3F4C422A},
      {0x3EE7D2C9, 0x3FC1555D},
      {0x3E7AF9F8, 0x3F418990, 0x3FAC0538, 0x4009B97A},
      {0x3E0379FD, 0x3EC6AE44, 0x3F28215E, 0x3F713D39, 0x3FA0CC2F, 0x3FCF1C25, 0x40046AC7,
       0x402EE2BF},
  };
  for (uint32_t b = 1; b <= 4; ++b) {
    const std::vector<float> c = normal_lloyd_max(b);
    std::vector<uint32_t> got;
    for (size_t k = c.size() / 2; k < c.size(); ++k) got.push_back(bits_of(c[k]));
    EXPECT_EQ(got, want[b - 1]) << b;
  }
}

// Lloyd-Max conditions: each centroid is the mean of N(0, 1) over its cell
// (the cell boundaries are the midpoints).
TEST(KvCodebook, CentroidsAreConditionalMeans) {
  auto cdf = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  auto pdf = [](double x) {
    return std::isinf(x) ? 0.0 : std::exp(-0.5 * x * x) / std::sqrt(2 * 3.14159265358979323846);
  };
  for (uint32_t b = 1; b <= 4; ++b) {
    const std::vector<float> c = normal_lloyd_max(b);
    for (size_t i = 0; i < c.size(); ++i) {
      const double lo = i == 0 ? -INFINITY : 0.5 * (double(c[i - 1]) + c[i]);
      const double hi = i + 1 == c.size() ? INFINITY : 0.5 * (double(c[i]) + c[i + 1]);
      const double mean = (pdf(lo) - pdf(hi)) / (cdf(hi) - cdf(lo));
      EXPECT_NEAR(c[i], mean, 1e-6) << b << " " << i;
    }
  }
}

TEST(KvCodebook, CodecUsesTheCodebookAndBitsAreChecked) {
  for (uint32_t b = 2; b <= 4; ++b) EXPECT_EQ(kv_codec(rot(b)).codebook(), normal_lloyd_max(b));
  EXPECT_THROW(normal_lloyd_max(0), std::invalid_argument);
  EXPECT_THROW(normal_lloyd_max(5), std::invalid_argument);
}
