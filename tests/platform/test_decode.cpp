// The decode core (firmware/programs/gemma_decode.c through
// platform/workload/decode_runner) in timing mode: the tiny model's
// instructions and DDR bytes per token against counts derived here by hand
// from its dimensions and record sizes, the latency against the decode
// lower bound, and one Gemma 3n E4B token at L = 1K.
#include <gtest/gtest.h>

#include <iostream>

#include "config/platform_config.h"
#include "llm/model_config.h"
#include "workload/decode_runner.h"

using namespace pccx;

namespace {

config::platform_config timing() {
  config::platform_config cfg;
  cfg.simulation.mode = "timing";
  return cfg;
}

std::string printed(const vp::run_result& r) {
  std::string s = r.message + "\n";
  for (const auto& l : r.printed) s += l + "\n";
  return s;
}

// Runs `tokens` decode tokens of configs/models/<model>.json from context L.
workload::decode_report decode(const char* model, uint64_t context, uint32_t tokens,
                               const config::platform_config& cfg) {
  const auto m =
      llm::load_model(std::string(PCCX_SOURCE_DIR) + "/configs/models/" + model + ".json");
  workload::decode_options o;
  o.context = context;
  o.tokens = tokens;
  return workload::run_decode(cfg, m, o);
}

}  // namespace

// tiny.json: 10 layers, hidden 64, 2 query heads on 1 KV head of 32, FFN
// 128, vocab 512; layers 0..4 store K/V, 4 and 9 are global, local layers
// keep 8 tokens; FP16 K/V records of 32 x 2 = 64 bytes.
TEST(Decode, TinyInstructionsAndBytesPerTokenMatchTheHandCount) {
  const auto rep = decode("tiny", 16, 2, timing());
  ASSERT_EQ(rep.run.exit_code, 0) << printed(rep.run);
  std::cout << rep.text();

  // Instructions of one layer: 3 MEMSETs (score shapes), RMSNorm (gamma
  // MEMCPY + 11: its constants are staged once at start), GEMV Q, [GEMV K, V, 2 kv-append MEMCPYs],
  // attention of the one KV head (key GEMV, EXP, 2 REDUCE_SUMs, value GEMV, 2 x (copy + SCALE)),
  // GEMV O, ADD, RMSNorm (12), 3 MEMSETs (FFN shapes), gate, up, GELU, MUL, down, ADD. Exit:
  // RMSNorm (12), one LM-head tile (GEMV, SCALE, TANH, SCALE, MEMCPY).
  const uint64_t attention = 1 + 1 + 2 + 1 + 2 * 2;
  const uint64_t common = 3 + 12 + 1 + attention + 2 + 12 + 3 + 6;
  const uint64_t storing = common + 2 + 2;
  const uint64_t per_token = 5 * storing + 5 * common + 12 + 5;
  EXPECT_EQ(per_token, 517u);
  ASSERT_EQ(rep.instructions.size(), 2u);
  EXPECT_EQ(rep.instructions[0], per_token);
  EXPECT_EQ(rep.instructions[1], per_token);

  // Row records: 2 scale bytes + cols / 2 INT4 bytes, padded to 16:
  // 64 inputs -> 48 bytes, 128 inputs -> 80 bytes.
  const uint64_t r64 = 48, r128 = 80;
  const uint64_t shared_layer = (64 + 64 + 128 + 128) * r64 + 64 * r128;  // Q, O, gate, up, down
  const uint64_t storing_layer = shared_layer + (32 + 32) * r64;          // + K, V
  const uint64_t lm_head = 512 * r64;
  const uint64_t norms = 21 * 64 * 2;  // 2 per layer + final: the gammas
  const uint64_t weights = 5 * storing_layer + 5 * shared_layer + lm_head + norms;
  EXPECT_EQ(weights, 278144u);
  EXPECT_EQ(rep.ddr_bytes.at("weights"), 2 * weights);
  // K/V written: 5 storing layers x (64 + 64).
  EXPECT_EQ(rep.ddr_bytes.at("kv_write"), 2 * 5 * 128u);
  // K/V read: 8 local layers x 8 tokens, 2 global layers x (L + 1 + t).
  const uint64_t kv_read = 128 * (8 * 8 + 2 * 17) + 128 * (8 * 8 + 2 * 18);
  EXPECT_EQ(rep.ddr_bytes.at("kv_read"), kv_read);
  // The logits, and once the two RMSNorm constant words (32 bytes).
  EXPECT_EQ(rep.ddr_bytes.at("activations"), 2 * 512 * 2u + 32);

  // Never faster than the lower bound of the same configuration.
  ASSERT_EQ(rep.bound.size(), 2u);
  for (size_t t = 0; t < 2; ++t) EXPECT_GE(rep.latency_ns[t], rep.bound[t].bound_seconds * 1e9);
  EXPECT_GT(rep.gemv_utilisation, 0.0);
  EXPECT_LE(rep.gemv_utilisation, 1.0);
}

// One Gemma 3n E4B token (as released: 512-token local windows) at
// L = 1,024 completes; the figures docs/decode.md quotes.
TEST(Decode, GemmaOneTokenAt1KCompletes) {
  const auto rep = decode("gemma3n-e4b", 1024, 1, timing());
  ASSERT_EQ(rep.run.exit_code, 0) << printed(rep.run);
  std::cout << rep.text();
  ASSERT_EQ(rep.latency_ns.size(), 1u);
  EXPECT_GE(rep.latency_ns[0], rep.bound[0].bound_seconds * 1e9);
  // Instructions: a local layer (span 512) 3 + 12 + 1 + 2 x (key GEMV, 1
  // EXP, 4 REDUCE_SUMs, value GEMV, 4 x (copy + SCALE)) + 2 + 12 + 3 +
  // (gate, up, 8 GELU, 8 MUL, down, ADD) = 83; a global one (span 1,025)
  // has 3 EXPs per KV head (+4); a storing layer K, V and 4 appends (+6).
  // 7 global, 20 storing layers; exit 12 + 129 tiles x 5.
  ASSERT_EQ(rep.instructions.size(), 1u);
  EXPECT_EQ(rep.instructions[0], 35u * 83 + 7 * 4 + 20 * 6 + 12 + 129 * 5);
  RecordProperty("latency_ns", std::to_string(rep.latency_ns[0]));
  RecordProperty("wall_time_s", std::to_string(rep.wall_time_s));
}

// The same token with the model as documented by pccx (every layer attends
// the whole history: one ring group, 7 x 1,025 + 28 x 1,025 K/V reads).
TEST(Decode, GemmaAsDocumentedOneTokenAt1KCompletes) {
  const auto rep = decode("gemma3n-e4b-pccx-doc", 1024, 1, timing());
  ASSERT_EQ(rep.run.exit_code, 0) << printed(rep.run);
  std::cout << rep.text();
  // 35 layers x 2 KV heads x 1,025 tokens x (512 + 512) FP16 bytes.
  EXPECT_EQ(rep.ddr_bytes.at("kv_read"), 35ull * 2 * 1025 * 1024);
  EXPECT_EQ(rep.ddr_bytes.at("kv_write"), 20ull * 2 * 1024);
  EXPECT_GE(rep.latency_ns[0], rep.bound[0].bound_seconds * 1e9);
}

// Functional mode (real bytes in L2 and DDR; the weights read as zeros, so
// the values carry no meaning): the same instructions retire without an
// NPU error and the same bytes move.
TEST(Decode, TinyRunsTheSameSequenceInFunctionalMode) {
  const auto rep = decode("tiny", 16, 2, config::platform_config{});
  ASSERT_EQ(rep.run.exit_code, 0) << printed(rep.run);
  ASSERT_EQ(rep.instructions.size(), 2u);
  EXPECT_EQ(rep.instructions[0], 517u);
  EXPECT_EQ(rep.ddr_bytes.at("weights"), 2 * 278144u);
  EXPECT_EQ(rep.ddr_bytes.at("kv_write"), 2 * 5 * 128u);
}
