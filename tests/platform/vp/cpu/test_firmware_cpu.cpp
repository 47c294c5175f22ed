// The firmware CPU: HAL accesses as timed TLM transactions, temporal
// decoupling, polling versus sleeping in uca_hal_wait_idle.
#include <gtest/gtest.h>

#include "pccx_npu_regs.h"
#include "pccx_uca_ext.h"
#include "platform_test_util.h"

using namespace pccx;
using namespace pccx::test;
using sc_core::sc_time;
using sc_core::SC_US;

namespace {

int poll_status_1000_times(void) {
  for (int i = 0; i < 1000; ++i) uca_hal_read_status();
  return 0;
}

int gemv_then_wait_idle(void) {
  uca_memset(0, 0, 1, 1, 64);
  uca_memset(1, 0, 1, 64, 64);
  uca_gemv(0x800, 0x100, 0, 0, 0, 0);
  return uca_hal_wait_idle(1000) == 0 ? 0 : 3;
}

int gemv_then_short_wait(void) {
  uca_memset(0, 0, 1, 1, 64);
  uca_memset(1, 0, 1, 64, 64);
  uca_gemv(0x800, 0x100, 0, 0, 0, 0);
  return uca_hal_wait_idle(10) == -1 ? 0 : 3;
}

int illegal_then_wait(void) {
  uca_hal_issue_instr(0x6000000000000000ull);
  return uca_sync(1000) == PCCX_SYNC_NPU_ERROR ? 0 : 3;
}

int init_and_read_id(void) {
  if (uca_init() != 0) return 2;
  return uca_hal_read32(PCCX_REG_ID) == PCCX_NPU_ID ? 0 : 3;
}

config::platform_config slow_gemv_config(const std::string& mmio_trace) {
  config::platform_config cfg;
  cfg.trace.mmio = mmio_trace;
  return cfg;
}

auto bind_slow_gemv(std::unique_ptr<slow_unit>& holder) {
  return [&holder](vp::platform_top& top) {
    holder = std::make_unique<slow_unit>("slow_gemv", sc_time(100, SC_US));
    top.npu.bind_unit(npu::unit_kind::gemv, *holder);
  };
}

}  // namespace

TEST(FirmwareCpu, PollingAdvancesTimeByTheReadLatencyPerRead) {
  config::platform_config cfg;  // cpu.mmio_read_ns = 200
  auto r = vp::run_simulation(cfg, test_firmware(&poll_status_1000_times, "poll"), nullptr);
  ASSERT_EQ(r.state, vp::run_control::state::finished) << r.message;
  EXPECT_DOUBLE_EQ(r.sim_time_ns, 1000 * 200.0);
}

TEST(FirmwareCpu, ReadLatencyIsAConfigurationKey) {
  config::platform_config cfg;
  cfg.cpu.mmio_read_ns = 50;
  auto r = vp::run_simulation(cfg, test_firmware(&poll_status_1000_times, "poll"), nullptr);
  EXPECT_DOUBLE_EQ(r.sim_time_ns, 1000 * 50.0);
}

TEST(FirmwareCpu, WaitIdleSleepsOnTheNpuLineInsteadOfPolling) {
  const std::string trace = temp_path("wait_idle_mmio.jsonl");
  std::unique_ptr<slow_unit> gemv;
  auto r = vp::run_simulation(slow_gemv_config(trace), test_firmware(&gemv_then_wait_idle, "wait"),
                              nullptr, bind_slow_gemv(gemv));
  ASSERT_EQ(r.state, vp::run_control::state::finished) << r.message;
  EXPECT_EQ(r.exit_code, 0);
  // 100 us of GEMV work is waited out with a handful of STATUS reads, not
  // one per read latency (which would be 500).
  int status_reads = 0;
  for (const auto& rec : read_jsonl(trace))
    if (rec.value("reg", "") == "npu.STATUS") ++status_reads;
  EXPECT_LE(status_reads, 3);
  EXPECT_GE(r.sim_time_ns, 100000.0);
  EXPECT_LT(r.sim_time_ns, 101000.0);
}

TEST(FirmwareCpu, WaitIdleTimesOutInSimulatedTime) {
  std::unique_ptr<slow_unit> gemv;
  config::platform_config cfg;
  cfg.simulation.end_check =
      pccx::config::end_check_policy::warn;  // the firmware returns with the GEMV still running
  auto r = vp::run_simulation(cfg, test_firmware(&gemv_then_short_wait, "short"), nullptr,
                              bind_slow_gemv(gemv));
  ASSERT_EQ(r.state, vp::run_control::state::finished) << r.message;
  EXPECT_EQ(r.exit_code, 0) << "uca_hal_wait_idle(10) did not time out";
  EXPECT_GE(r.sim_time_ns, 10000.0);
  EXPECT_LT(r.sim_time_ns, 11000.0);
}

TEST(FirmwareCpu, SyncReportsALatchedError) {
  config::platform_config cfg;
  cfg.simulation.end_check =
      pccx::config::end_check_policy::warn;  // the firmware leaves the error latched
  auto r = vp::run_simulation(cfg, test_firmware(&illegal_then_wait, "illegal"), nullptr);
  ASSERT_EQ(r.state, vp::run_control::state::finished) << r.message;
  EXPECT_EQ(r.exit_code, 0);
}

TEST(FirmwareCpu, InitFindsTheNpu) {
  auto r = vp::run_simulation(config::platform_config{}, test_firmware(&init_and_read_id, "id"),
                              nullptr);
  EXPECT_EQ(r.exit_code, 0);
}

// memset_sync costs: uca_init reads STATUS once (200 ns), the retired count
// is read before and after (2 x 2 reads, 800 ns), 64 MEMSETs are two posted
// writes each (64 x 2 x 40 ns = 5120 ns), uca_sync reads STATUS once
// (200 ns); sim-control accesses are free. Total 6320 ns. All NPU work
// finishes behind the CPU and every STATUS read synchronises, so the
// quantum must not change the result: a check on LT correctness. (One
// quantum per test: SystemC elaborates once per process.)
class MemsetSyncTiming : public ::testing::TestWithParam<uint64_t> {};

TEST_P(MemsetSyncTiming, IsIndependentOfTheQuantum) {
  config::platform_config cfg;
  cfg.simulation.quantum_ns = GetParam();
  auto r = vp::run_simulation(cfg, vp::load_firmware("memset_sync"), nullptr);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  EXPECT_DOUBLE_EQ(r.sim_time_ns, 6320.0);
  EXPECT_EQ(r.instructions_retired, 64u);
}

INSTANTIATE_TEST_SUITE_P(Quanta, MemsetSyncTiming, ::testing::Values(1, 10, 1000, 100000));
