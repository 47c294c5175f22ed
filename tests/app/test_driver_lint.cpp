// The driver lint as a driver engineer meets it: the upstream route bug
// (a host->L2 move encoded as from_device=0, to_device=1) runs to the end
// with both DMAs done and wrong data, and only the lint says so: a
// WARN_ROUTE_BUG per move and the uninitialised L2 words the first move
// reads, each naming the word. --lint=error fails the run at the first
// warning; --lint=off is silent.
#include "e2e_util.h"

namespace e2e {
namespace {

using DriverLint = E2E;

std::vector<std::string> lint_lines(const std::string& err) {
  std::vector<std::string> out;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);)
    if (contains(line, "npu.lint: ")) out.push_back(line);
  return out;
}

TEST_F(DriverLint, RouteBugRunsButIsReported) {
  const auto r = vp({"replay", data_file("route_bug.memh"), "--dma", data_file("route_bug.json")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "instructions retired: 3 of 3")) << r.out;
  EXPECT_TRUE(contains(r.out, "DMA: every descriptor completed")) << r.out;
  const auto lines = lint_lines(r.err);
  ASSERT_EQ(lines.size(), 3u) << r.err;
  EXPECT_TRUE(contains(lines[0], "WARN_ROUTE_BUG: #1 0x2402000000000002 (MEMCPY L2->host "
                                 "dest=0x00100 src=0x00000 shape=fmap_shape[1]): L2->host MEMCPY "
                                 "ignores dest 0x00100"))
      << lines[0];
  EXPECT_TRUE(contains(lines[0], "UCA_ROUTE_HOST_TO_L2 = 0x01")) << lines[0];
  // The uninitialised read names the word and the L2 address.
  EXPECT_TRUE(contains(lines[1], "WARN_L2_UNINITIALISED: #1 0x2402000000000002 ")) << lines[1];
  EXPECT_TRUE(contains(lines[1], "MEMCPY reads L2 word 0x00000, never written since reset "
                                 "(words 0x00000..0x00007)"))
      << lines[1];
  EXPECT_TRUE(contains(lines[2], "WARN_ROUTE_BUG: #2 0x2800000100000002 ")) << lines[2];
  EXPECT_TRUE(contains(lines[2], "host->L2 MEMCPY ignores src 0x00100")) << lines[2];
}

TEST_F(DriverLint, LintErrorFailsAtTheFirstWarning) {
  const auto r = vp({"replay", data_file("route_bug.memh"), "--dma", data_file("route_bug.json"),
                     "--lint=error"});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "replay failed: lint error: WARN_ROUTE_BUG: #1 ")) << r.err;
  EXPECT_TRUE(contains(r.out, "instructions retired: 1 of 3")) << r.out;
}

TEST_F(DriverLint, LintOffIsSilentAndABadModeIsRefused) {
  const auto off = vp({"replay", data_file("route_bug.memh"), "--dma", data_file("route_bug.json"),
                       "--lint", "off"});
  ASSERT_EQ(off.exit_code, 0) << describe(off);
  EXPECT_TRUE(lint_lines(off.err).empty()) << off.err;
  const auto bad = vp({"replay", data_file("route_bug.memh"), "--lint", "loud"});
  EXPECT_EQ(bad.exit_code, 2) << describe(bad);
  EXPECT_TRUE(contains(bad.err, "simulation.lint")) << bad.err;
}

// The L2 initialisation map is functional mode's: a timing run carries no
// data and says nothing about it.
TEST_F(DriverLint, TimingModeDoesNotTrackL2Initialisation) {
  const auto r = vp({"replay", data_file("route_bug.memh"), "--dma", data_file("route_bug.json"),
                     "--set", "simulation.mode=timing"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const auto lines = lint_lines(r.err);
  EXPECT_EQ(lines.size(), 2u) << r.err;
  EXPECT_FALSE(contains(r.err, "WARN_L2_UNINITIALISED")) << r.err;
}

// A driver that ignores a timed-out uca_sync and issues more: reported on
// the first word after the timeout.
TEST_F(DriverLint, IssuingAfterATimedOutSyncIsReported) {
  const auto r = vp({"--firmware", test_firmware("sync_timeout_then_issue")});
  const auto lines = lint_lines(r.err);
  ASSERT_EQ(lines.size(), 2u) << r.err;  // the GEMV's uninitialised activations, then this
  EXPECT_TRUE(contains(lines[1], "WARN_ISSUE_AFTER_SYNC_TIMEOUT: #3 ")) << lines[1];
  EXPECT_TRUE(contains(lines[1], "MEMSET fmap_shape[2] <- (1, 1, 8)")) << lines[1];
  // The run's end names the stuck GEMV, what it waits for, and the timeout.
  EXPECT_TRUE(contains(r.err, "instruction #2 0x")) << r.err;
  EXPECT_TRUE(contains(r.err, "waits for weight bytes on hp2 (0 bytes in its FIFO, no "
                              "descriptor), hp3 (0 bytes in its FIFO, no descriptor)"))
      << r.err;
}

// Flags the engine does not use.
TEST_F(DriverLint, IgnoredFlagsAreReported) {
  const auto r = vp({"replay", data_file("ignored_flags.memh")});
  const auto lines = lint_lines(r.err);
  ASSERT_GE(lines.size(), 2u) << r.err;
  EXPECT_TRUE(contains(r.err, "WARN_FLAGS_IGNORED: #0 ")) << r.err;
  EXPECT_TRUE(contains(r.err, "CVO EXP ignores flag RECIP_SCALE: only SCALE uses it")) << r.err;
  EXPECT_TRUE(contains(r.err, "WARN_FLAGS_IGNORED: #1 ")) << r.err;
  EXPECT_TRUE(contains(r.err, "CVO MUL ignores flag ACCM")) << r.err;
}

}  // namespace
}  // namespace e2e
