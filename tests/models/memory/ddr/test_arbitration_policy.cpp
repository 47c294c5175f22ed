// Arbitration policies: the rates they compute for a set of busy ports, and
// the shares streams actually get through the controller.
#include <gtest/gtest.h>

#include <iostream>
#include <stdexcept>

#include "ddr_test_bench.h"
#include "infra/config/config_loader.h"
#include "models/memory/ddr/arbitration_policy.h"
#include "models/memory/ddr/ddr_config.h"

namespace pccx::test {
namespace {

using mem::ddr_port;
using mem::port_mask;
using mem::port_rates;

constexpr uint64_t kMiB = 1024 * 1024;
constexpr size_t kHp0 = 0, kHp1 = 1, kHp2 = 2, kHp3 = 3, kCpu = 5;
const port_rates kCaps{4e9, 4e9, 4e9, 4e9, 4e9, 2e9};

port_mask mask(std::initializer_list<size_t> ports) {
  port_mask m;
  for (size_t p : ports) m.set(p);
  return m;
}

TEST(DdrPolicy, RoundRobinSplitsEquallyAndRedistributesCappedShares) {
  auto rr = mem::make_arbitration_policy("round_robin", port_rates{});
  port_rates r = rr->share(11e9, mask({kHp0, kHp1, kHp2, kHp3}), kCaps);
  for (size_t p : {kHp0, kHp1, kHp2, kHp3}) EXPECT_DOUBLE_EQ(r[p], 2.75e9);
  EXPECT_EQ(r[4], 0.0);
  // 7 GB/s among hp0, hp1, cpu: cpu is capped at 2, the others split 5.
  r = rr->share(7e9, mask({kHp0, kHp1, kCpu}), kCaps);
  EXPECT_DOUBLE_EQ(r[kCpu], 2e9);
  EXPECT_DOUBLE_EQ(r[kHp0], 2.5e9);
  EXPECT_DOUBLE_EQ(r[kHp1], 2.5e9);
  // Everyone capped: 4 + 2 < 11.
  r = rr->share(11e9, mask({kHp0, kCpu}), kCaps);
  EXPECT_DOUBLE_EQ(r[kHp0], 4e9);
  EXPECT_DOUBLE_EQ(r[kCpu], 2e9);
}

TEST(DdrPolicy, WeightedFollowsWeights) {
  auto w = mem::make_arbitration_policy("weighted", port_rates{3, 1, 1, 1, 1, 1});
  port_rates r = w->share(6e9, mask({kHp0, kHp1}), kCaps);
  EXPECT_DOUBLE_EQ(r[kHp0], 4e9);  // 4.5 capped at 4, the rest to hp1
  EXPECT_DOUBLE_EQ(r[kHp1], 2e9);
  r = w->share(4e9, mask({kHp0, kHp1}), kCaps);
  EXPECT_DOUBLE_EQ(r[kHp0], 3e9);
  EXPECT_DOUBLE_EQ(r[kHp1], 1e9);
  EXPECT_THROW(mem::make_arbitration_policy("weighted", port_rates{1, 0, 1, 1, 1, 1}),
               std::invalid_argument);
}

TEST(DdrPolicy, FixedPriorityServesInPortOrder) {
  auto fp = mem::make_arbitration_policy("fixed_priority", port_rates{});
  const port_rates r = fp->share(11e9, mask({kHp0, kHp1, kHp2, kHp3}), kCaps);
  EXPECT_DOUBLE_EQ(r[kHp0], 4e9);
  EXPECT_DOUBLE_EQ(r[kHp1], 4e9);
  EXPECT_DOUBLE_EQ(r[kHp2], 3e9);
  EXPECT_DOUBLE_EQ(r[kHp3], 0.0);
}

TEST(DdrPolicy, UnknownNameIsRejected) {
  EXPECT_THROW(mem::make_arbitration_policy("lottery", port_rates{}), std::invalid_argument);
  EXPECT_EQ(mem::arbitration_policy_names().size(), 3u);
}

// The schema accepts exactly the policies the registry can make.
TEST(DdrPolicy, SchemaNamesAreTheRegistrysNames) {
  for (const auto& k : pccx::config::describe_keys_as<pccx::config::ddr_config>())
    if (k.pointer == "/arbitration") {
      std::string want = "one of ";
      for (const auto& n : mem::arbitration_policy_names())
        want += (want == "one of " ? "" : ", ") + n;
      EXPECT_EQ(k.constraint, want);
      return;
    }
  ADD_FAILURE() << "ddr_config has no arbitration key";
}

TEST(DdrPolicy, WeightedSharesThroughTheController) {
  // 19.2 x 0.3 = 5.76 GB/s; weights 2:1 give 3.84 and 1.92 (both under the cap).
  ddr_system sys({"ddr.model=fixed", "ddr.fixed_efficiency=0.3", "ddr.arbitration=weighted",
                  "ddr.port_weights=[2,1,1,1,1,1]"});
  stream_job job;
  job.bytes = 8 * kMiB;
  job.until = sc_time(1, sc_core::SC_MS);  // both busy for the whole run
  sys.add_ports({ddr_port::hp0, ddr_port::hp1}, job);
  run_all();
  EXPECT_NEAR(sys.streams[0]->gbps(), 3.84, 3.84 * 0.02);
  EXPECT_NEAR(sys.streams[1]->gbps(), 1.92, 1.92 * 0.02);
}

TEST(DdrPolicy, FixedPrioritySharesThroughTheController) {
  // Three HP ports on 11 GB/s: hp0 and hp1 get their 4 GB/s, hp2 the rest.
  // The fixed model: the policy is what is under test, not the DRAM's rows.
  ddr_system sys({"ddr.arbitration=fixed_priority", "ddr.model=fixed"});
  stream_job job;
  job.bytes = 8 * kMiB;
  job.until = sc_time(1, sc_core::SC_MS);
  sys.add_ports({ddr_port::hp0, ddr_port::hp1, ddr_port::hp2}, job);
  run_all();
  const double eff = effective_gbps(*sys.ddr);
  EXPECT_NEAR(sys.streams[0]->gbps(), 4.0, 4.0 * 0.02);
  EXPECT_NEAR(sys.streams[1]->gbps(), 4.0, 4.0 * 0.02);
  EXPECT_NEAR(sys.streams[2]->gbps(), eff - 8.0, (eff - 8.0) * 0.02);
}

TEST(DdrPolicy, RoundRobinRedistributesThroughTheController) {
  // 19.2 x 0.3646 = 7 GB/s among hp0, hp1 and the CPU (2 GB/s cap).
  ddr_system sys({"ddr.model=fixed", "ddr.fixed_efficiency=0.36458333333333333"});
  stream_job job;
  job.bytes = 8 * kMiB;
  job.until = sc_time(1, sc_core::SC_MS);
  sys.add_ports({ddr_port::hp0, ddr_port::hp1, ddr_port::cpu}, job);
  run_all();
  EXPECT_NEAR(sys.streams[0]->gbps(), 2.5, 2.5 * 0.02);
  EXPECT_NEAR(sys.streams[1]->gbps(), 2.5, 2.5 * 0.02);
  EXPECT_NEAR(sys.streams[2]->gbps(), 2.0, 2.0 * 0.02);
}

TEST(DdrPolicy, FixedPriorityUnderSaturationKeepsOrderAndTotal) {
  // Four HP ports on 11 GB/s: by priority hp3 would get nothing. Decoupled
  // initiators cannot be starved exactly (a reservation cannot be taken back
  // when a higher-priority port calls later; docs/models/memory-ddr.md), so hp3
  // leaks some bandwidth, but the order holds and the total stays capped.
  // The fixed model: the policy is what is under test, not the DRAM's rows.
  ddr_system sys({"ddr.arbitration=fixed_priority", "ddr.model=fixed"});
  stream_job job;
  job.bytes = 64 * kMiB;
  job.until = sc_time(1, sc_core::SC_MS);
  sys.add_ports({ddr_port::hp0, ddr_port::hp1, ddr_port::hp2, ddr_port::hp3}, job);
  run_all();
  const double eff = effective_gbps(*sys.ddr);
  double sum = 0;
  std::cout << "fixed_priority, four saturated HP ports:";
  for (const auto& s : sys.streams) {
    std::cout << " " << mem::ddr_port_name(s->job.port) << " " << s->gbps();
    sum += s->gbps();
  }
  std::cout << " GB/s\n";
  const auto g = [&](size_t i) { return sys.streams[i]->gbps(); };
  EXPECT_GE(g(0), g(2));
  EXPECT_GE(g(1), g(2));
  EXPECT_GT(g(2), g(3));
  EXPECT_GT(g(0), 3.5);
  EXPECT_LE(sum, eff * 1.005);
}

}  // namespace
}  // namespace pccx::test
