// The upstream pccx artefacts run on the platform. Our copies, written in
// the same shape as the upstream ones: the runtime smoke program (seven
// words, no host side, replayed with --auto-dma) and the uCA API
// documentation's FFN example (a firmware object, call for call). Each runs
// to the end in the default configuration, with every place where it
// departs from the platform's strict reading reported as a coded warning,
// and fails with --strict (docs/reference/spec-decisions.md).
#include <set>

#include "e2e_util.h"

namespace e2e {
namespace {

using UpstreamArtefacts = E2E;

// (code, instruction number) of every npu.lint line.
std::multiset<std::pair<std::string, int>> warnings_of(const std::string& err) {
  std::multiset<std::pair<std::string, int>> out;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    const auto at = line.find("npu.lint: ");
    if (at == std::string::npos) continue;
    const auto code_end = line.find(':', at + 10);
    const auto hash = line.find('#', code_end);
    out.insert({line.substr(at + 10, code_end - at - 10), std::stoi(line.substr(hash + 1))});
  }
  return out;
}

TEST_F(UpstreamArtefacts, SmokeProgramReplaysWithItsWarnings) {
  const auto r = vp({"replay", data_file("upstream_smoke.memh"), "--auto-dma", "--json", "r.json"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const json j = json::parse(read_file(path("r.json")));
  EXPECT_EQ(j["instructions_retired"], 7);
  EXPECT_EQ(j["descriptors"], 6);  // ACP_FMAP, HP0 + HP1, HP2 + HP3, ACP_RESULT
  EXPECT_TRUE(j["npu_errors"].empty()) << j.dump(2);
  EXPECT_TRUE(j["dma_errors"].empty()) << j.dump(2);
  const std::multiset<std::pair<std::string, int>> expected = {
      {"WARN_SHAPE_UPSTREAM", 3},   {"WARN_LANES_IGNORED", 3},    {"WARN_L2_UNINITIALISED", 3},
      {"WARN_SHAPE_UPSTREAM", 4},   {"WARN_L2_UNINITIALISED", 4}, {"WARN_L2_UNINITIALISED", 5},
      {"WARN_L2_UNINITIALISED", 6}};
  EXPECT_EQ(warnings_of(r.err), expected) << r.err;
  // The RTL's reading of the GEMM and the GEMV, spelled out.
  EXPECT_TRUE(contains(r.err, "activations fmap_shape[3] = (1, 1, 9), N = 32 results (one array "
                              "pass): (M, N, K) = (1, 32, 9)"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "activations fmap_shape[9] = (4, 4, 4), N = size_ptr = 2 results: "
                              "(M, N, K) = (1, 2, 64)"))
      << r.err;
}

TEST_F(UpstreamArtefacts, SmokeProgramFailsWithStrict) {
  const auto r = vp({"replay", data_file("upstream_smoke.memh"), "--auto-dma", "--strict"});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "upstream_smoke.memh:12: ERR_INVALID_LANES: GEMM lanes 4: the "
                              "single systolic array takes 0 or 1"))
      << r.err;
}

TEST_F(UpstreamArtefacts, ApiDocFfnExampleRunsWithItsWarnings) {
  const auto r = vp({"--firmware", test_firmware("api_doc_ffn")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "returned 0")) << r.err;
  const std::multiset<std::pair<std::string, int>> expected = {
      {"WARN_SHAPE_UPSTREAM", 2},   {"WARN_LANES_MASK", 2}, {"WARN_L2_UNINITIALISED", 2},
      {"WARN_CVO_LENGTH_PASSES", 3}, {"WARN_SHAPE_UPSTREAM", 4}, {"WARN_LANES_MASK", 4}};
  EXPECT_EQ(warnings_of(r.err), expected) << r.err;
  EXPECT_TRUE(contains(r.err, "GEMV lanes 15 is above the 4 cores: read as a core mask")) << r.err;
  EXPECT_TRUE(contains(r.err, "CVO GELU length 4096 is above the SFU's 2048 elements "
                              "(npu.sfu.max_length): it runs in 2 passes"))
      << r.err;
}

TEST_F(UpstreamArtefacts, ApiDocFfnExampleFailsWithStrict) {
  const auto r = vp({"--firmware", test_firmware("api_doc_ffn"), "--strict"});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "strict mode: NPU error ERR_INVALID_LANES on instruction #2")) << r.err;
}

// --auto-dma is the replay's, and its buffers must fit in DDR.
TEST_F(UpstreamArtefacts, AutoDmaRefusesBadUse) {
  const auto elsewhere = vp({"--auto-dma"});
  EXPECT_EQ(elsewhere.exit_code, 2) << describe(elsewhere);
  EXPECT_TRUE(contains(elsewhere.err, "--auto-dma is for replay")) << elsewhere.err;
  const auto junk = vp({"replay", data_file("upstream_smoke.memh"), "--auto-dma=lots"});
  EXPECT_EQ(junk.exit_code, 2) << describe(junk);
  EXPECT_TRUE(contains(junk.err, "--auto-dma=lots: expected a DDR address")) << junk.err;
  const auto past = vp({"replay", data_file("upstream_smoke.memh"), "--auto-dma=0xFFFFFFF0"});
  EXPECT_EQ(past.exit_code, 2) << describe(past);
  EXPECT_TRUE(contains(past.err, "does not fit in DDR")) << past.err;
}

}  // namespace
}  // namespace e2e
