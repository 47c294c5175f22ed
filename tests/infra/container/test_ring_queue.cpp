// ring_queue: the same elements in the same order as std::deque through
// pushes and pops that wrap around the array and grow it while wrapped.
#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <vector>

#include "infra/container/ring_queue.h"

namespace pccx {
namespace {

template <typename Q>
std::vector<int> contents(const Q& q) {
  return std::vector<int>(q.begin(), q.end());
}

TEST(RingQueue, KeepsOrderAcrossWrapAndGrowth) {
  ring_queue<int> q;
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.begin(), q.end());
  // Move the front halfway along the first 16 slots, then fill past them:
  // the growth happens with the elements wrapped around the array's end.
  for (int i = 0; i < 10; ++i) q.push_back(i);
  for (int i = 0; i < 8; ++i) q.pop_front();
  for (int i = 10; i < 40; ++i) q.push_back(i);
  std::vector<int> want;
  for (int i = 8; i < 40; ++i) want.push_back(i);
  EXPECT_EQ(contents(q), want);
  EXPECT_EQ(q.size(), want.size());
  EXPECT_EQ(q.front(), 8);
  EXPECT_EQ(q.back(), 39);
  EXPECT_EQ(q[5], 13);
  q.back() = 99;
  EXPECT_EQ(q[q.size() - 1], 99);
  q.clear();
  EXPECT_TRUE(q.empty());
  q.push_back(7);
  EXPECT_EQ(contents(q), std::vector<int>{7});
}

TEST(RingQueue, MatchesADequeUnderRandomPushesAndPops) {
  std::mt19937 rng(5);
  ring_queue<int> q;
  std::deque<int> d;
  for (int step = 0; step < 100000; ++step) {
    // Phases that grow, then drain, so the queue wraps at many sizes.
    const bool growing = (step / 5000) % 2 == 0;
    if (d.empty() || rng() % 100 < (growing ? 60u : 35u)) {
      const int v = static_cast<int>(rng());
      q.push_back(v);
      d.push_back(v);
    } else {
      ASSERT_EQ(q.front(), d.front()) << step;
      q.pop_front();
      d.pop_front();
    }
    ASSERT_EQ(q.size(), d.size()) << step;
    if (!d.empty()) {
      ASSERT_EQ(q.back(), d.back()) << step;
      ASSERT_EQ(q[d.size() / 2], d[d.size() / 2]) << step;
    }
  }
  EXPECT_EQ(contents(q), std::vector<int>(d.begin(), d.end()));
}

}  // namespace
}  // namespace pccx
