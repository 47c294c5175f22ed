// The front end's capacity from documented parameters (ddr_capacity.h),
// against the arithmetic done by hand for the defaults: DDR4-2400 x64,
// tCK = 0.8333 ns, a 24-entry queue of 64-byte requests, 110 ns of PS path
// read latency.
#include <gtest/gtest.h>

#include "models/memory/ddr/ddr_capacity.h"

using namespace pccx;

TEST(DdrCapacity, DefaultsFollowFromTheirParameters) {
  const mem::ddr_capacity k = mem::derive_capacity(config::ddr_config{});
  EXPECT_NEAR(k.tck_ns, 0.833333, 1e-6);
  EXPECT_NEAR(k.peak_bytes_per_s, 19.2e9, 1e3);           // 2400 MT/s x 8 B
  EXPECT_NEAR(k.refresh_factor, 1 - 350.0 / 7800.0, 1e-12);
  EXPECT_NEAR(k.dram_stream_bytes_per_s, 19.2e9 * (1 - 350.0 / 7800.0), 1e3);
  EXPECT_EQ(k.queue_bytes, 24u * 64u);
  // Loaded latency: 110 ns + (tRCD 16 + CL 16 + BL/2 4) x 0.8333 ns = 140 ns.
  EXPECT_NEAR(k.loaded_latency_ns, 140.0, 1e-9);
  // Little's law: 1536 B / 140 ns = 10.97 GB/s, below the DRAM's 18.34.
  EXPECT_NEAR(k.little_bytes_per_s, 1536.0 / 140e-9, 1e3);
  EXPECT_NEAR(k.effective_bytes_per_s, k.little_bytes_per_s, 1e-3);
  EXPECT_NEAR(k.effective_bytes_per_s / 1e9, 10.971, 0.001);
}

TEST(DdrCapacity, ADeepQueueLeavesTheDramAsTheBound) {
  config::ddr_config c;
  c.controller.queue_entries = 256;
  const mem::ddr_capacity k = mem::derive_capacity(c);
  EXPECT_NEAR(k.effective_bytes_per_s, k.dram_stream_bytes_per_s, 1e-3);
}

TEST(DdrCapacity, FixedModelIsPeakTimesItsEfficiency) {
  config::ddr_config c;
  c.model = config::dram_model::fixed;
  c.fixed_efficiency = 0.57;
  const mem::ddr_capacity k = mem::derive_capacity(c);
  EXPECT_NEAR(k.effective_bytes_per_s, 19.2e9 * 0.57, 1e3);
  EXPECT_NEAR(k.fixed_factor, 0.57, 1e-12);
}

TEST(DdrCapacity, DataRateScalesThePeakAndKeepsNanosecondTimings) {
  config::ddr_config c;
  c.data_rate_mtps = 3200;
  c.timing.cl = 22;
  const mem::ddr_capacity k = mem::derive_capacity(c);
  EXPECT_NEAR(k.peak_bytes_per_s, 25.6e9, 1e3);
  // tRCD 13.32 ns at tCK 0.625 ns = 21.3 -> 22 clocks: 110 + (22 + 22 + 4) x 0.625 = 140 ns.
  EXPECT_NEAR(k.loaded_latency_ns, 140.0, 1e-9);
}
