// Runs that end badly because of what the firmware does: NPU errors in
// strict mode, bus errors, the simulated-time limit, a stalled platform, a
// nonzero exit code. Each is a simulation failure: exit code 1.
#include "e2e_util.h"

namespace e2e {
namespace {

using Failures = E2E;

TEST_F(Failures, ErrorRecoveryRecoversUnlessStrict) {
  const auto ok = vp({"--firmware", "error_recovery", "--trace-instructions", "instr.jsonl"});
  ASSERT_EQ(ok.exit_code, 0) << describe(ok);
  EXPECT_TRUE(contains(ok.out, "error_recovery: all errors latched, cleared and recovered"));

  // The three illegal words appear as error records, then one good MEMSET.
  const auto records = without_markers(read_jsonl(path("instr.jsonl")));
  ASSERT_EQ(records.size(), 4u) << read_file(path("instr.jsonl"));
  const char* codes[] = {"ERR_UNKNOWN_OPCODE", "ERR_RESERVED_BITS", "ERR_ZERO_LENGTH"};
  const char* words[] = {"0x5000000000000000", "0x3000000000000001", "0x4000000000000000"};
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(records[i].dump());
    EXPECT_EQ(records[i]["seq"], i);
    EXPECT_EQ(records[i]["status"], codes[i]);
    EXPECT_EQ(records[i]["word"], words[i]);
    EXPECT_TRUE(records[i].contains("fault_ns"));
    EXPECT_TRUE(records[i].contains("error"));
    EXPECT_FALSE(records[i].contains("retire_ns"));
    EXPECT_LE(records[i]["queued_ns"].get<double>(), records[i]["fault_ns"].get<double>());
  }
  EXPECT_EQ(records[3]["status"], "ok");
  EXPECT_EQ(records[3]["disasm"], "MEMSET fmap_shape[5] <- (1, 2, 3)");

  const auto strict = vp({"--firmware", "error_recovery", "--strict"});
  EXPECT_EQ(strict.exit_code, 1) << describe(strict);
  EXPECT_TRUE(contains(strict.err, "ERR_UNKNOWN_OPCODE")) << strict.err;
  EXPECT_TRUE(contains(strict.err, "0x5000000000000000")) << strict.err;
  EXPECT_TRUE(contains(strict.err, "simulation failed")) << strict.err;
  // The run ends at the first error: the recovery message is never printed.
  EXPECT_FALSE(contains(strict.out, "all errors latched")) << strict.out;
}

TEST_F(Failures, ReadOfUnmappedAddressIsABusError) {
  const auto r = vp({"--firmware", test_firmware("bad_read_unmapped")});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "bus error on read of 0xa0200000")) << r.err;
  EXPECT_TRUE(contains(r.err, "HAL offset 0x00200000")) << r.err;
  EXPECT_TRUE(contains(r.err, "no device is mapped")) << r.err;
}

TEST_F(Failures, WriteOfReadOnlyRegisterIsABusError) {
  const auto r = vp({"--firmware", test_firmware("bad_write_readonly")});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "0xa000000c")) << r.err;
  EXPECT_TRUE(contains(r.err, "npu.ERR_CODE")) << r.err;
  EXPECT_TRUE(contains(r.err, "read-only")) << r.err;
}

TEST_F(Failures, PollingAHaltedNpuHitsTheTimeLimit) {
  const auto r = vp({"--firmware", test_firmware("poll_halted"), "--set",
                     "simulation.max_time_ms=1", "--out", "out"});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "simulated-time limit of 1 ms")) << r.err;
  EXPECT_TRUE(contains(r.err, "simulation.max_time_ms")) << r.err;
  const json summary = json::parse(read_file(path("out/summary.json")));
  EXPECT_EQ(summary["outcome"], "failed");
  EXPECT_EQ(summary["exit_code"], 1);
  EXPECT_EQ(summary["sim_time_ns"], 1e6);
  EXPECT_EQ(summary["instructions_retired"], 0);
}

TEST_F(Failures, OverfillingCmdInOnAHaltedNpuEndsAtThatWrite) {
  const auto r = vp({"--firmware", test_firmware("stall_full_fifo")});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "stall_full_fifo.so: INSTR_HI written with CMD_IN full (8 words) "
                              "while the NPU is halted at ERR_UNKNOWN_OPCODE on instruction #0"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "so the write can never complete")) << r.err;
  EXPECT_FALSE(contains(r.err, "time limit")) << r.err;
}

TEST_F(Failures, NonzeroFirmwareResultFailsTheRun) {
  const auto r = vp({"--firmware", test_firmware("return_nonzero")});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_EQ(r.out, "return_nonzero: returning 3\n");
  EXPECT_TRUE(contains(r.err, "returned 3")) << r.err;
  EXPECT_TRUE(contains(r.err, "exit code 3")) << r.err;
}

TEST_F(Failures, SimctlExitEndsTheRunAtOnce) {
  const auto r = vp({"--firmware", test_firmware("simctl_exit")});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out, "simctl_exit: before EXIT\n");
  EXPECT_TRUE(contains(r.err, "EXIT register")) << r.err;
}

}  // namespace
}  // namespace e2e
