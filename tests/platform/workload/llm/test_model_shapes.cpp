// Derived quantities against numbers worked out by hand. The INT4 figures
// are those of the pccx digest's weight table (section 4); the record
// figures add the BF16 row scale and the 16-byte padding of docs/models/gemv.md:
//   K = 2048:  2 + 1024 = 1026 -> 1040 bytes per row
//   K = 16384: 2 + 8192 = 8194 -> 8208
//   K = 256:   2 + 128  = 130  -> 144
//   K = 64:    2 + 32   = 34   -> 48
#include <map>

#include "llm_test_util.h"

using namespace pccx::llm;

namespace {

std::map<std::string, matrix_shape> by_name(const std::vector<matrix_shape>& v) {
  std::map<std::string, matrix_shape> out;
  for (const auto& s : v) out[s.name] = s;
  return out;
}

kv::kv_format fmt(kv::kv_kind kind, uint32_t group) {
  kv::kv_format f;
  f.kind = kind;
  f.head_dim = 256;
  f.group = group;
  return f;
}

}  // namespace

TEST(ModelShapes, RecordFormulaOfTheGemvDocs) {
  weights_config w;
  w.scales = false;
  EXPECT_EQ(weight_record_bytes(w, 2048), 1024u);  // docs/models/gemv.md examples
  w.scales = true;
  w.scale_group = 32;
  EXPECT_EQ(weight_record_bytes(w, 96), 64u);
  w.scale_group = 0;
  EXPECT_EQ(weight_record_bytes(w, 2048), 1040u);
  EXPECT_EQ(weight_record_bytes(w, 16384), 8208u);
  EXPECT_EQ(weight_record_bytes(w, 256), 144u);
  EXPECT_EQ(weight_record_bytes(w, 64), 48u);
}

TEST(ModelShapes, GemmaLayerMatrices) {
  const model_config m = llmtest::gemma();
  const auto storing = layer_matrices(m, 0);
  std::vector<std::string> names;
  for (const auto& s : storing) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"altup_router", "attn_q", "attn_k", "attn_v", "attn_o",
                                             "laurel_left", "laurel_right", "ffn_gate", "ffn_up",
                                             "ffn_down", "ple_gate", "ple_proj"}));
  auto s = by_name(storing);
  // {N, K, INT4 bytes (digest), record bytes}
  struct row {
    const char* name;
    uint32_t n, k;
    uint64_t int4, records;
  };
  const row want[] = {
      {"altup_router", 4, 2048, 4096, 4 * 1040},
      {"attn_q", 2048, 2048, 2097152, 2048 * 1040},
      {"attn_k", 512, 2048, 524288, 512 * 1040},
      {"attn_v", 512, 2048, 524288, 512 * 1040},
      {"attn_o", 2048, 2048, 2097152, 2048 * 1040},
      {"laurel_left", 64, 2048, 65536, 64 * 1040},
      {"laurel_right", 2048, 64, 65536, 2048 * 48},
      {"ffn_gate", 16384, 2048, 16777216, 16384 * 1040},
      {"ffn_up", 16384, 2048, 16777216, 16384 * 1040},
      {"ffn_down", 2048, 16384, 16777216, 2048 * 8208},
      {"ple_gate", 256, 2048, 262144, 256 * 1040},
      {"ple_proj", 2048, 256, 262144, 2048 * 144},
  };
  for (const row& r : want) {
    SCOPED_TRACE(r.name);
    EXPECT_EQ(s[r.name].rows, r.n);
    EXPECT_EQ(s[r.name].cols, r.k);
    EXPECT_EQ(matrix_bytes(m, s[r.name]).int4, r.int4);
    EXPECT_EQ(matrix_bytes(m, s[r.name]).records, r.records);
  }
  // The digest's LAuReL and PLE pairs.
  EXPECT_EQ(int4_bytes(s["laurel_left"]) + int4_bytes(s["laurel_right"]), 131072u);
  EXPECT_EQ(int4_bytes(s["ple_gate"]) + int4_bytes(s["ple_proj"]), 524288u);

  // Shared layers have no K and V projections.
  auto shared = by_name(layer_matrices(m, 20));
  EXPECT_EQ(shared.count("attn_k"), 0u);
  EXPECT_EQ(shared.count("attn_v"), 0u);
  EXPECT_EQ(shared.size(), 10u);
}

TEST(ModelShapes, GemmaWeightBytes) {
  const model_config m = llmtest::gemma();
  // Digest: 56,229,888 per storing layer, 55,181,312 per shared layer, for
  // the matrices it lists; the AltUp router (4 x 2048 = 4,096 B) comes on
  // top of both.
  EXPECT_EQ(layer_weight_bytes(m, 0).int4, 56229888u + 4096u);
  EXPECT_EQ(layer_weight_bytes(m, 19).int4, 56229888u + 4096u);
  EXPECT_EQ(layer_weight_bytes(m, 20).int4, 55181312u + 4096u);
  // Records: 2 x 2,129,920 + 2 x 532,480 + 2 x 17,039,360 + 16,809,984 +
  // 66,560 + 98,304 + 266,240 + 294,912 + 4,160.
  EXPECT_EQ(layer_weight_bytes(m, 0).records, 56943680u);
  EXPECT_EQ(layer_weight_bytes(m, 34).records, 56943680u - 2 * 532480u);
  // Digest: 35 layers 1,952,317,440 (+ 35 routers).
  uint64_t layers = 0;
  for (uint32_t l = 0; l < 35; ++l) layers += layer_weight_bytes(m, l).int4;
  EXPECT_EQ(layers, 1952317440u + 35u * 4096u);

  // Entry and exit: 6 AltUp projections 12,582,912, W_ple_proj 9,175,040,
  // LM head 268,697,600 (records 262,400 x 1,040 = 272,896,000).
  const auto exit = by_name(exit_matrices(m));
  EXPECT_EQ(matrix_bytes(m, exit.at("lm_head")).int4, 268697600u);
  EXPECT_EQ(matrix_bytes(m, exit.at("lm_head")).records, 272896000u);
  const auto entry = by_name(entry_matrices(m));
  EXPECT_EQ(entry.at("ple_model_proj").rows, 8960u);
  EXPECT_EQ(matrix_bytes(m, entry.at("ple_model_proj")).int4, 9175040u);
  EXPECT_EQ(entry.count("altup_proj.3"), 1u);
  EXPECT_EQ(entry_exit_weight_bytes(m).int4, 12582912u + 9175040u + 268697600u);
  EXPECT_EQ(entry_exit_weight_bytes(m).records, 6u * 2048 * 1040 + 8960u * 1040 + 272896000u);

  const weight_bytes total = total_weight_bytes(m);
  EXPECT_EQ(total.int4, 2242916352u);
  EXPECT_EQ(total.records, 2272048320u);  // +1.30 % for scales and padding
  // Per token, with the embedding row (1,024 INT4 bytes, one 1,040-byte
  // record) and the per-layer embedding row (35 x 256 INT4 = 4,480 bytes;
  // stored as 35 BF16 scales + 4,480 = 4,550 -> 4,560): the digest's
  // "2.243 GB/token" (its 2,242,778,496 plus the routers' 143,360).
  EXPECT_EQ(weight_bytes_per_token(m).int4, 2242778496u + 143360u);
  EXPECT_EQ(weight_bytes_per_token(m).records, 2272048320u + 1040u + 4560u);
}

TEST(ModelShapes, GemmaTablesAndParameters) {
  const model_config m = llmtest::gemma();
  EXPECT_EQ(ple_row_bytes(m), 4560u);
  EXPECT_EQ(ple_table_bytes(m), 262144ull * 4560u);  // 1,195,376,640
  EXPECT_EQ(embedding_row_bytes(m), 1040u);
  EXPECT_EQ(embedding_table_bytes(m), 0u);  // tied: the LM head's records
  // Per storing layer: 4 norms x 4,096 + q_norm 512 + k_norm 512 +
  // laurel_norm 4,096 + ple_post_norm 4,096 + router norm 4,096 + output
  // scale 4,096 + 64 + 16 coefficient words of 16 bytes (1,280) = 35,072;
  // shared layers 512 less; then final_norm 4,096 and ple_proj_norm 512.
  EXPECT_EQ(vector_param_bytes(m), 20u * 35072 + 15u * 34560 + 4096 + 512);
}

TEST(ModelShapes, GemmaMacs) {
  const model_config m = llmtest::gemma();
  // Digest: 4.486 G dense, i.e. 2 x 2,242,772,992 INT4 bytes; + 35 routers
  // x 8,192.
  EXPECT_EQ(weight_macs_per_token(m), 4485545984u + 286720u);
  EXPECT_NEAR(sparse_keep_fraction(m), 0.05, 1e-8);
  // Digest: 4.167 G with W_down skipped on layers 0-9 (95 % of 10 x
  // 2048 x 16384 = 318,767,104), 2.083 GB read.
  EXPECT_NEAR(weight_macs_per_token_down_skipped(m), 4485832704.0 - 318767104.0, 1e3);
  EXPECT_NEAR(int4_bytes_per_token_down_skipped(m), 2242921856.0 - 159383552.0, 1e3);
  // Attention: 2 x 8 x 256 = 4,096 MACs per attended token and layer.
  EXPECT_EQ(attention_macs_per_token(llmtest::gemma_doc(), 1024), 35u * 4096 * 1024);
  EXPECT_EQ(attention_macs_per_token(m, 1024), (7u * 1024 + 28u * 512) * 4096);
}

TEST(ModelShapes, GemmaKvBytes) {
  const model_config m = llmtest::gemma();
  const model_config doc = llmtest::gemma_doc();
  const kv_formats fp16 = kv_fp16(m);
  EXPECT_EQ(check_kv_formats(m, fp16), "");
  // 2 KV heads x (512 + 512).
  EXPECT_EQ(kv_bytes_per_token_per_layer(m, fp16), 2048u);
  EXPECT_EQ(kv_bytes_per_token(m, fp16), 40960u);  // 20 storing layers: 40 KiB
  const kv_formats int8{fmt(kv::kv_kind::int8, 256), fmt(kv::kv_kind::int8, 256)};
  EXPECT_EQ(kv_bytes_per_token_per_layer(m, int8), 2u * (272 + 272));
  const kv_formats int4{fmt(kv::kv_kind::int4, 32), fmt(kv::kv_kind::int4, 32)};
  EXPECT_EQ(kv_bytes_per_token(m, int4), 20u * 2 * (144 + 144));

  // Reads per token. pccx-doc: 35 layers x 2,048 x L. As released: 7
  // global layers x 2,048 x L + 28 local layers x 2,048 x min(L, 512).
  for (uint64_t L : {1024ull, 8192ull, 32768ull}) {
    SCOPED_TRACE(L);
    EXPECT_EQ(kv_read_bytes_per_token(doc, fp16, L), 35u * 2048 * L);
    EXPECT_EQ(kv_read_bytes_per_token(m, fp16, L), 7u * 2048 * L + 28u * 2048 * 512);
  }
  EXPECT_EQ(kv_read_bytes_per_token(doc, fp16, 1024), 73400320u);
  EXPECT_EQ(kv_read_bytes_per_token(m, fp16, 1024), 44040192u);    // 42 MiB
  EXPECT_EQ(kv_read_bytes_per_token(m, fp16, 8192), 146800640u);   // 140 MiB
  EXPECT_EQ(kv_read_bytes_per_token(m, fp16, 32768), 499122176u);  // 476 MiB
  EXPECT_EQ(kv_read_bytes_per_token(doc, fp16, 32768), 2348810240u);

  // Held after 32K tokens: 1.342 GB for pccx-doc; 4 global x 32,768 + 16
  // local x 512 tokens of 2,048 bytes = 272 MiB as released.
  EXPECT_EQ(kv_cache_bytes(doc, fp16, 32768), 1342177280u);
  EXPECT_EQ(kv_cache_bytes(m, fp16, 32768), 285212672u);
  EXPECT_EQ(kv_cache_bytes(m, fp16, 1024), 25165824u);  // 24 MiB
}

TEST(ModelShapes, KvFormatsMustMatchTheModel) {
  const model_config m = llmtest::tiny();
  kv_formats f = kv_fp16(m);
  EXPECT_EQ(f.key.head_dim, 32u);
  f.value.head_dim = 256;
  f.key.kind = kv::kv_kind::rotated;
  f.key.bits = 5;
  EXPECT_EQ(check_kv_formats(m, f),
            "key format: rotated bits 5 is outside 2..4; value format: expected head_dim 32 "
            "(the model's), found 256");
}

TEST(ModelShapes, TinyShapes) {
  const model_config m = llmtest::tiny();
  auto s = by_name(layer_matrices(m, 0));
  EXPECT_EQ(s["attn_q"].rows, 64u);
  EXPECT_EQ(s["attn_k"].rows, 32u);
  EXPECT_EQ(s["ffn_down"].cols, 128u);
  EXPECT_EQ(s["laurel_left"].rows, 8u);
  EXPECT_EQ(s["ple_proj"].cols, 16u);
  // 64 x 64 / 2 INT4 bytes; 64 rows of 2 + 32 = 34 -> 48 bytes.
  EXPECT_EQ(matrix_bytes(m, s["attn_q"]).int4, 2048u);
  EXPECT_EQ(matrix_bytes(m, s["attn_q"]).records, 3072u);
  // 10 layers x 16 = 160 per-layer values: 10 scales + 80 bytes -> 112.
  EXPECT_EQ(ple_row_bytes(m), 112u);
  EXPECT_EQ(by_name(entry_matrices(m)).at("ple_model_proj").rows, 160u);
  EXPECT_EQ(kv_bytes_per_token_per_layer(m, kv_fp16(m)), 128u);
}

TEST(ModelShapes, DownByUnitWhenSkipping) {
  const auto m = load_model(llmtest::model_path("gemma3n-e4b"), {"skip_masked_down_rows=true"});
  auto sparse = by_name(layer_matrices(m, 9));
  EXPECT_TRUE(sparse["ffn_down"].by_unit);
  EXPECT_EQ(sparse["ffn_down"].rows, 16384u);
  EXPECT_EQ(sparse["ffn_down"].cols, 2048u);
  EXPECT_EQ(matrix_bytes(m, sparse["ffn_down"]).records, 16384u * 1040);
  EXPECT_FALSE(by_name(layer_matrices(m, 10))["ffn_down"].by_unit);
  // Same MACs and INT4 bytes either way.
  EXPECT_EQ(weight_macs_per_token(m), weight_macs_per_token(llmtest::gemma()));
}

TEST(ModelShapes, Grouped) {
  EXPECT_EQ(grouped(0), "0");
  EXPECT_EQ(grouped(999), "999");
  EXPECT_EQ(grouped(1000), "1,000");
  EXPECT_EQ(grouped(4294967296ull), "4,294,967,296");
}
