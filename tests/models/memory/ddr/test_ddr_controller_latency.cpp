// Latency and queueing delay: an unloaded access takes the configured latency
// on top of its transfer at the port's own cap; under load the extra time
// shows up as queueing; a port with too few blocks in flight cannot reach its
// cap (Little's law).
#include <gtest/gtest.h>

#include "ddr_test_bench.h"

namespace pccx::test {
namespace {

using mem::ddr_port;

constexpr uint64_t kMiB = 1024 * 1024;

TEST(DdrLatency, UnloadedReadTakesReadLatencyPlusTransfer) {
  ddr_system sys;
  std::vector<mem::ddr_access> seen;
  sys.ddr->accesses.subscribe([&](const mem::ddr_access& a) { seen.push_back(a); });
  std::vector<uint8_t> buf(64);
  sc_time delay(250, SC_NS);  // the initiator is 250 ns ahead
  ASSERT_EQ(access(*sys.ddr, ddr_port::hp1, false, 0x1000, buf.data(), 64, &delay),
            tlm::TLM_OK_RESPONSE);
  ASSERT_EQ(seen.size(), 1u);
  const mem::ddr_access& a = seen[0];
  EXPECT_EQ(a.arrival, sc_time(250, SC_NS));
  EXPECT_EQ(a.start, a.arrival);
  EXPECT_EQ(a.end - a.start, sc_time(16, SC_NS));  // 64 B at 4 GB/s
  EXPECT_EQ(a.latency(), sc_time(100 + 16, SC_NS));
  EXPECT_EQ(a.latency() - (a.end - a.start), sys.params.read_latency);
  EXPECT_EQ(a.queueing, sc_core::SC_ZERO_TIME);
  EXPECT_EQ(delay, sc_time(250 + 116, SC_NS));  // completion - kernel time

  const auto port = sys.ddr->recorder().summary()["ports"]["hp1"];
  EXPECT_DOUBLE_EQ(port["avg_latency_ns"].get<double>(), 116.0);
  EXPECT_DOUBLE_EQ(port["max_queueing_ns"].get<double>(), 0.0);
}

TEST(DdrLatency, UnloadedWriteTakesWriteLatency) {
  ddr_system sys({"ddr.write_latency_ns=55"});
  std::vector<uint8_t> buf(4096);
  sc_time delay;
  ASSERT_EQ(access(*sys.ddr, ddr_port::acp, true, 0, buf.data(), 4096, &delay),
            tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(delay, sc_time(1024 + 55, SC_NS));
}

TEST(DdrLatency, LoadedStreamsShowQueueing) {
  ddr_system sys;
  stream_job job;
  job.bytes = 4 * kMiB;
  sys.add_ports({ddr_port::hp0, ddr_port::hp1, ddr_port::hp2, ddr_port::hp3}, job);
  run_all();
  const auto s = sys.ddr->recorder().summary();
  // Each 4 KiB block takes 4096 / 2.75 GB/s = 1489 ns instead of 1024 ns at
  // the port's cap: about 465 ns of queueing per block.
  const double share = sys.ddr->efficiency().effective_bytes_per_s / 4;
  const double expected = 4096 / share * 1e9 - 4096 / 4e9 * 1e9;
  for (const char* p : {"hp0", "hp1", "hp2", "hp3"}) {
    EXPECT_NEAR(s["ports"][p]["avg_queueing_ns"].get<double>(), expected, expected * 0.02) << p;
    EXPECT_NEAR(s["ports"][p]["avg_latency_ns"].get<double>(), 100 + expected + 1024,
                (100 + expected + 1024) * 0.02)
        << p;
  }
  EXPECT_GT(s["total"]["max_queueing_ns"].get<double>(), expected);
}

TEST(DdrLatency, OneBlockInFlightCannotReachThePortCap) {
  ddr_system sys;
  stream_job job;
  job.bytes = 4 * kMiB;
  job.outstanding = 1;  // next block only after the previous completes
  auto& one = sys.add(job);
  job.port = ddr_port::hp1;
  job.outstanding = 2;  // 2 x 4 KiB covers 100 ns x 4 GB/s
  auto& two = sys.add(job);
  run_all();
  // Block time 1024 ns + 100 ns latency per 4 KiB.
  EXPECT_NEAR(one.gbps(), 4096.0 / 1124.0, 0.01);
  EXPECT_NEAR(two.gbps(), 4.0, 4.0 * 0.005);
  // 7.6 GB/s in total is below the DDR's 11: no contention. hp1's second
  // block in flight waits for its own port, and that is all its queueing.
  const auto s = sys.ddr->recorder().summary()["ports"];
  EXPECT_DOUBLE_EQ(s["hp0"]["avg_queueing_ns"].get<double>(), 0.0);
  EXPECT_GT(s["hp1"]["avg_port_wait_ns"].get<double>(), 800.0);
  EXPECT_DOUBLE_EQ(s["hp1"]["avg_queueing_ns"].get<double>(),
                   s["hp1"]["avg_port_wait_ns"].get<double>());
}

}  // namespace
}  // namespace pccx::test
