// scripts/bench.sh, the macro benchmark of docs/results/performance.md: one row per
// context and KV format with figures read from each run's speed.json, and a
// clear error for a binary that is not there. (The figures themselves are
// wall-clock rates, which belong in the benchmark, not in a test.)
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "e2e_util.h"

namespace e2e {
namespace {

class BenchScript : public E2E {
 protected:
  proc_result bench(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"bash", std::string(PCCX_SOURCE_DIR) + "/scripts/bench.sh"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, std::chrono::seconds(240));
  }
};

TEST_F(BenchScript, PrintsOneRowPerContextAndKvFormatAndTheTargets) {
  const proc_result r = bench({"--exe", vp_exe(), "--no-table", "--no-prefill", "--repeat", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // | context | KV | sim ms/token | wall s/token | sim/wall | spread | DDR tx | DDR tx/s | RSS MiB |
  const std::regex row(
      R"(^\| (1024|8192|32768) +\| (fp16|int4|rot3) \| +([0-9.]+) \| +([0-9.]+) \| +([0-9.]+) \| +([0-9.]+) \| +([0-9]+) \| +([0-9]+) \| +([0-9.]+) \|$)");
  // | target | measured | target | ratio | met |
  const std::regex target(R"(^\| (.+?) +\| +([-0-9.]+) \| +([0-9.]+) \| +([0-9.]+|inf) \| (yes|no) +\|$)");
  std::istringstream lines(r.out);
  std::string line;
  int rows = 0;
  std::vector<std::string> targets;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_match(line, m, target)) {
      targets.push_back(m[1]);
      // The ratio says whether the target is met.
      if (m[4] != "inf") {
        EXPECT_EQ(std::stod(m[4]) >= 1.0, m[5] == "yes") << line;
      }
      continue;
    }
    if (!std::regex_match(line, m, row)) continue;
    ++rows;
    EXPECT_GT(std::stod(m[3]), 250.0) << line;  // Gemma 3n E4B: about 300 ms per token
    EXPECT_GT(std::stod(m[4]), 0.0) << line;
    EXPECT_GT(std::stod(m[5]), 0.0) << line;
    EXPECT_EQ(std::stod(m[6]), 1.0) << line;  // one run: no spread
    EXPECT_GT(std::stoull(m[7]), 100000u) << line;
    EXPECT_GT(std::stod(m[9]), 1.0) << line;
  }
  EXPECT_EQ(rows, 9) << r.out;
  EXPECT_TRUE(contains(r.out, "fastest of 1 runs")) << r.out;
  // The three 32K decode rows, the ELF path, the peak RSS and its growth
  // (the main job's speedup needs --before and the table).
  ASSERT_EQ(targets.size(), 6u) << r.out;
  EXPECT_EQ(targets[0], "sim/wall, 32K-context fp16 decode token (>=)");
  EXPECT_EQ(targets[3], "sim/wall, AArch64 ELF / host code at 32K (>=)");
  EXPECT_EQ(targets[5], "peak RSS growth MiB/token, 16 to 64 tokens (<=)");
}

TEST_F(BenchScript, NamesABinaryThatIsNotThere) {
  const proc_result r = bench({"--exe", path("no-such-pccx-vp"), "--no-table"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "no-such-pccx-vp is not an executable")) << r.err;
}

TEST_F(BenchScript, RejectsBadOptions) {
  proc_result r = bench({"--fast"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "usage: scripts/bench.sh")) << r.err;
  r = bench({"--repeat", "two"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--repeat needs a positive whole number, not 'two'")) << r.err;
  r = bench({"--exe"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--exe needs a value")) << r.err;
  r = bench({"--exe", vp_exe(), "--before-rev", "no-such-revision"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--before-rev no-such-revision is not a commit of ")) << r.err;
  r = bench({"--exe", vp_exe(), "--before", vp_exe(), "--before-rev", "HEAD"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--before and --before-rev name the same binary")) << r.err;
  r = bench({"--exe", vp_exe(), "--pgo"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--pgo builds the binary it measures")) << r.err;
}

}  // namespace
}  // namespace e2e
