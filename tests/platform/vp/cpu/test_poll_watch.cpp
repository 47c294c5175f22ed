// poll_watch: a loop of unchanged reads with no platform progress is caught
// at its limit, and every sign of life (a new value, a write, progress)
// starts the count again.
#include "platform/vp/cpu/poll_watch.h"

#include <gtest/gtest.h>

using pccx::vp::poll_watch;

namespace {

// Reads `offsets` in turn, `rounds` times, each returning `value`; the
// livelock if one was reported.
std::optional<poll_watch::livelock> loop(poll_watch& w, std::initializer_list<uint32_t> offsets,
                                         uint32_t value, uint64_t rounds) {
  for (uint64_t r = 0; r < rounds; ++r)
    for (uint32_t o : offsets)
      if (auto l = w.read(o, value)) return l;
  return std::nullopt;
}

}  // namespace

TEST(PollWatch, AnUnchangingRegisterWithNoProgressIsCaughtAtTheLimit) {
  poll_watch w(5000);
  w.set_progress_probe([] { return uint64_t{42}; });
  auto l = loop(w, {0x08}, 0x1, 10000);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->offset, 0x08u);
  EXPECT_EQ(l->value, 0x1u);
  EXPECT_EQ(l->reads, 5000u);
  EXPECT_EQ(l->registers, 1u);
}

TEST(PollWatch, ALoopOverSeveralRegistersNamesTheLastOne) {
  poll_watch w(3000);
  auto l = loop(w, {0x1014, 0x1018}, 0, 5000);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->registers, 2u);
  EXPECT_EQ(l->reads, 3000u);
}

TEST(PollWatch, PlatformProgressRestartsTheCount) {
  poll_watch w(5000);
  uint64_t moved = 0;
  w.set_progress_probe([&] { return ++moved; });  // something moves at every look
  EXPECT_FALSE(loop(w, {0x08}, 0x1, 100000));
}

TEST(PollWatch, ANewValueOrAWriteRestartsTheCount) {
  poll_watch w(5000);
  w.set_progress_probe([] { return uint64_t{0}; });
  for (int i = 0; i < 20; ++i) {
    EXPECT_FALSE(loop(w, {0x08}, 0x1, 4000));
    EXPECT_FALSE(w.read(0x08, 0x3));  // the value changed
    EXPECT_FALSE(loop(w, {0x08}, 0x3, 4000));
    w.write();
  }
}

TEST(PollWatch, AZeroLimitNeverFires) {
  poll_watch w(0);
  EXPECT_FALSE(loop(w, {0x08}, 0x1, 100000));
}

TEST(PollWatch, ManyDistinctRegistersAreNotAPollingLoop) {
  poll_watch w(100);
  for (uint32_t o = 0; o < 100000; o += 4) EXPECT_FALSE(w.read(o % 4096 * 4, 0));
}
