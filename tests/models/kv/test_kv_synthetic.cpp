// The synthetic heads (models/kv/kv_synthetic): keys with outlier channels
// and a massive sink key, values of unit RMS, determinism by seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/kv/kv_synthetic.h"

using namespace pccx::kv;

TEST(KvSynthetic, KeysHaveOutlierChannelsAndValuesUnitRms) {
  synthetic_params p;
  p.tokens = 256;
  const auto h = make_synthetic_head(p);
  ASSERT_EQ(h.k.size(), 256u * 256);
  std::vector<float> g = h.key_gain;
  std::sort(g.begin(), g.end());
  const float median = g[g.size() / 2];
  EXPECT_GE(g.back() / median, 15.0f) << "the largest outlier channel";
  EXPECT_LT(g[g.size() - 5] / median, 3.0f) << "only the 4 outlier channels stand out";
  for (uint32_t t = 0; t < 8; ++t) {
    double ss = 0;
    for (uint32_t c = 0; c < 256; ++c) ss += double(h.v[t * 256 + c]) * h.v[t * 256 + c];
    EXPECT_NEAR(std::sqrt(ss / 256), 1.0, 1e-5) << "value " << t;
  }
  // Token 0 is the massive sink key.
  double n0 = 0, n1 = 0;
  for (uint32_t c = 0; c < 256; ++c)
    n0 += double(h.k[c]) * h.k[c], n1 += double(h.k[256 + c]) * h.k[256 + c];
  EXPECT_GT(std::sqrt(n0 / n1), 3.0);
}

TEST(KvSynthetic, SameSeedSameHeadOtherTokenSeedSameModel) {
  synthetic_params p;
  p.tokens = 64;
  const auto a = make_synthetic_head(p), b = make_synthetic_head(p);
  EXPECT_EQ(a.k, b.k);
  EXPECT_EQ(a.q, b.q);
  p.token_seed = 99;
  const auto c = make_synthetic_head(p);
  EXPECT_EQ(c.key_gain, a.key_gain);
  EXPECT_NE(c.k, a.k);
  synthetic_params odd;
  odd.head_dim = 7;
  EXPECT_THROW(make_synthetic_head(odd), std::invalid_argument);
}
