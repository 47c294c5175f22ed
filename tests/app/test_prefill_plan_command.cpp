// `pccx-vp prefill-plan`: the prefill's tiling and bound from the
// configuration alone. The chunk follows the GEMM's activation buffer (a
// what-if with --set), the JSON carries every matrix, and a chunk or a
// prompt the engine or the ring cannot take is an input error with its
// arithmetic.
#include "e2e_util.h"

namespace e2e {
namespace {

using PrefillPlan = E2E;

std::string model(const std::string& name) {
  return std::string(PCCX_SOURCE_DIR) + "/configs/models/" + name + ".json";
}

TEST_F(PrefillPlan, TheChunkFollowsTheActivationBuffer) {
  // By default the chunk the decode program takes: its rows' buffers in the
  // L2 after the decode's layout leave room for 15.
  const auto dflt =
      vp({"prefill-plan", "--model", model("gemma3n-e4b"), "--prompt-tokens", "1024"});
  ASSERT_EQ(dflt.exit_code, 0) << describe(dflt);
  EXPECT_TRUE(contains(dflt.out, "chunk: 15 rows of at most 191")) << dflt.out;
  EXPECT_TRUE(contains(dflt.out, "the decode program's L2 and GD_MAX_CHUNK take 15), 69 chunks"))
      << dflt.out;
  EXPECT_TRUE(contains(dflt.out, "memory-bound")) << dflt.out;
  // Attention in query tiles of the whole chunk at 1K (the L2 left free
  // holds 15 rows' scores); at 32K a global layer's scores take two rows.
  EXPECT_TRUE(contains(dflt.out,
                       "attention: query tiles of the last whole chunk: kv.local 15 rows on a "
                       "stream of 526 records, kv.global 15 rows on a stream of 1,020 records"))
      << dflt.out;
  // Per kind of layer, a chunk's weight stream against its MACs: at 15 rows
  // every kind re-streams its weights for longer than its MACs take.
  EXPECT_TRUE(contains(dflt.out,
                       "local (16 layers): 1063.0 MB in 96.88 ms, 31.0 G MACs in "
                       "37.86 ms: weight-bound"))
      << dflt.out;
  EXPECT_FALSE(contains(dflt.out, "compute-bound")) << dflt.out;
  const auto long_prompt =
      vp({"prefill-plan", "--model", model("gemma3n-e4b"), "--prompt-tokens", "32768"});
  ASSERT_EQ(long_prompt.exit_code, 0) << describe(long_prompt);
  EXPECT_TRUE(contains(long_prompt.out,
                       "kv.local 10 rows on a stream of 521 records, kv.global 2 rows on a "
                       "stream of 32,752 records"))
      << long_prompt.out;
  // The engine's own bound, asked for: 191 rows.
  const auto r = vp({"prefill-plan", "--model", model("gemma3n-e4b"), "--prompt-tokens", "1024",
                     "--chunk", "191", "--json", "p.json"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "chunk: 191 rows of at most 191")) << r.out;
  EXPECT_TRUE(contains(r.out, "6 chunks: every matrix's weights are streamed 6 times")) << r.out;
  EXPECT_TRUE(contains(r.out, "GEMM instructions: 634 a chunk, 3,804 in all")) << r.out;
  EXPECT_TRUE(contains(r.out, "compute-bound")) << r.out;
  // The local rings hold the window and a chunk's 190 newer keys.
  EXPECT_TRUE(contains(r.out, "kv.local 702 records (window 512 + 190), kv.global 1,024 records"))
      << r.out;
  const json j = json::parse(read_file(path("p.json")));
  EXPECT_EQ(j["chunk"], 191);
  EXPECT_EQ(j["chunks"], 6);
  EXPECT_EQ(j["program_chunk_limit"], 15);
  // At 191 rows the same weights carry 12.7 times the MACs: compute-bound.
  ASSERT_EQ(j["layer_kinds"].size(), 5u);  // entry, local, global and both KV-sharing
  for (const auto& k : j["layer_kinds"]) EXPECT_FALSE(k["weight_bound"].get<bool>()) << k;
  // 4 entry matrices, 20 storing layers of 12, 15 sharing layers of 10.
  EXPECT_EQ(j["matrices"].size(), 4u + 20 * 12 + 15 * 10);
  for (const auto& mtx : j["matrices"]) {
    if (mtx["name"] == "ffn_down") {
      EXPECT_EQ(mtx["k_parts"], 3);
    }
  }
  // Half the buffer: 524,288 / 5,472 = 95 rows, 11 chunks, 11 weight passes.
  const auto half = vp({"prefill-plan", "--model", model("gemma3n-e4b"), "--prompt-tokens", "1024",
                        "--chunk", "95", "--set", "npu.gemm.act_buffer_bytes=524288", "--json",
                        "h.json"});
  ASSERT_EQ(half.exit_code, 0) << describe(half);
  const json h = json::parse(read_file(path("h.json")));
  EXPECT_EQ(h["chunk"], 95);
  EXPECT_EQ(h["chunk_limit"], 95);
  EXPECT_EQ(h["chunks"], 11);
  EXPECT_GT(h["bytes"]["weights"].get<double>(), 1.8 * j["bytes"]["weights"].get<double>());
}

TEST_F(PrefillPlan, RefusalsCarryTheirArithmetic) {
  const auto chunk = vp({"prefill-plan", "--model", model("gemma3n-e4b"), "--prompt-tokens", "1024",
                         "--chunk", "256"});
  EXPECT_EQ(chunk.exit_code, 2) << describe(chunk);
  EXPECT_TRUE(contains(chunk.err,
                       "256 x 5,472 = 1,400,832 INT8 activations exceed "
                       "npu.gemm.act_buffer_bytes (1,048,576): at most 191 rows"))
      << chunk.err;
  const auto ring = vp({"prefill-plan", "--model", model("gemma3n-e4b"), "--prompt-tokens", "8192",
                        "--tokens", "16", "--ring-cap", "4096"});
  EXPECT_EQ(ring.exit_code, 2) << describe(ring);
  EXPECT_TRUE(contains(ring.err, "8,208 records per KV stream, above the ring cap of 4,096"))
      << ring.err;
  const auto evicting =
      vp({"prefill-plan", "--model", model("gemma3n-e4b"), "--prompt-tokens", "8192", "--tokens",
          "16", "--ring-cap", "4096", "--sinks", "4", "--evict", "--validate-only"});
  EXPECT_EQ(evicting.exit_code, 0) << describe(evicting);
  // The pccx model's 20 full-history rings at 32K do not fit the 4 GiB.
  const auto big =
      vp({"prefill-plan", "--model", model("gemma3n-e4b-pccx-doc"), "--prompt-tokens", "32768"});
  EXPECT_EQ(big.exit_code, 2) << describe(big);
  EXPECT_TRUE(contains(big.err, "does not fit in DDR with max_tokens 32,768")) << big.err;
  const auto no_prompt = vp({"prefill-plan", "--model", model("gemma3n-e4b")});
  EXPECT_EQ(no_prompt.exit_code, 2) << describe(no_prompt);
  EXPECT_TRUE(contains(no_prompt.err, "prefill-plan needs --prompt-tokens P")) << no_prompt.err;
  const auto elsewhere = vp({"decode", "--model", model("tiny"), "--evict"});
  EXPECT_EQ(elsewhere.exit_code, 2) << describe(elsewhere);
  EXPECT_TRUE(contains(elsewhere.err, "--evict is for prefill-plan")) << elsewhere.err;
}

}  // namespace
}  // namespace e2e
