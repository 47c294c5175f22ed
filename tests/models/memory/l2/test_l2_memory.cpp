// L2 scratchpad: bounds, per-port timing (one word per clock, independent
// ports, URAM read latency), functional round trip, timing-only mode.
#include <gtest/gtest.h>

#include "dma_bench.h"

using namespace pccx;
using namespace pccx::test;
using mem::l2_memory;
using sc_core::SC_ZERO_TIME;

TEST(L2, LastWordIsInsideAndTheNextIsAnError) {
  l2_memory l2("l2", mem::l2_params{});
  EXPECT_EQ(l2.words(), 114688u);
  uint8_t w[16] = {};
  EXPECT_NO_THROW(l2.read(0, 114687, 1, w, SC_ZERO_TIME));
  EXPECT_NO_THROW(l2.write(1, 114687, 1, w, SC_ZERO_TIME));
  EXPECT_THROW(l2.read(0, 114688, 1, w, SC_ZERO_TIME), mem::l2_range_error);
  EXPECT_THROW(l2.write(1, 114688, 1, w, SC_ZERO_TIME), mem::l2_range_error);
  try {
    l2.write(0, 114680, 9, nullptr, SC_ZERO_TIME);  // starts inside, ends outside
    FAIL() << "no l2_range_error";
  } catch (const mem::l2_range_error& e) {
    EXPECT_EQ(e.first_word, 114680u);
    EXPECT_EQ(e.word_count, 9u);
    EXPECT_EQ(e.l2_words, 114688u);
    EXPECT_NE(std::string(e.what()).find("114687"), std::string::npos) << e.what();
  }
  EXPECT_THROW(l2.debug_read(114688, 1, w), mem::l2_range_error);
  EXPECT_THROW(l2.read(2, 0, 1, w, SC_ZERO_TIME), std::invalid_argument);
  EXPECT_THROW(l2.read(0, 0, 0, w, SC_ZERO_TIME), std::invalid_argument);
}

TEST(L2, EachPortMovesOneWordPerClockIndependently) {
  l2_memory l2("l2", mem::l2_params{});
  // Port 0: 16 words from t=0 take 16 cycles; the next access queues behind.
  EXPECT_EQ(l2.write(0, 0, 16, nullptr, SC_ZERO_TIME), ns(40));
  EXPECT_EQ(l2.write(0, 16, 16, nullptr, SC_ZERO_TIME), ns(80));
  EXPECT_EQ(l2.port_free_at(0), ns(80));
  // Port 1 is free: a 16-word read at t=0 ends after 16 cycles + 3 cycles latency.
  EXPECT_EQ(l2.read(1, 0, 16, nullptr, SC_ZERO_TIME), ns(47.5));
  EXPECT_EQ(l2.port_free_at(1), ns(40));
  // A caller's earliest time is respected.
  EXPECT_EQ(l2.read(1, 0, 1, nullptr, ns(100)), ns(110));
  EXPECT_EQ(l2.statistics(0).words_written, 32u);
  EXPECT_EQ(l2.statistics(1).words_read, 17u);
  EXPECT_EQ(l2.statistics(0).busy, ns(80));
}

TEST(L2, ReadLatencyIsAParameter) {
  mem::l2_params p;
  p.section.read_latency_cycles = 5;
  l2_memory l2("l2", p);
  EXPECT_EQ(l2.read(0, 0, 4, nullptr, SC_ZERO_TIME), ns(22.5));
}

TEST(L2, ASinglePortedL2SharesOnePort) {
  mem::l2_params p;
  p.section.ports = 1;
  l2_memory l2("l2", p);
  EXPECT_EQ(l2.write(0, 0, 8, nullptr, SC_ZERO_TIME), ns(20));
  EXPECT_EQ(l2.write(1, 8, 8, nullptr, SC_ZERO_TIME), ns(40));
}

TEST(L2, FunctionalRoundTrip) {
  l2_memory l2("l2", mem::l2_params{});
  std::vector<uint8_t> in(64 * 16), out(64 * 16, 0);
  for (size_t i = 0; i < in.size(); ++i) in[i] = pattern(i, 9);
  l2.write(0, 1000, 64, in.data(), SC_ZERO_TIME);
  l2.read(1, 1000, 64, out.data(), SC_ZERO_TIME);
  EXPECT_EQ(in, out);
  // Debug access sees the same bytes and costs no port time.
  const sc_time free0 = l2.port_free_at(0);
  std::vector<uint8_t> dbg(16);
  l2.debug_read(1001, 1, dbg.data());
  EXPECT_TRUE(std::equal(dbg.begin(), dbg.end(), in.begin() + 16));
  l2.debug_write(114687, 1, in.data());
  l2.debug_read(114687, 1, dbg.data());
  EXPECT_TRUE(std::equal(dbg.begin(), dbg.end(), in.begin()));
  EXPECT_EQ(l2.port_free_at(0), free0);
}

TEST(L2, TimingModeStoresNothing) {
  mem::l2_params p;
  p.functional = false;
  l2_memory l2("l2", p);
  std::vector<uint8_t> in(16, 0xAB), out(16, 0xEE);
  EXPECT_EQ(l2.write(0, 5, 1, in.data(), SC_ZERO_TIME), ns(2.5));
  l2.read(0, 5, 1, out.data(), SC_ZERO_TIME);
  for (uint8_t v : out) EXPECT_EQ(v, 0u);
}
