// ticks_as_time must give exactly sc_time::from_value's time for every
// count: the DDR controller's and the DMA channels' times depend on it.
#include <gtest/gtest.h>

#include <random>
#include <systemc>
#include <vector>

#include "infra/time/ticks_as_time.h"

namespace {

TEST(TicksAsTime, MatchesFromValueAtTheEdges) {
  const pccx::ticks_as_time convert;
  const uint64_t exact = uint64_t{1} << 52;
  const std::vector<uint64_t> ticks = {
      0,           1,         2,     999,       1000,          1365333,
      exact - 2,   exact - 1, exact, exact + 1, exact * 2 + 1, (uint64_t{1} << 53) + 1,
      ~uint64_t{0}};
  for (uint64_t t : ticks) EXPECT_EQ(convert(t).value(), t) << t;
}

TEST(TicksAsTime, MatchesFromValueOnRandomCounts) {
  const pccx::ticks_as_time convert;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    const uint64_t t = rng() >> (rng() % 64);  // every magnitude
    ASSERT_EQ(convert(t), sc_core::sc_time::from_value(t)) << t;
  }
}

}  // namespace
