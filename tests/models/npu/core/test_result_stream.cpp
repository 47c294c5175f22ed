// The direct GEMV -> SFU stream: a consumer waits for words not yet
// published, gets the producer's time, and is released by close().
#include <gtest/gtest.h>

#include <systemc>

#include "models/npu/core/result_stream.h"

using pccx::npu::result_stream;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
struct stream_bench : sc_core::sc_module {
  SC_HAS_PROCESS(stream_bench);
  explicit stream_bench(sc_core::sc_module_name n) : sc_core::sc_module(n), s(7, {100, 4}) {
    SC_THREAD(producer);
    SC_THREAD(consumer);
  }
  void producer() {
    wait(10, SC_NS);
    s.publish(100, sc_time(12, SC_NS));
    wait(10, SC_NS);
    s.publish(101, sc_time(25, SC_NS));
    wait(10, SC_NS);
    s.close();  // words 102, 103 never come
  }
  void consumer() {
    for (uint32_t w = 100; w < 104; ++w) {
      auto t = s.wait_for(w);
      woke.push_back(sc_core::sc_time_stamp());
      got.push_back(t);
    }
    outside = s.wait_for(99);
  }
  result_stream s;
  std::vector<sc_time> woke;
  std::vector<std::optional<sc_time>> got;
  std::optional<sc_time> outside = sc_time(1, SC_NS);
};
}  // namespace

TEST(ResultStream, WaitsForPublishedWordsAndIsReleasedByClose) {
  stream_bench b("b");
  sc_core::sc_start();
  ASSERT_EQ(b.got.size(), 4u);
  EXPECT_EQ(b.got[0], sc_time(12, SC_NS));
  EXPECT_EQ(b.woke[0], sc_time(10, SC_NS));
  EXPECT_EQ(b.got[1], sc_time(25, SC_NS));
  EXPECT_EQ(b.woke[1], sc_time(20, SC_NS));
  EXPECT_FALSE(b.got[2].has_value()) << "closed without the word";
  EXPECT_FALSE(b.got[3].has_value());
  EXPECT_EQ(b.woke[2], sc_time(30, SC_NS));
  EXPECT_FALSE(b.outside.has_value()) << "a word outside the range is never produced";
  EXPECT_TRUE(b.s.covers({101, 3}));
  EXPECT_FALSE(b.s.covers({101, 4}));
  EXPECT_THROW(b.s.publish(104, sc_time(1, SC_NS)), std::out_of_range);
}
