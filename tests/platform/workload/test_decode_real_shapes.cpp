// The functional check at the real dimensions: every matrix of Gemma 3n E4B
// at its real shape (FFN 16,384 wide against the 1.75 MiB L2, the LM head's
// 262,400 rows in tiles, the 16-bit shape fields), over one layer of each
// kind (configs/models/gemma3n-e4b-5layers.json: a sparse-FFN local layer,
// a local, a global, a KV-sharing local and a KV-sharing global one). The
// decode's logits on the platform against the host reference computed from
// the same INT4 records. Labelled long: about 20 s and 1.7 GB.
#include <gtest/gtest.h>

#include <algorithm>

#include "platform/config/platform_config.h"
#include "platform/workload/decode_runner.h"
#include "platform/workload/llm/model_config.h"
#include "platform/workload/llm/prefill_plan.h"

using namespace pccx;

TEST(DecodeRealShapes, EveryMatrixAtItsRealShapeMatchesTheReference) {
  config::platform_config cfg;
  cfg.simulation.mode = config::sim_mode::functional;
  const auto m =
      llm::load_model(std::string(PCCX_SOURCE_DIR) + "/configs/models/gemma3n-e4b-5layers.json");
  ASSERT_EQ(m.hidden, 2048u);
  ASSERT_EQ(m.ffn, 16384u);
  ASSERT_EQ(m.vocab, 262400u);
  workload::decode_options o;
  o.context = 16;
  o.tokens = 2;
  o.token_ids = {262399, 17};  // the last vocabulary row, and one near the front
  o.reference_seed = 1;
  const auto rep = workload::run_decode(cfg, m, o);
  ASSERT_EQ(rep.run.exit_code, 0) << rep.run.message;
  std::cout << rep.text();
  ASSERT_EQ(rep.reference_cosine.size(), 2u);
  for (size_t t = 0; t < 2; ++t) {
    EXPECT_GE(rep.reference_cosine[t], 0.99) << "token " << t;
    EXPECT_GE(rep.reference_cosine_exact[t], 0.99) << "token " << t;
  }
  RecordProperty("worst_cosine", std::to_string(*std::min_element(rep.reference_cosine.begin(),
                                                                  rep.reference_cosine.end())));
}

// The chunked prefill at the real dimensions: 6 prompt tokens in one chunk
// on the GEMM (the FFN in three slices of 5,472 columns, W_down in three
// K-parts accumulated, the sparse layer's gate twice), then a decoded
// token from the cache it wrote; the prompt's last token's logits and the
// token's against the reference. After 4,090 tokens of history a global
// layer's query tiles take 4 rows and then 2 (their scores fill the L2
// left free), the local ones all 6: the masks across tiles are checked.
TEST(DecodeRealShapes, ChunkedPrefillAtTheRealShapesMatchesTheReference) {
  config::platform_config cfg;
  cfg.simulation.mode = config::sim_mode::functional;
  const auto m =
      llm::load_model(std::string(PCCX_SOURCE_DIR) + "/configs/models/gemma3n-e4b-5layers.json");
  workload::decode_options o;
  o.context = 4090;
  o.prompt_tokens = 6;
  o.chunk = 6;
  o.tokens = 1;
  o.token_ids = {262399, 17, 5000, 123456, 9, 77, 200000};
  o.reference_seed = 1;
  const auto rep = workload::run_decode(cfg, m, o);
  ASSERT_EQ(rep.run.exit_code, 0) << rep.run.message;
  std::cout << rep.text();
  EXPECT_EQ(rep.prefill.chunk, 6u);
  EXPECT_GT(rep.prefill.gemm_macs, 0u);
  // KV read (FP16, 2 heads x (512 + 512) bytes a token and layer): less than
  // each row on its own, more than the chunk at once.
  uint64_t per_row = 0, whole_chunk = 0;
  for (uint32_t l = 0; l < m.layers; ++l) {
    for (uint32_t t = 0; t < 6; ++t) per_row += m.attention_span(l, 4090 + t + 1);
    whole_chunk += llm::chunk_attention_span(m, l, 4090, 6, 1u << 20);
  }
  const uint64_t kv_read = rep.prefill.ddr_bytes.at("kv_read");
  EXPECT_LT(kv_read, per_row * 2048);
  EXPECT_GT(kv_read, whole_chunk * 2048);
  EXPECT_GE(rep.prompt_cosine, 0.99);
  EXPECT_GE(rep.prompt_cosine_exact, 0.99);
  ASSERT_EQ(rep.reference_cosine.size(), 1u);
  EXPECT_GE(rep.reference_cosine[0], 0.99);
  RecordProperty("prompt_cosine", std::to_string(rep.prompt_cosine));
}
