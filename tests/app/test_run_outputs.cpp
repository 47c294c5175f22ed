// The trace outputs through the command line: `pccx-vp decode --out DIR`
// writes trace.perfetto.json, signals.vcd and session.pccx into DIR when
// their keys are on, byte for byte the same on a second run (the Perfetto
// trace with every kind of event it writes); switching one on without a
// folder is bad input naming both keys.
#include <map>
#include <set>

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

  // What is compared holds every kind of Perfetto event: slices, the token
  // and layer track, counters of units, FIFOs and DDR classes, and flows
  // with as many starts as finishes.
  const json trace = json::parse(read_file(path("a/trace.perfetto.json")));
  std::map<std::string, int> phases;
  std::set<std::string> counters, threads;
  for (const json& e : trace.at("traceEvents")) {
    ++phases[e.at("ph").get<std::string>()];
    if (e["ph"] == "C") counters.insert(e["name"].get<std::string>());
    if (e["ph"] == "M" && e["name"] == "thread_name") threads.insert(e["args"]["name"]);
  }
  for (const char* ph : {"M", "X", "C", "i", "s", "f"}) EXPECT_GT(phases[ph], 0) << ph;
  EXPECT_EQ(phases["s"], phases["f"]);
  EXPECT_TRUE(threads.count("decode: tokens and layers"));
  for (const char* c : {"gemv", "sfu", "hp2 fifo", "class weights", "kv tokens"})
    EXPECT_TRUE(counters.count(c)) << c;
}

TEST_F(RunOutputs, AnOutputWithoutTheFolderIsBadInput) {
  const auto r = vp({"--firmware", "memset_sync", "--set", "output.vcd=true"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "output.vcd is on but output.dir is empty")) << r.err;
  EXPECT_FALSE(fs::exists(path("signals.vcd")));
}

}  // namespace
}  // namespace e2e
