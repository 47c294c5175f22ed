// The accuracy harness (models/kv/kv_accuracy): FP16 is near-lossless, more
// bits mean less error, the rotated formats sit between 4^-b and
// TurboQuant's upper bound, a window covering the whole history keeps all
// the mass, and runs are deterministic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "models/kv/kv_accuracy.h"
#include "models/kv/kv_synthetic.h"

using namespace pccx::kv;

namespace {
kv_accuracy_options small() {
  kv_accuracy_options o;
  o.head.tokens = 512;
  o.head.queries = 8;
  o.heads = 2;
  o.window_tokens = 1024;
  o.sink_window = {{4, 64}, {0, 1024}};
  return o;
}

const kv_accuracy_row& row(const kv_accuracy_report& r, const std::string& name) {
  for (const auto& f : r.formats)
    if (f.strategy == name) return f;
  throw std::runtime_error("no row " + name);
}
}  // namespace

TEST(KvAccuracy, TableFollowsTheBits) {
  const auto r = measure_kv_accuracy(small());
  ASSERT_EQ(r.formats.size(), 10u);
  const auto& fp16 = row(r, "FP16");
  EXPECT_EQ(fp16.bytes_per_token_layer, 2048u);
  EXPECT_LT(fp16.key_rel_mse, 1e-7);
  EXPECT_GT(fp16.output_cosine, 0.99999);
  EXPECT_EQ(row(r, "INT4 per-channel K / per-token V g32").bytes_per_token_layer, 2u * (128 + 144));
  EXPECT_EQ(row(r, "Rotated 3-bit").bytes_per_token_layer, 2u * (112 + 112));
  // More bits, less error.
  EXPECT_LT(row(r, "INT8 per-token").key_rel_mse, row(r, "INT4 per-token g32").key_rel_mse);
  EXPECT_LT(row(r, "Rotated 4-bit").key_rel_mse, row(r, "Rotated 3-bit").key_rel_mse);
  EXPECT_LT(row(r, "Rotated 3-bit").key_rel_mse, row(r, "Rotated 2-bit").key_rel_mse);
  EXPECT_GT(row(r, "Rotated 4-bit").output_cosine, row(r, "Rotated 2-bit").output_cosine);
  for (const auto& f : r.formats) {
    EXPECT_LE(f.output_min_cosine, f.output_cosine) << f.strategy;
    EXPECT_GE(f.output_cosine, -1.0) << f.strategy;
  }
}

TEST(KvAccuracy, RotatedDistortionBetweenReferenceAndUpperBound) {
  const auto r = measure_kv_accuracy(small());
  ASSERT_EQ(r.rotated.size(), 4u);
  for (const auto& c : r.rotated) {
    if (c.sketch) {
      EXPECT_LT(c.measured, c.reference) << "3 bits + sketch beats 4^-3";
      continue;
    }
    EXPECT_GT(c.measured, c.reference) << c.bits;
    EXPECT_LT(c.measured, c.upper) << c.bits;
  }
}

TEST(KvAccuracy, WindowOverTheWholeHistoryKeepsAllMass) {
  const auto r = measure_kv_accuracy(small());
  ASSERT_EQ(r.windows.size(), 2u);
  EXPECT_NEAR(r.windows[1].mass_kept, 1.0, 1e-12);
  EXPECT_NEAR(r.windows[1].min_mass_kept, 1.0, 1e-12);
  EXPECT_GT(r.windows[0].mass_kept, 0.0);
  EXPECT_LT(r.windows[0].mass_kept, 1.0);
}

TEST(KvAccuracy, Deterministic) {
  EXPECT_EQ(to_markdown(measure_kv_accuracy(small())), to_markdown(measure_kv_accuracy(small())));
}
