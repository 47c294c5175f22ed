// The DRAM side of the controller: write batching and row hits per port,
// against figures derived by hand from the default DDR4-2400 timing
// (tCK 0.8333 ns, BL/2 = 4 clocks, CL 16, CWL 16, tWTR_S 3 / tWTR_L 9 nCK).
#include <gtest/gtest.h>

#include <cmath>

#include "models/memory/ddr/dram/dram_scheduler.h"

using namespace pccx;
using mem::ddr_port;
using mem::traffic_class;

namespace {

// Reads of 64 bytes, back to back from a full queue, with one write every
// `every` transactions to the address just read (so the writes open no
// other row). Returns the clock of the last data.
double run_mix(mem::dram_scheduler& s, uint64_t transactions, uint64_t every) {
  double end = 0;
  uint64_t a = 0;
  for (uint64_t i = 0; i < transactions; ++i) {
    if (every && i % every == every - 1) {
      s.write(ddr_port::hp0, traffic_class::kv_write, a - 64, 64, 0);
    } else {
      end = std::max(end, s.read(ddr_port::hp0, traffic_class::weights, a, 64, 0).data_end_ns);
      a += 64;
    }
  }
  s.flush(0);
  const auto& t = s.summary(end)["time_ns"];
  (void)t;
  return end;
}

}  // namespace

// A 10:1 read/write mix through the write buffer (64 entries, drained from
// 48 down to 16: batches of 32 writes). Each batch turns the bus around
// twice: read to write costs 2 clocks of bubble, write to read tWTR (3 or
// 9 clocks) plus CL = 16 before read data flows again: 21 to 27 clocks.
// The ten reads between two writes put the writes 640 bytes apart, all in
// one bank group, so the batch's 32 writes go tCCD_L = 6 clocks apart
// instead of 4: 64 clocks more. Per batch 85 to 91 clocks, 70.8 to 75.8 ns.
// So the mix takes its bursts' time plus that per batch (and the refresh
// windows of its longer run), not a constant factor.
TEST(DramScheduler, AReadWriteMixPaysTheTurnaroundOfItsBatches) {
  const config::ddr_config c;
  const uint64_t n = 110000;  // 100,000 reads and 10,000 writes
  mem::dram_scheduler pure(c), mix(c);
  const double t_pure = run_mix(pure, 100000, 0);
  const double t_mix = run_mix(mix, n, 11);
  const double burst_ns = 4 * c.tck_ns();
  const double batches = static_cast<double>(mix.drains());
  EXPECT_NEAR(batches, 10000.0 / 32, 2);
  // The mix moves 10,000 bursts more, each 4 clocks, plus the turnarounds.
  const double refresh_ns = 350.0 * (std::floor(t_mix / 7800.0) - std::floor(t_pure / 7800.0));
  const double extra = t_mix - t_pure - 10000 * burst_ns - refresh_ns;
  EXPECT_GE(extra, batches * 70.8 * 0.95);
  EXPECT_LE(extra, batches * 75.8 * 1.05);
  const auto summary = mix.summary(t_mix);
  EXPECT_GT(summary["time_ns"]["turnaround"].get<double>(), batches * 15.0);
  EXPECT_GT(summary["time_ns"]["bank_group"].get<double>(), batches * 64 * c.tck_ns() * 0.9);
  EXPECT_EQ(summary["commands"]["write_bursts"].get<uint64_t>(), 10000u);
}

// Two ports that interleave 4 KiB reads on the same banks (their rows 4 MiB
// apart, so every switch closes the other's row) lose their row hits;
// the same streams on banks apart keep them.
TEST(DramScheduler, InterleavedStreamsOnTheSameBanksLoseRowHits) {
  const config::ddr_config c;
  const auto run = [&](uint64_t second_base, double& end) {
    mem::dram_scheduler s(c);
    end = 0;
    for (uint64_t i = 0; i < 2048; ++i) {
      end = std::max(end, s.read(ddr_port::hp0, traffic_class::weights, i * 4096, 4096, 0).data_end_ns);
      end = std::max(end, s.read(ddr_port::hp1, traffic_class::weights, second_base + i * 4096, 4096, 0).data_end_ns);
    }
    return s.port_stats(ddr_port::hp0).hit_rate();
  };
  double same_end = 0, apart_end = 0;
  const double same = run(4u << 20, same_end);                 // bank 0, row 64: the same banks
  const double apart = run((4u << 20) + (32u << 10), apart_end);  // two banks further on
  EXPECT_LT(same, 0.1);
  EXPECT_GT(apart, 0.7);
  EXPECT_GT(same_end, apart_end * 1.05);
}

// Two ports post interleaved 64-byte writes to two rows of the same bank
// (4 MiB apart); consecutive writes of a port alternate bank groups. In
// arrival order every write closes the other port's row: no hits. FR-FCFS
// drains the oldest write that hits an open row first. The first drain
// (32 of the 48 buffered A0 B0 A1 B1 .. A23 B23) sends A0 (miss, opens the
// row in group 0), the 11 later A writes of group 0 (hits), B0 (miss) and
// its 11, A1 (miss, group 1) and 7 more: 3 misses in 32. The age limit (16
// overtakes) bounds how long a miss waits, so later drains switch rows more
// often; the hit rate stays above 80 %.
TEST(DramScheduler, TheWriteQueueDrainsRowHitsFirst) {
  const auto run = [](config::write_order order, uint32_t age_limit) {
    config::ddr_config c;
    c.write_buffer.order = order;
    c.write_buffer.age_limit = age_limit;
    mem::dram_scheduler s(c);
    for (uint64_t i = 0; i < 4096; ++i) {
      s.write(ddr_port::hp0, traffic_class::kv_write, i * 64, 64, 0);
      s.write(ddr_port::hp1, traffic_class::kv_write, (4u << 20) + i * 64, 64, 0);
    }
    s.flush(0);
    const auto& a = s.port_stats(ddr_port::hp0);
    const auto& b = s.port_stats(ddr_port::hp1);
    return double(a.hits + b.hits) / double(a.hits + a.misses + b.hits + b.misses);
  };
  EXPECT_EQ(run(config::write_order::fcfs, 16), 0.0);
  const double fr_fcfs = run(config::write_order::fr_fcfs, 16);
  EXPECT_GT(fr_fcfs, 0.8);
  // Without a binding age limit each drain switches rows only per port and
  // group: at least the first drain's 29 hits in 32.
  EXPECT_GT(run(config::write_order::fr_fcfs, 1000000), 29.0 / 32.0);
  EXPECT_GE(run(config::write_order::fr_fcfs, 1000000), fr_fcfs);
  // An age limit of one overtake leaves little room for reordering.
  EXPECT_LT(run(config::write_order::fr_fcfs, 1), fr_fcfs);
}

// Energy by the IDD method: a read burst costs (IDD4R - IDD3N) x VDD x
// 4 tCK per device: (150 - 47) mA x 1.2 V x 3.333 ns x 4 devices = 1.648 nJ.
TEST(DramScheduler, EnergyFollowsTheIddMethod) {
  const config::ddr_config c;
  const mem::dram_timing t = mem::dram_timing::of(c);
  const auto k = mem::dram_energy_costs::of(c.energy, 4, t);
  EXPECT_NEAR(k.read_burst_j, 103e-3 * 1.2 * 4 * t.tck_ns * 1e-9 * 4, 1e-15);
  // An activate-precharge pair: VDD x (IDD0 tRC - (IDD3N tRAS + IDD2N (tRC - tRAS))).
  const double rc = t.ns(t.rc), ras = t.ns(t.ras);
  EXPECT_NEAR(k.activate_j, 4 * 1.2e-12 * (58 * rc - (47 * ras + 34 * (rc - ras))), 1e-15);
  mem::dram_scheduler s(c);
  for (uint64_t a = 0; a < (1u << 20); a += 4096)
    s.read(ddr_port::hp0, traffic_class::weights, a, 4096, 0);
  const auto e = s.energy(1e6);
  EXPECT_NEAR(e.read_j, 16384 * k.read_burst_j, 1e-12);
  EXPECT_GT(e.background_j, 0);
  EXPECT_NEAR(s.class_energy(traffic_class::weights, 1e6).total_j(), e.total_j(), 1e-9);
}
