// The error temporal decoupling introduces: the same two-stream experiment
// with initiators running up to 1 us ahead versus 100 ns ahead. A port that
// arrives earlier but calls later is not seen by reservations already made;
// the per-stream bytes moved in a fixed time show how much that matters.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "ddr_test_bench.h"

namespace pccx::test {
namespace {

using mem::ddr_port;

constexpr uint64_t kMiB = 1024 * 1024;

struct experiment {
  std::unique_ptr<ddr_system> sys;
  uint32_t block;
  uint64_t quantum_ns;
};

// Two streams on 6 GB/s (DDR-limited), hp2 joining 10.3 us after hp0, both
// issuing until 1 ms.
experiment two_streams(uint32_t block, uint64_t quantum_ns) {
  const std::string prefix = "b" + std::to_string(block) + "_q" + std::to_string(quantum_ns) + "_";
  experiment e{std::make_unique<ddr_system>(
                   std::vector<std::string>{"ddr.model=fixed", "ddr.fixed_efficiency=0.3125",
                                            "simulation.quantum_ns=" + std::to_string(quantum_ns)},
                   prefix),
               block, quantum_ns};
  stream_job job;
  job.bytes = 64 * kMiB;
  job.block_bytes = block;
  job.until = sc_time(1, sc_core::SC_MS);
  const sc_time q(static_cast<double>(quantum_ns), SC_NS);
  e.sys->add(job, q);
  job.port = ddr_port::hp2;
  job.address = 64 * kMiB;
  job.start_at = sc_time(10.3, SC_US);
  e.sys->add(job, q);
  return e;
}

TEST(DdrQuantum, DecouplingErrorOfTwoStreamsIsSmall) {
  std::vector<experiment> runs;
  for (uint32_t block : {4096u, 256u})
    for (uint64_t q : {1000u, 100u}) runs.push_back(two_streams(block, q));
  run_all();

  std::printf("block  quantum  hp0 bytes   hp2 bytes   total GB/s\n");
  for (const auto& r : runs) {
    const auto& s = r.sys->streams;
    const double total = r.sys->ddr->recorder().summary()["total"]["avg_gbps"].get<double>();
    std::printf("%5u  %5llu ns  %10llu  %10llu  %.4f\n", r.block,
                static_cast<unsigned long long>(r.quantum_ns),
                static_cast<unsigned long long>(s[0]->bytes_done),
                static_cast<unsigned long long>(s[1]->bytes_done), total);
    EXPECT_LE(total, 6.0 * 1.001);
  }
  for (size_t i = 0; i < runs.size(); i += 2) {
    for (size_t k = 0; k < 2; ++k) {
      const double coarse = static_cast<double>(runs[i].sys->streams[k]->bytes_done);
      const double fine = static_cast<double>(runs[i + 1].sys->streams[k]->bytes_done);
      const double rel = std::abs(coarse - fine) / fine;
      std::printf("block %u, stream %zu: 1 us vs 100 ns quantum differ by %.0f bytes (%.4f %%)\n",
                  runs[i].block, k, std::abs(coarse - fine), rel * 100);
      EXPECT_LT(rel, 0.005);
    }
  }
}

TEST(DdrQuantum, ActivityHorizonKeepsSmallBlocksFair) {
  // Four HP streams of 64-byte blocks: a decoupled initiator issues a whole
  // quantum of blocks before the others call. Counting a port as busy for one
  // quantum after its last transfer (the default) keeps the shares equal;
  // without it (horizon 0) the first caller of each quantum finds the others
  // idle and takes more.
  ddr_system with({}, "h1_");
  ddr_system without({}, "h0_",
                     [](mem::ddr_params& p) { p.activity_horizon = sc_core::SC_ZERO_TIME; });
  stream_job job;
  job.bytes = 1 * kMiB;  // more than 100 us can move: all four stay busy
  job.block_bytes = 64;
  job.until = sc_time(100, SC_US);
  const std::vector<ddr_port> hp = {ddr_port::hp0, ddr_port::hp1, ddr_port::hp2, ddr_port::hp3};
  with.add_ports(hp, job);
  without.add_ports(hp, job);
  run_all();
  const double eff = effective_gbps(*with.ddr);
  for (auto* sys : {&with, &without}) {
    double lo = 1e9, hi = 0, sum = 0;
    for (const auto& s : sys->streams) {
      lo = std::min(lo, s->gbps());
      hi = std::max(hi, s->gbps());
      sum += s->gbps();
    }
    std::printf("horizon %s: per-port %.3f .. %.3f GB/s, sum %.3f GB/s (effective %.3f)\n",
                sys == &with ? "1 us" : "0", lo, hi, sum, eff);
    EXPECT_LE(sum, eff * 1.005);
    if (sys == &with) {
      EXPECT_NEAR(lo, eff / 4, eff / 4 * 0.02);
      EXPECT_NEAR(hi, eff / 4, eff / 4 * 0.02);
    }
  }
}

}  // namespace
}  // namespace pccx::test
