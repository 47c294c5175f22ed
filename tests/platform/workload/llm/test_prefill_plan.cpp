// The prefill's tiling and bounds against hand-derived figures for Gemma 3n
// E4B (as released: 7 global layers, 28 local ones with a 512-token window,
// 20 storing layers), and the refusals with their arithmetic.
#include <gtest/gtest.h>

#include "llm_test_util.h"
#include "platform/workload/llm/prefill_plan.h"

using namespace pccx;
using namespace pccx::llm;
using namespace llmtest;

namespace {

const prefill_matrix& find(const prefill_plan& p, int32_t layer, const std::string& name) {
  for (const auto& pm : p.matrices)
    if (pm.shape.layer == layer && pm.shape.name == name) return pm;
  throw std::out_of_range(name);
}

std::string refusal(const model_config& m, const prefill_options& o,
                    const config::gemm_config& g = {}) {
  try {
    plan_prefill(m, kv_fp16(m), o, g);
  } catch (const prefill_plan_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted";
  return "";
}

}  // namespace

TEST(PrefillPlan, GemmaAt1KTakesTheDownProjectionInThreeParts) {
  const auto m = gemma();
  prefill_options o;
  o.prompt = 1024;
  const prefill_plan p = plan_prefill(m, kv_fp16(m), o, {});
  // W_down, K = 16,384: two parts of 8,192 need 32 x pad16(2 + 4,096) =
  // 131,584 bytes per FIFO, 512 over the 131,072-byte block buffer; three of
  // ceil32(16,384 / 3) = 5,472 need 32 x 2,752 = 88,064.
  const prefill_matrix& down = find(p, 0, "ffn_down");
  EXPECT_EQ(down.k_parts, 3u);
  EXPECT_EQ(down.k_part, 5472u);
  EXPECT_EQ(find(p, 0, "attn_q").k_parts, 1u);
  // The widest part bounds the chunk: 1,048,576 / 5,472 = 191 rows.
  EXPECT_EQ(p.chunk_limit, 191u);
  EXPECT_EQ(p.chunk, 191u);
  EXPECT_EQ(p.chunks, 6u);  // 5 x 191 + 69
  // The FFN runs in slices of W_down's part: gate and up in 3 column slices
  // of at most 5,472 each, down in its 3 parts.
  EXPECT_EQ(p.ffn_part, 5472u);
  EXPECT_EQ(find(p, 0, "ffn_up").n_part, 5472u);
  // GEMMs per chunk: 3 AltUp projections + the per-layer projection, then 20
  // storing layers of 12 matrices and 15 sharing layers of 10, each with six
  // more for the FFN's slices, and the 10 sparse layers' gate a second time
  // (its statistics first): 4 + 20 x 18 + 15 x 16 + 10 x 3.
  EXPECT_EQ(p.gemm_instructions, 634u);
  // The first group at M = 191: 262,144 / (191 x 64) = 21 N-tiles fit the
  // accumulator and 4 hide the stream, but q's block is 32 x 1,040 = 33,280
  // bytes and only 3 fit the 131,072-byte block buffer.
  EXPECT_EQ(find(p, 0, "attn_q").group, 3u);
  // Stream of q per FIFO: 1,024 columns x (16-byte scale beat + 1,040).
  EXPECT_EQ(find(p, 0, "attn_q").stream_bytes, 2ull * 1024 * (16 + 1040));
  // W_down: 1,024 columns per FIFO x (16 + 2,752 + 16 + 2,752 + 16 + 2,736).
  EXPECT_EQ(down.stream_bytes, 2ull * 1024 * (3 * 16 + 2 * 2752 + 2736));
  // KV: 1,024 tokens x 20 storing layers x 2 heads x (512 + 512) bytes.
  EXPECT_EQ(p.kv_write_bytes, 1024ull * 20 * 2048);
  // KV read, the least: each chunk reads a layer's cache once, the union of
  // its rows' spans. Chunks start at 0, 191, ..., 955: a global layer reads
  // everything up to the chunk's last row (191 + 382 + 573 + 764 + 955 +
  // 1,024 = 3,889 tokens), a local one from its first row's window start
  // (191 + 382 + 573 + (764 - 62) + (955 - 253) + (1,024 - 444) = 3,130);
  // 2,048 bytes a token.
  EXPECT_EQ(p.kv_read_bytes, (7ull * 3889 + 28ull * 3130) * 2048);
  // Attention: per key 2 x 8 heads x 256; a global layer sum(t + 1) = 524,800
  // keys, a local one 131,328 + 512 x 512 = 393,472.
  EXPECT_EQ(p.attention_macs, (7ull * 524800 + 28ull * 393472) * 4096);
  // The matrices: every one but the last token's, per row, and the sparse
  // layers' gates twice (10 x 16,384 x 2,048 more).
  uint64_t exit_macs = 0;
  for (const auto& s : exit_matrices(m)) exit_macs += s.macs();
  EXPECT_EQ(p.gemm_macs, 1024 * (weight_macs_per_token(m) - exit_macs + 10ull * 16384 * 2048));
  EXPECT_EQ(p.gemv_macs, exit_macs);
}

TEST(PrefillPlan, TheBoundIsComputeAtAChunkOf191AndWeightsAtSmallChunks) {
  const auto m = gemma();
  roofline_inputs in;
  in.macs_per_second = gemm_peak_macs_per_second(400e6);
  EXPECT_DOUBLE_EQ(in.macs_per_second, 819.2e9);
  prefill_options o;
  o.prompt = 1024;
  const roofline big = prefill_roofline(plan_prefill(m, kv_fp16(m), o, {}), in);
  EXPECT_FALSE(big.memory_bound);
  EXPECT_NEAR(big.compute_seconds, double(big.macs) / 819.2e9, 1e-12);
  EXPECT_DOUBLE_EQ(big.bound_seconds, big.compute_seconds);
  // Eight rows a chunk stream the weights 128 times: memory-bound.
  o.chunk = 8;
  const prefill_plan small_plan = plan_prefill(m, kv_fp16(m), o, {});
  const roofline small = prefill_roofline(small_plan, in);
  EXPECT_TRUE(small.memory_bound);
  EXPECT_EQ(small_plan.chunks, 128u);
  EXPECT_GT(small.weight_bytes, 128ull * 2000000000);
  EXPECT_EQ(small.macs, big.macs);
}

TEST(PrefillPlan, AChunkTheActivationBufferCannotHoldIsRefusedWithItsArithmetic) {
  prefill_options o;
  o.prompt = 1024;
  o.chunk = 256;
  const std::string e = refusal(gemma(), o);
  EXPECT_NE(e.find("a prefill chunk of 256 rows: layer 0 ffn_down takes K = 16,384 in 3 parts of "
                   "5,472 inputs"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("256 x 5,472 = 1,400,832 INT8 activations exceed npu.gemm.act_buffer_bytes "
                   "(1,048,576): at most 191 rows"),
            std::string::npos)
      << e;
  // A smaller weight block buffer splits W_down finer and so takes it: at
  // 65,536 bytes four parts of 4,096 need 32 x 2,064 = 66,048, five of
  // ceil32(3,277) = 3,296 need 53,248; 1,048,576 / 3,296 = 318 rows.
  config::gemm_config g;
  g.weight_block_bytes = 65536;
  const auto m = gemma();
  const prefill_plan p = plan_prefill(m, kv_fp16(m), o, g);
  EXPECT_EQ(p.chunk, 256u);
  EXPECT_EQ(p.chunk_limit, 318u);
  EXPECT_EQ(find(p, 0, "ffn_down").k_parts, 5u);
}

TEST(PrefillPlan, APromptLongerThanTheRingCapNeedsEviction) {
  prefill_options o;
  o.prompt = 8192;
  o.generated = 16;
  o.ring_cap = 4096;
  o.chunk = 64;
  const std::string e = refusal(gemma(), o);
  EXPECT_NE(e.find("a prompt of 8,192 tokens and 16 generated need 8,208 records per KV stream, "
                   "above the ring cap of 4,096: without eviction"),
            std::string::npos)
      << e;
  o.evict = true;
  o.sinks = 4;
  const auto m = gemma();
  const prefill_plan p = plan_prefill(m, kv_fp16(m), o, {});
  EXPECT_EQ(p.ring_cap, 4096u);
  // A global layer's last chunk reads the whole ring, not 8,192 tokens.
  EXPECT_EQ(chunk_attention_span(m, 4, 8128, 64, p.ring_cap), 4096u);
  // A chunk longer than the non-sink records would overwrite its own keys.
  o.ring_cap = 64;
  const std::string c = refusal(m, o);
  EXPECT_NE(c.find("a chunk of 64 rows appends its tokens before they attend, but the ring "
                   "keeps 60 non-sink records (cap 64, 4 sinks): at most 60 rows per chunk"),
            std::string::npos)
      << c;
}

TEST(PrefillPlan, ModelsTheGemmCannotReadAreRefused) {
  auto m = gemma();
  m.weights.scale_group = 32;
  prefill_options o;
  o.prompt = 16;
  EXPECT_NE(refusal(m, o).find("weights.scale_group 32: the GEMM array applies one scale per "
                               "output column"),
            std::string::npos);
  m = gemma();
  m.skip_masked_down_rows = true;
  EXPECT_NE(refusal(m, o).find("skip_masked_down_rows"), std::string::npos);
  o.prompt = 0;
  EXPECT_NE(refusal(gemma(), o).find("a prompt of 0 tokens"), std::string::npos);
}

TEST(PrefillPlan, ChunkSpansFollowTheWindow) {
  const auto m = gemma();
  // Local layer 0, window 512: rows 600..663 attend keys 89..663.
  EXPECT_EQ(chunk_attention_span(m, 0, 600, 64, 1u << 20), 575u);
  // Rows 0..63: keys 0..63.
  EXPECT_EQ(chunk_attention_span(m, 0, 0, 64, 1u << 20), 64u);
  // Global layer 4: everything up to the chunk's last row.
  EXPECT_EQ(chunk_attention_span(m, 4, 600, 64, 1u << 20), 664u);
}
