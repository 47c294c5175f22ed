// The trace outputs through the command line: `pccx-vp decode --out DIR`
// writes trace.perfetto.json, signals.vcd and session.pccx into DIR when
// their keys are on, byte for byte the same on a second run; switching one
// on without a folder is bad input naming both keys.
#include "e2e_util.h"

namespace e2e {
namespace {

using RunOutputs = E2E;

const char* const kFiles[] = {"trace.perfetto.json", "signals.vcd", "session.pccx"};

std::vector<std::string> decode_with_outputs(const std::string& out) {
  return {"decode",
          "--model",
          std::string(PCCX_SOURCE_DIR) + "/configs/models/tiny.json",
          "--context",
          "16",
          "--tokens",
          "2",
          "--set",
          "simulation.mode=timing",
          "--out",
          out,
          "--set",
          "output.perfetto=true",
          "--set",
          "output.vcd=true",
          "--set",
          "output.pccx=true"};
}

TEST_F(RunOutputs, DecodeWritesEveryTraceIntoOutAndRepeatsItExactly) {
  const auto a = vp(decode_with_outputs("a"));
  ASSERT_EQ(a.exit_code, 0) << describe(a);
  const auto b = vp(decode_with_outputs("b"));
  ASSERT_EQ(b.exit_code, 0) << describe(b);
  EXPECT_TRUE(fs::exists(path("a/summary.json")));
  for (const char* f : kFiles) {
    const std::string first = read_file(path(std::string("a/") + f));
    EXPECT_GT(first.size(), 1000u) << f;
    EXPECT_TRUE(first == read_file(path(std::string("b/") + f))) << f << " differs between runs";
  }
  EXPECT_FALSE(fs::exists(path("a/session.pccx.part")));
}

TEST_F(RunOutputs, AnOutputWithoutTheFolderIsBadInput) {
  const auto r = vp({"--firmware", "memset_sync", "--set", "output.vcd=true"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "output.vcd is on but output.dir is empty")) << r.err;
  EXPECT_FALSE(fs::exists(path("signals.vcd")));
}

}  // namespace
}  // namespace e2e
