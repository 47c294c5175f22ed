// Firmware that misbehaves on purpose: it never waits for the NPU, ignores
// errors, floods CMD_IN, writes random offsets, programs DMA outside DDR,
// spins without MMIO, or crashes. Each run must end with exit code 1 and a
// diagnostic that names the cause; none may hang or end silently.
#include "e2e_util.h"

namespace e2e {
namespace {

using HostileFirmware = E2E;

// An AddressSanitizer build leaves fatal signals to the sanitizer's report.
#if defined(__SANITIZE_ADDRESS__)
#define PCCX_SKIP_UNDER_ASAN() GTEST_SKIP() << "AddressSanitizer reports crashes itself"
#else
#define PCCX_SKIP_UNDER_ASAN() (void)0
#endif

TEST_F(HostileFirmware, ReturningWhileTheNpuIsBusyFailsTheRun) {
  const auto r = vp({"--firmware", test_firmware("never_syncs"), "--out", "out"});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err,
                       "the firmware finished with exit code 0, but the NPU was still busy "
                       "(words issued: 1, retired: 0)"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "the driver never waited for it (uca_sync, uca_hal_wait_idle)"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "(simulation.end_check = fail)")) << r.err;
  const json summary = json::parse(read_file(path("out/summary.json")));
  EXPECT_EQ(summary["outcome"], "failed");

  // end_check = warn keeps the firmware's own result and only warns.
  const auto warn =
      vp({"--firmware", test_firmware("never_syncs"), "--set", "simulation.end_check=warn"});
  EXPECT_EQ(warn.exit_code, 0) << describe(warn);
  EXPECT_TRUE(contains(warn.err, "[W")) << warn.err;
  EXPECT_TRUE(contains(warn.err, "the NPU was still busy")) << warn.err;
}

TEST_F(HostileFirmware, AnNpuErrorLeftLatchedFailsTheRun) {
  const auto r = vp({"--firmware", test_firmware("ignore_npu_error")});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err,
                       "the NPU had latched ERR_UNKNOWN_OPCODE on instruction #0 "
                       "(0x5000000000000000: opcode 0x5: reserved opcode) and the "
                       "firmware never cleared it"))
      << r.err;
}

TEST_F(HostileFirmware, DmaOutsideDdrIsReportedAndItsErrorMustBeCleared) {
  const auto r = vp({"--firmware", test_firmware("dma_outside_ddr")});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  // The channel drops the descriptor with a warning naming the range ...
  EXPECT_TRUE(contains(r.err, "hp0: descriptor #0 (tag 7, 0x100000000, 4096 bytes) dropped"))
      << r.err;
  // ... and the run fails because the sticky error was never cleared.
  EXPECT_TRUE(contains(r.err,
                       "DMA channel hp0 had error bits 0x1 set (RANGE) that the "
                       "firmware never cleared"))
      << r.err;
}

TEST_F(HostileFirmware, FloodingCmdInRunsAtTheNpuPaceUntilTheTimeLimit) {
  const auto r = vp({"--firmware", test_firmware("flood_cmd_in"), "--set",
                     "simulation.max_time_ms=1", "--out", "out"});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "simulated-time limit of 1 ms reached (simulation.max_time_ms)"))
      << r.err;
  const json summary = json::parse(read_file(path("out/summary.json")));
  EXPECT_EQ(summary["sim_time_ns"], 1e6);
  // Held writes pace the flood: thousands of MEMSETs retire, none is lost.
  EXPECT_GT(summary["instructions_retired"].get<uint64_t>(), 1000u);
}

TEST_F(HostileFirmware, RandomMmioEndsAtTheFirstBadAddress) {
  const auto r = vp({"--firmware", test_firmware("random_mmio")});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "bus error on write of ")) << r.err;
  EXPECT_TRUE(contains(r.err, "at HAL offset 0x")) << r.err;
  // The same address every run.
  const auto again = vp({"--firmware", test_firmware("random_mmio")});
  const auto failure_line = [](const std::string& err) {
    return err.substr(err.find("pccx-vp: simulation failed:"));
  };
  EXPECT_EQ(failure_line(again.err), failure_line(r.err));
}

// A loop polling a register nothing can change any more is seen as such
// and ends the run naming the register and the NPU's state.
TEST_F(HostileFirmware, PollingAHaltedNpuIsALivelockNamingTheRegister) {
  const auto r = vp({"--firmware", test_firmware("poll_halted"), "--out", "out"});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "poll_halted.so is stuck polling npu.STATUS (0xa0000008): 1000000 "
                              "reads in a row returned what they returned before "
                              "(npu.STATUS (0xa0000008) = 0x00000006) while nothing in the "
                              "platform moved"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "; the NPU is halted at ERR_UNKNOWN_OPCODE on instruction #0"))
      << r.err;
  EXPECT_FALSE(contains(r.err, "time limit")) << r.err;
  const json summary = json::parse(read_file(path("out/summary.json")));
  EXPECT_EQ(summary["outcome"], "failed");
}

TEST_F(HostileFirmware, PollingForeverHitsTheWallClockLimitWithOutputs) {
  const auto r =
      vp({"--firmware", test_firmware("poll_halted"), "--set", "simulation.max_time_ms=86400000",
          "--set", "simulation.max_wall_s=0.5", "--set", "simulation.livelock_reads=0", "--out",
          "out"});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err,
                       "wall-time limit of 0.5 s reached (simulation.max_wall_s) before "
                       "the firmware "))
      << r.err;
  const json summary = json::parse(read_file(path("out/summary.json")));
  EXPECT_EQ(summary["outcome"], "failed");
  EXPECT_GT(summary["sim_time_ns"].get<double>(), 0.0);
}

TEST_F(HostileFirmware, SpinningWithoutMmioEndsTheProcessAfterTheWallClockLimit) {
  const auto r =
      vp({"--firmware", test_firmware("spin_forever"), "--set", "simulation.max_wall_s=0.5"});
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "wall-time limit of 0.5 s reached")) << r.err;
  EXPECT_TRUE(contains(r.err, "without a call into the platform (last call at simulated time"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "a loop without MMIO")) << r.err;
}

// A fault in firmware code ends the run, not the process: the signal is
// named and the run's outputs are written.
TEST_F(HostileFirmware, AWildPointerInFirmwareIsReportedAsACrash) {
  PCCX_SKIP_UNDER_ASAN();
  const auto r = vp({"--firmware", test_firmware("crash_null"), "--out", "out"});
  EXPECT_FALSE(r.signaled) << describe(r);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "pccx-vp: simulation failed: firmware " + test_firmware("crash_null") +
                                  " crashed with SIGSEGV (invalid memory access at address 0x10) "
                                  "in firmware code instead of returning from "
                                  "pccx_firmware_main: the run ends here, failed"))
      << r.err;
  const json summary = json::parse(read_file(path("out/summary.json")));
  EXPECT_EQ(summary["outcome"], "failed");
  EXPECT_TRUE(contains(summary["message"].get<std::string>(), "crashed with SIGSEGV"));
}

TEST_F(HostileFirmware, AWildPointerPassedToTheHalIsReportedAsACrash) {
  PCCX_SKIP_UNDER_ASAN();
  const auto r = vp({"--firmware", test_firmware("crash_in_hal")});
  EXPECT_FALSE(r.signaled) << describe(r);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "SIGSEGV (invalid memory access at address 0x20)")) << r.err;
  EXPECT_TRUE(contains(r.err, "inside a platform call (HAL or host memory")) << r.err;
}

// A firmware cannot leave the run through the C library or an exception:
// each ends the run failed (exit code 1) with what the firmware did, and the
// run's outputs are written.
TEST_F(HostileFirmware, ExitAndExceptionsEndTheRunNotTheProcess) {
  const std::pair<const char*, const char*> cases[] = {
      {"calls_exit", "called exit(0) instead of returning from pccx_firmware_main"},
      {"calls_underscore_exit", "called _exit(3) instead of returning from pccx_firmware_main"},
      {"throws_exception",
       "threw a C++ exception (the driver gave up on purpose) instead of returning"},
      {"calls_abort", "called abort() (an assert that failed?) instead of returning"},
      {"raises_signal", "raised signal 10 (SIGUSR1) instead of returning"},
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
      {"divides_by_zero",
       "crashed with SIGFPE (arithmetic fault, e.g. integer division by zero) in firmware code "
       "instead of returning"},
#endif
  };
  for (const auto& [fw, why] : cases) {
    const std::string out = std::string("out_") + fw;
    const auto r = vp({"--firmware", test_firmware(fw), "--out", out});
    EXPECT_EQ(r.exit_code, 1) << describe(r);
    EXPECT_TRUE(contains(r.err, std::string("pccx-vp: simulation failed: firmware ") +
                                    test_firmware(fw) + " " + why))
        << r.err;
    ASSERT_TRUE(fs::exists(path(out + "/summary.json"))) << fw;
    const auto summary = nlohmann::json::parse(read_file(path(out + "/summary.json")));
    EXPECT_EQ(summary["outcome"], "failed") << fw;
  }
}

// The end check covers the DMA channels as it covers the NPU: a weight
// stream nobody consumed fails a run that returned 0.
TEST_F(HostileFirmware, StreamedBytesNobodyTookFailTheEndCheck) {
  const auto r = vp({"--firmware", test_firmware("unconsumed_weights")});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "bytes were still in the hp2 FIFO: streamed in by a descriptor and "
                              "never consumed by an instruction"))
      << r.err;
}

// An output that cannot be written whole (here a full disk: /dev/full)
// fails the run with exit code 1 naming the file; a trace written fine
// appears under its name only once complete, with no temporary left.
TEST_F(HostileFirmware, AnOutputThatCannotBeWrittenFailsTheRun) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const auto full = vp({"--trace-instructions", "/dev/full"});
  EXPECT_EQ(full.exit_code, 1) << describe(full);
  EXPECT_TRUE(contains(full.err, "simulation failed: cannot write trace file /dev/full: "))
      << full.err;
  const auto fine = vp({"--trace-instructions", "t/instr.jsonl"});
  ASSERT_EQ(fine.exit_code, 0) << describe(fine);
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(path("t"))) {
    ++files;
    EXPECT_EQ(e.path().filename(), "instr.jsonl");
  }
  EXPECT_EQ(files, 1u);
}

}  // namespace
}  // namespace e2e
