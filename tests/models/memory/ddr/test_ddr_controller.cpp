// Bandwidth of streams through the controller: one port is held to its own
// cap, several ports share the DDR's effective bandwidth fairly, and mixed
// read/write traffic pays the documented turnaround factor.
#include <gtest/gtest.h>

#include <iostream>

#include "ddr_test_bench.h"

namespace pccx::test {
namespace {

using mem::ddr_port;

constexpr uint64_t kMiB = 1024 * 1024;
const std::vector<ddr_port> kHp = {ddr_port::hp0, ddr_port::hp1, ddr_port::hp2, ddr_port::hp3};

double total_gbps(const mem::ddr_controller& d) {
  return d.recorder().summary()["total"]["avg_gbps"].get<double>();
}

TEST(DdrBandwidth, OneHpPortIsCappedAt4GBps) {
  ddr_system sys;
  stream_job job;
  job.bytes = 64 * kMiB;
  auto& s = sys.add(job);
  run_all();
  ASSERT_TRUE(s.done);
  ASSERT_FALSE(s.failed);
  EXPECT_EQ(s.bytes_done, job.bytes);
  // 16 bytes x 250 MHz; the summary's span includes the last read latency.
  EXPECT_NEAR(s.gbps(), 4.0, 4.0 * 0.005);
  EXPECT_NEAR(total_gbps(*sys.ddr), 4.0, 4.0 * 0.005);
  EXPECT_NEAR(sys.ddr->recorder().peak_gbps(ddr_port::hp0), 4.0, 4.0 * 0.005);
}

TEST(DdrBandwidth, FourHpPortsReachEffectiveBandwidth) {
  ddr_system sys;
  stream_job job;
  job.bytes = 16 * kMiB;
  sys.add_ports(kHp, job);
  run_all();
  const double eff = effective_gbps(*sys.ddr);
  const double total = total_gbps(*sys.ddr);
  std::cout << "four HP ports: " << total << " GB/s of effective " << eff << "\n";
  EXPECT_NEAR(total, eff, eff * 0.01);
  for (const auto& s : sys.streams) {
    ASSERT_TRUE(s->done);
    EXPECT_NEAR(s->gbps(), eff / 4, eff / 4 * 0.02) << mem::ddr_port_name(s->job.port);
  }
  // Over any window after the ramp-up the total stays at or below effective.
  const auto& r = sys.ddr->recorder();
  for (size_t w = 1; w + 1 < r.window_count(); ++w) {
    uint64_t bytes = 0;
    for (auto p : kHp) bytes += r.window_bytes(p, w);
    EXPECT_LE(bytes / r.window().to_seconds() / 1e9, eff * 1.001) << "window " << w;
  }
}

TEST(DdrBandwidth, TwoStreamsSplitFairlyWhenDdrLimited) {
  // 19.2 x 0.3125 = 6 GB/s effective: two HP ports (4 GB/s each) are DDR-limited.
  ddr_system sys({"ddr.model=fixed", "ddr.fixed_efficiency=0.3125"});
  stream_job job;
  job.bytes = 16 * kMiB;
  sys.add_ports({ddr_port::hp0, ddr_port::hp2}, job);
  run_all();
  ASSERT_NEAR(effective_gbps(*sys.ddr), 6.0, 1e-9);
  for (const auto& s : sys.streams) EXPECT_NEAR(s->gbps(), 3.0, 3.0 * 0.02);
  EXPECT_NEAR(total_gbps(*sys.ddr), 6.0, 6.0 * 0.01);
}

TEST(DdrBandwidth, TwoOfFourStreamsGetAQuarterEach) {
  ddr_system sys;
  stream_job job;
  job.bytes = 8 * kMiB;
  sys.add_ports(kHp, job);
  run_all();
  const double eff = effective_gbps(*sys.ddr);
  const double a = sys.streams[0]->gbps(), b = sys.streams[1]->gbps();
  EXPECT_NEAR(a / b, 1.0, 0.02);
  EXPECT_NEAR(a, eff / 4, eff / 4 * 0.02);
}

TEST(DdrBandwidth, MixedReadWriteIsSlowerByTheMixedFactor) {
  // Two independent systems in one elaboration: pure reads and half writes.
  ddr_system reads({}, "r_");
  ddr_system mixed({}, "m_");
  stream_job job;
  job.bytes = 16 * kMiB;
  reads.add_ports(kHp, job);
  job.write = false;
  mixed.add_ports({ddr_port::hp0, ddr_port::hp1}, job);
  job.write = true;
  job.address = 64 * kMiB;
  mixed.add_ports({ddr_port::hp2, ddr_port::hp3}, job);
  run_all();
  const double pure = total_gbps(*reads.ddr);
  const double mix = total_gbps(*mixed.ddr);
  const double factor = reads.ddr->efficiency().mixed_factor;
  std::cout << "pure reads " << pure << " GB/s, mixed " << mix << " GB/s, ratio " << mix / pure
            << " (mixed factor " << factor << ")\n";
  EXPECT_NEAR(mix / pure, factor, factor * 0.01);
  EXPECT_NEAR(pure, effective_gbps(*reads.ddr), effective_gbps(*reads.ddr) * 0.01);
}

TEST(DdrBandwidth, FixedModelGivesPeakTimesFixedEfficiency) {
  ddr_system sys({"ddr.model=fixed"});
  stream_job job;
  job.bytes = 16 * kMiB;
  sys.add_ports(kHp, job);
  run_all();
  EXPECT_NEAR(total_gbps(*sys.ddr), 19.2 * 0.57, 19.2 * 0.57 * 0.01);
}

TEST(DdrBandwidth, SlowerAxiClockLowersTheHpCap) {
  ddr_system sys({"clocks.axi_mhz=100"});
  stream_job job;
  job.bytes = 16 * kMiB;
  auto& s = sys.add(job);
  run_all();
  EXPECT_NEAR(s.gbps(), 1.6, 1.6 * 0.005);
}

}  // namespace
}  // namespace pccx::test
