// round_ticks must give exactly what std::llround gives for every
// non-negative duration the DDR model rounds: the timing results depend on it.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "infra/time/round_ticks.h"

namespace {

TEST(RoundTicks, MatchesLlroundAtHalvesAndEdges) {
  const std::vector<double> xs = {0.0,
                                  0.25,
                                  0.5,
                                  0.75,
                                  1.5,
                                  2.5,
                                  0.49999999999999994,  // +0.5 would round this up
                                  1e15 + 0.5,
                                  4503599627370495.5,  // 2^52 - 0.5
                                  4503599627370496.0,  // 2^52
                                  9007199254740993.0,  // above 2^53
                                  1e18};
  for (double x : xs) EXPECT_EQ(pccx::round_ticks(x), static_cast<uint64_t>(std::llround(x))) << x;
}

TEST(RoundTicks, MatchesLlroundOnTransferDurations) {
  // Bytes over a rate in bytes per tick, as the capacity timeline divides.
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<uint64_t> bytes(1, 1u << 20);
  std::uniform_real_distribution<double> rate(1e-4, 20.0);
  for (int i = 0; i < 200000; ++i) {
    const double x = static_cast<double>(bytes(rng)) / rate(rng);
    ASSERT_EQ(pccx::round_ticks(x), static_cast<uint64_t>(std::llround(x))) << x;
  }
}

}  // namespace
