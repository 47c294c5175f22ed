// How runs end: firmware return, sim-control EXIT, bus errors, strict mode,
// the time limit and a stalled simulation; prints and markers.
#include <gtest/gtest.h>

#include "pccx_simctl.h"
#include "pccx_uca_ext.h"
#include "platform_test_util.h"

using namespace pccx;
using namespace pccx::test;

namespace {

bool g_ran_past_exit = false;

int print_mark_and_exit(void) {
  pccx_simctl_print("hello from firmware");
  pccx_simctl_marker("token 0 layer 0 begins");
  uca_memset(0, 1, 2, 3, 4);
  pccx_simctl_exit(7);
  g_ran_past_exit = true;
  return 0;
}

int returns_five(void) {
  return 5;
}

int reads_unmapped(void) {
  uca_hal_read32(0x00200000);
  return 0;
}

int writes_read_only(void) {
  uca_hal_write32(PCCX_REG_ERR_CODE, 1);
  return 0;
}

int unaligned_access(void) {
  uca_hal_read32(UCA_REG_STATUS + 2);
  return 0;
}

int polls_forever(void) {
  for (;;) uca_hal_read_status();
}

int overfills_halted_npu(void) {
  uca_hal_issue_instr(0x6000000000000000ull);  // halts issue
  for (int i = 0; i < 20; ++i) uca_memset(0, 0, 1, 1, 1);
  return 0;
}

int issues_illegal(void) {
  uca_hal_issue_instr(0x6000000000000000ull);
  uca_sync(100);
  return 0;
}

vp::run_result run(vp::firmware_entry fw, config::platform_config cfg = {}) {
  return vp::run_simulation(cfg, test_firmware(fw, "test_fw"), nullptr);
}

}  // namespace

TEST(RunOutcomes, SimControlPrintsMarksAndEndsTheRun) {
  config::platform_config cfg;
  cfg.trace.instructions = temp_path("exit_instr.jsonl");
  auto r = run(&print_mark_and_exit, cfg);
  EXPECT_EQ(r.state, vp::run_control::state::finished);
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_FALSE(g_ran_past_exit) << "firmware kept running after EXIT";
  ASSERT_EQ(r.printed.size(), 1u);
  EXPECT_EQ(r.printed[0], "hello from firmware");
  ASSERT_EQ(r.markers.size(), 1u);
  EXPECT_EQ(r.markers[0], "token 0 layer 0 begins");
  const auto trace = read_jsonl(cfg.trace.instructions);
  ASSERT_GE(trace.size(), 1u);
  EXPECT_EQ(trace[0].value("marker", ""), "token 0 layer 0 begins");
}

TEST(RunOutcomes, FirmwareReturnValueIsTheExitCode) {
  auto r = run(&returns_five);
  EXPECT_EQ(r.state, vp::run_control::state::finished);
  EXPECT_EQ(r.exit_code, 5);
}

TEST(RunOutcomes, UnmappedAccessFailsNamingTheAddress) {
  auto r = run(&reads_unmapped);
  EXPECT_EQ(r.state, vp::run_control::state::failed);
  EXPECT_NE(r.message.find("0xa0200000"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("no device is mapped"), std::string::npos) << r.message;
}

TEST(RunOutcomes, WriteToReadOnlyRegisterFailsNamingIt) {
  auto r = run(&writes_read_only);
  EXPECT_EQ(r.state, vp::run_control::state::failed);
  EXPECT_NE(r.message.find("npu.ERR_CODE"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("read-only"), std::string::npos) << r.message;
}

TEST(RunOutcomes, UnalignedAccessFails) {
  auto r = run(&unaligned_access);
  EXPECT_EQ(r.state, vp::run_control::state::failed);
  EXPECT_NE(r.message.find("aligned 32-bit"), std::string::npos) << r.message;
}

TEST(RunOutcomes, TimeLimitEndsAPollingLoop) {
  config::platform_config cfg;
  cfg.simulation.max_time_ms = 1;
  auto r = run(&polls_forever, cfg);
  EXPECT_EQ(r.state, vp::run_control::state::failed);
  EXPECT_NE(r.message.find("max_time_ms"), std::string::npos) << r.message;
  EXPECT_DOUBLE_EQ(r.sim_time_ns, 1e6);
}

// The write that can never complete ends the run there, naming the error.
TEST(RunOutcomes, WriterBlockedOnAHaltedNpuEndsTheRunAtThatWrite) {
  auto r = run(&overfills_halted_npu);
  EXPECT_EQ(r.state, vp::run_control::state::failed);
  EXPECT_NE(r.message.find("INSTR_HI written with CMD_IN full"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("while the NPU is halted at ERR_UNKNOWN_OPCODE"), std::string::npos)
      << r.message;
}

TEST(RunOutcomes, StrictModeEndsTheRunAtTheFirstNpuError) {
  config::platform_config cfg;
  cfg.simulation.strict = true;
  auto r = run(&issues_illegal, cfg);
  EXPECT_EQ(r.state, vp::run_control::state::failed);
  EXPECT_NE(r.message.find("ERR_UNKNOWN_OPCODE"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("0x6000000000000000"), std::string::npos) << r.message;
}

TEST(RunOutcomes, WithoutStrictTheSameErrorIsLatchedAndTheRunFinishes) {
  config::platform_config cfg;
  cfg.simulation.end_check = pccx::config::end_check_policy::warn;
  auto r = run(&issues_illegal, cfg);
  EXPECT_EQ(r.state, vp::run_control::state::finished);
  EXPECT_EQ(r.exit_code, 0);
}

TEST(RunOutcomes, AnErrorLeftLatchedAtTheEndFailsTheRun) {
  auto r = run(&issues_illegal);  // simulation.end_check = fail
  EXPECT_EQ(r.state, vp::run_control::state::failed);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.message.find("the NPU had latched ERR_UNKNOWN_OPCODE on instruction #0 "
                           "(0x6000000000000000: opcode 0x6: reserved opcode) and the firmware "
                           "never cleared it"),
            std::string::npos)
      << r.message;
}

TEST(RunOutcomes, SummaryNamesCountersAndOutcome) {
  config::platform_config cfg;
  auto r = vp::run_simulation(cfg, vp::load_firmware("memset_sync"), nullptr);
  const auto s = r.summary(cfg, vp::load_firmware("memset_sync"));
  EXPECT_EQ(s["outcome"], "finished");
  EXPECT_EQ(s["instructions_retired"], 64);
  EXPECT_EQ(s["npu_counters"]["cycles"], static_cast<uint64_t>(6320 / 2.5));
}
