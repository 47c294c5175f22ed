// ns_to_ticks must give exactly the ticks sc_core::sc_time(ns, SC_NS) holds
// for every DRAM time the DDR model converts: the timing results depend on it.
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <systemc>
#include <vector>

#include "infra/time/ns_to_ticks.h"

namespace {

uint64_t library_ticks(double ns) {
  return sc_core::sc_time(ns, sc_core::SC_NS).value();
}

TEST(NsToTicks, MatchesScTimeAtHalvesAndEdges) {
  const pccx::ns_to_ticks convert;
  const std::vector<double> ns = {0.0,
                                  0.0005,  // half a picosecond
                                  0.0004999999999999999,
                                  0.0015,
                                  0.625,
                                  0.8333333333333334,  // one DDR4-2400 clock
                                  682.5,
                                  1e6 + 0.0005,
                                  4.5e9,
                                  9.007199254740993e12,
                                  1e15};
  for (double v : ns) EXPECT_EQ(convert(v), library_ticks(v)) << v;
}

TEST(NsToTicks, MatchesScTimeOnDramClockTimes) {
  // Whole DRAM clocks of DDR4-2400 (5/6 ns) and of other speeds, over a
  // long run, as the DRAM scheduler answers; and arbitrary times.
  const pccx::ns_to_ticks convert;
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int64_t> clock(0, int64_t{1} << 40);
  std::uniform_real_distribution<double> tck(0.625, 1.25);
  std::uniform_real_distribution<double> any(0.0, 1e12);
  for (int i = 0; i < 200000; ++i) {
    const double v = static_cast<double>(clock(rng)) * tck(rng);
    ASSERT_EQ(convert(v), library_ticks(v)) << v;
    const double w = any(rng);
    ASSERT_EQ(convert(w), library_ticks(w)) << w;
  }
}

TEST(NsToTicks, ADeviatingScaleWouldBeCaught) {
  // The comparison above can fail: a scale off by one part in 2^52 already
  // moves some of these times by a tick.
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> any(0.0, 1e12);
  const double scale = static_cast<double>(library_ticks(1.0));
  const double off = scale * (1.0 + 4.0 * std::numeric_limits<double>::epsilon());
  int differ = 0;
  for (int i = 0; i < 200000; ++i) {
    const double w = any(rng);
    volatile double scaled = w * off + 0.5;
    if (static_cast<uint64_t>(static_cast<int64_t>(scaled)) != library_ticks(w)) ++differ;
  }
  EXPECT_GT(differ, 0);
}

}  // namespace
