// The sampled prefill estimate: which chunks are simulated, and the sum it
// makes of them against hand-made figures.
#include <gtest/gtest.h>

#include "platform/workload/prefill_estimate.h"

using namespace pccx::workload;

TEST(PrefillEstimate, TheSamplesAreTheFirstTheFirstFullWindowTheLastWholeAndTheRest) {
  // 1,024 in 15s: 68 whole chunks and 4 rows; a window of 512 is full for
  // every row of the chunk at ceil(511 / 15) x 15 = 525.
  const auto s = prefill_samples(1024, 15, 512);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0], (prefill_point{0, 15}));
  EXPECT_EQ(s[1], (prefill_point{525, 15}));
  EXPECT_EQ(s[2], (prefill_point{1005, 15}));
  EXPECT_EQ(s[3], (prefill_point{1020, 4}));
  // No window, a whole number of chunks: the first and the last.
  const auto g = prefill_samples(64, 8, 0);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[1], (prefill_point{56, 8}));
  // A prompt shorter than a chunk: itself.
  const auto one = prefill_samples(5, 8, 4);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0], (prefill_point{0, 5}));
  EXPECT_THROW(prefill_samples(0, 8, 0), std::invalid_argument);
}

TEST(PrefillEstimate, ChunksBetweenSamplesFollowTheirStartLinearly) {
  // 10 chunks of 4 (40 tokens), samples at chunks 0, 2 and 9; a chunk's
  // body 100 + 10 k ns between the samples, bytes 1,000 + k; the exit 7 ns
  // and 50 bytes of the last sample.
  const std::vector<prefill_point> s = {{0, 4}, {8, 4}, {36, 4}};
  auto m = [](double k, bool last) {
    prefill_measure x;
    x.ns = 100 + 10 * k + (last ? 7 : 3);
    x.exit_ns = last ? 7 : 3;
    x.q["ddr.weights"] = 1000 + k + (last ? 50 : 20);
    x.exit_q["ddr.weights"] = last ? 50 : 20;
    return x;
  };
  const prefill_totals t = estimate_prefill(40, 4, s, {m(0, false), m(2, false), m(9, true)});
  // sum over k = 0..9 of 100 + 10 k = 1,450, plus the exit once.
  EXPECT_DOUBLE_EQ(t.ttft_ns, 1450 + 7);
  EXPECT_DOUBLE_EQ(t.q.at("ddr.weights"), 10 * 1000 + 45 + 50);
  // A chunk no sample covers is refused.
  EXPECT_THROW(estimate_prefill(41, 4, s, {m(0, false), m(2, false), m(9, true)}),
               std::invalid_argument);
}
