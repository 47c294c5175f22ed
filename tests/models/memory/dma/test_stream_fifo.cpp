// Stream FIFO: capacity and backpressure, reservations, ready times, byte
// order across the ring, partial pops, stall accounting.
#include <gtest/gtest.h>

#include "dma_bench.h"

using namespace pccx;
using namespace pccx::test;
using sc_core::SC_ZERO_TIME;

namespace {

// Runs the given thread bodies until they all return (or `limit`).
struct fifo_bench {
  std::vector<std::unique_ptr<worker>> threads;
  void add(std::function<void()> body) {
    threads.push_back(
        std::make_unique<worker>(("t" + std::to_string(threads.size())).c_str(), std::move(body)));
  }
  void run(sc_time limit = us(100)) { sc_core::sc_start(limit); }
};

}  // namespace

TEST(StreamFifo, ProducerBlocksWhileFullUntilTheConsumerPops) {
  mem::stream_fifo f("f", 64, true);
  fifo_bench b;
  std::vector<sc_time> pushed_at;
  std::vector<sc_time> popped_at;
  b.add([&] {
    uint8_t data[32] = {};
    for (int i = 0; i < 4; ++i) {
      f.push(32, sc_core::sc_time_stamp(), data);
      pushed_at.push_back(sc_core::sc_time_stamp());
    }
  });
  b.add([&] {
    sc_core::wait(us(1));
    EXPECT_EQ(f.level(), 64u);
    EXPECT_EQ(f.free_space(), 0u);
    for (int i = 0; i < 4; ++i) {
      popped_at.push_back(f.pop(32, nullptr));
      sc_core::wait(ns(100));
    }
  });
  b.run();
  ASSERT_EQ(pushed_at.size(), 4u);
  EXPECT_EQ(pushed_at[0], SC_ZERO_TIME);
  EXPECT_EQ(pushed_at[1], SC_ZERO_TIME);
  EXPECT_EQ(pushed_at[2], us(1)) << "the third push must wait for the first pop";
  EXPECT_EQ(pushed_at[3], us(1) + ns(100));
  EXPECT_EQ(f.statistics().producer_stall, us(1) + ns(100));  // third and fourth push
  EXPECT_EQ(f.statistics().consumer_stall, SC_ZERO_TIME);
  EXPECT_EQ(f.statistics().max_level, 64u);
  EXPECT_EQ(f.level(), 0u);
}

TEST(StreamFifo, ReservedBytesCountAsOccupied) {
  mem::stream_fifo f("f", 64, true);
  fifo_bench b;
  sc_time second_push;
  b.add([&] {
    f.reserve(48);
    EXPECT_EQ(f.free_space(), 16u);
    EXPECT_FALSE(f.try_reserve(32));
    EXPECT_TRUE(f.try_reserve(16));
    EXPECT_EQ(f.free_space(), 0u);
    EXPECT_TRUE(f.try_push(16, SC_ZERO_TIME, nullptr));  // out of the reservation
    EXPECT_EQ(f.reserved(), 48u);
    EXPECT_FALSE(f.try_push(64, SC_ZERO_TIME, nullptr));  // 48 reserved + 0 free
    f.push(48, SC_ZERO_TIME, nullptr);                    // the rest of the reservation
    EXPECT_EQ(f.reserved(), 0u);
    EXPECT_EQ(f.level(), 64u);
    f.push(16, sc_core::sc_time_stamp(), nullptr);  // no space: waits for a pop
    second_push = sc_core::sc_time_stamp();
    f.reserve(16);
    f.unreserve(16);
    EXPECT_EQ(f.reserved(), 0u);
  });
  b.add([&] {
    sc_core::wait(ns(500));
    f.pop(16, nullptr);
    sc_core::wait(ns(100));
    f.pop(16, nullptr);  // room for the reservation
  });
  b.run();
  EXPECT_EQ(second_push, ns(500));
  EXPECT_EQ(f.statistics().producer_stall, ns(600));
}

TEST(StreamFifo, BytesAreNotAvailableBeforeTheirReadyTime) {
  mem::stream_fifo f("f", 4096, true);
  fifo_bench b;
  sc_time popped;
  b.add([&] { f.push(64, ns(500), nullptr); });  // a producer running ahead
  b.add([&] {
    sc_core::wait(ns(10));
    EXPECT_EQ(f.level(), 64u);
    EXPECT_EQ(f.ready_bytes(sc_core::sc_time_stamp()), 0u);
    EXPECT_EQ(f.ready_time(64), ns(500));
    EXPECT_FALSE(f.ready_time(65).has_value());
    popped = f.pop(32, nullptr);
    // A decoupled consumer at local time 200 ns gets the rest at its ready time...
    f.push(16, ns(900), nullptr);
    auto t = f.try_pop(32, nullptr, ns(200));
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(*t, ns(500));
    // ...and nothing when too few bytes are present.
    EXPECT_FALSE(f.try_pop(32, nullptr, ns(600)).has_value());
    EXPECT_EQ(*f.try_pop(16, nullptr, ns(1000)), ns(1000));  // already there at 1000 ns
  });
  b.run();
  EXPECT_EQ(popped, ns(500));
  // 490 ns blocked + 300 ns decoupled wait.
  EXPECT_EQ(f.statistics().consumer_stall, ns(490) + ns(300));
}

// try_pop_ready: the bytes' own ready time, even when it lies before the
// consumer's time (what a GEMV needs to split a wait); the same stall as
// try_pop.
TEST(StreamFifo, TryPopReadyGivesTheBytesOwnReadyTime) {
  mem::stream_fifo f("f", 4096, false);
  fifo_bench b;
  b.add([&] {
    f.push(32, ns(300), nullptr);
    f.push(32, ns(700), nullptr);
    EXPECT_EQ(*f.try_pop_ready(16, nullptr, ns(500)), ns(300));  // ready before the consumer
    EXPECT_EQ(*f.try_pop_ready(32, nullptr, ns(500)), ns(700));  // spans both chunks
    EXPECT_FALSE(f.try_pop_ready(32, nullptr, ns(500)).has_value());  // 16 left
    EXPECT_EQ(f.level(), 16u);
  });
  b.run();
  EXPECT_EQ(f.statistics().consumer_stall, ns(200));  // the second pop waited 700 - 500
}

TEST(StreamFifo, ALaterChunkIsNeverReadyBeforeAnEarlierOne) {
  mem::stream_fifo f("f", 4096, false);
  fifo_bench b;
  b.add([&] {
    f.push(16, ns(800), nullptr);
    f.push(16, ns(100), nullptr);  // stamped earlier, but queued behind
    EXPECT_EQ(f.ready_time(32), ns(800));
    EXPECT_EQ(f.pop(32, nullptr), ns(800));
  });
  b.run();
}

// A pop of N bytes and a push of M bytes can only both wait forever when
// N + M > capacity; these sizes stay below it (29 + 32 <= 64).
TEST(StreamFifo, DataKeepsItsOrderAcrossTheRingInAnyChunkSizes) {
  constexpr uint64_t kTotal = 5000;
  mem::stream_fifo f("f", 64, true);
  fifo_bench b;
  std::vector<uint8_t> got;
  b.add([&] {
    const uint64_t sizes[] = {7, 13, 1, 29, 17};
    uint8_t buf[64];
    for (uint64_t sent = 0, i = 0; sent < kTotal; ++i) {
      const uint64_t n = std::min(sizes[i % 5], kTotal - sent);
      for (uint64_t k = 0; k < n; ++k) buf[k] = pattern(sent + k, 3);
      f.push(n, sc_core::sc_time_stamp(), buf);
      sent += n;
      sc_core::wait(ns(1));
    }
  });
  b.add([&] {
    const uint64_t sizes[] = {5, 11, 16, 32, 3};
    uint8_t buf[64];
    for (uint64_t taken = 0, i = 0; taken < kTotal; ++i) {
      const uint64_t n = std::min(sizes[i % 5], kTotal - taken);
      f.pop(n, buf);
      got.insert(got.end(), buf, buf + n);
      taken += n;
    }
  });
  b.run(sc_time(1, sc_core::SC_MS));
  ASSERT_EQ(got.size(), kTotal);
  for (uint64_t i = 0; i < kTotal; ++i) ASSERT_EQ(got[i], pattern(i, 3)) << "byte " << i;
  EXPECT_EQ(f.statistics().bytes_pushed, kTotal);
  EXPECT_EQ(f.statistics().bytes_popped, kTotal);
}

TEST(StreamFifo, SmallPopsOfABigChunkWaitOnlyForTheChunk) {
  mem::stream_fifo f("f", 65536, false);
  fifo_bench b;
  std::vector<sc_time> times;
  b.add([&] { f.push(4096, us(1), nullptr); });
  b.add([&] {
    for (int i = 0; i < 256; ++i) times.push_back(f.pop(16, nullptr));  // a 16-byte engine
  });
  b.run();
  ASSERT_EQ(times.size(), 256u);
  EXPECT_EQ(times.front(), us(1));
  EXPECT_EQ(times.back(), us(1));
  EXPECT_EQ(f.level(), 0u);
}

TEST(StreamFifo, ConsumerStallCountsTheWaitForData) {
  mem::stream_fifo f("f", 256, true);
  fifo_bench b;
  b.add([&] {
    sc_core::wait(ns(300));
    f.push(16, sc_core::sc_time_stamp() + ns(50), nullptr);
  });
  b.add([&] { EXPECT_EQ(f.pop(16, nullptr), ns(350)); });
  b.run();
  EXPECT_EQ(f.statistics().consumer_stall, ns(350));
  EXPECT_EQ(f.statistics().producer_stall, SC_ZERO_TIME);
}

TEST(StreamFifo, RequestsLargerThanTheFifoAreRefused) {
  mem::stream_fifo f("f", 64, true);
  fifo_bench b;
  bool pop_threw = false, push_threw = false;
  b.add([&] {
    try {
      f.pop(65, nullptr);
    } catch (const std::invalid_argument&) {
      pop_threw = true;
    }
    try {
      f.push(65, SC_ZERO_TIME, nullptr);
    } catch (const std::invalid_argument&) {
      push_threw = true;
    }
  });
  b.run();
  EXPECT_TRUE(pop_threw);
  EXPECT_TRUE(push_threw);
}

TEST(StreamFifo, TimingModeCarriesNoData) {
  mem::stream_fifo f("f", 64, false);
  fifo_bench b;
  b.add([&] {
    const uint8_t in[16] = {1, 2, 3};
    uint8_t out[16];
    std::memset(out, 0xEE, sizeof out);
    f.push(16, SC_ZERO_TIME, in);
    f.pop(16, out);
    for (uint8_t v : out) EXPECT_EQ(v, 0u);
  });
  b.run();
}
