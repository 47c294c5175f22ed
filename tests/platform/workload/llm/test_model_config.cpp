// The model files and the schema: every Gemma 3n E4B fact as loaded, the
// layer roles (local/global, storing/shared, KV sources), overrides, and
// the validation messages.
#include <unistd.h>

#include <filesystem>

#include "llm_test_util.h"

using namespace pccx::llm;
using llmtest::load_error;
using llmtest::model_path;

TEST(ModelConfig, GemmaAsReleased) {
  const model_config m = llmtest::gemma();
  EXPECT_EQ(m.name, "gemma3n-e4b");
  EXPECT_EQ(m.layers, 35u);
  EXPECT_EQ(m.hidden, 2048u);
  EXPECT_EQ(m.ffn, 16384u);
  EXPECT_TRUE(m.ffn_per_layer.empty());
  EXPECT_EQ(m.ffn_activation, "gelu_tanh");
  EXPECT_EQ(m.vocab, 262400u);
  EXPECT_TRUE(m.tie_embeddings);
  EXPECT_DOUBLE_EQ(m.rms_norm_eps, 1e-6);
  EXPECT_DOUBLE_EQ(m.final_logit_softcap, 30.0);
  EXPECT_EQ(m.max_position, 32768u);
  const auto& a = m.attention;
  EXPECT_EQ(a.heads, 8u);
  EXPECT_EQ(a.kv_heads, 2u);
  EXPECT_EQ(a.head_dim, 256u);
  EXPECT_DOUBLE_EQ(a.scale, 1.0);
  EXPECT_DOUBLE_EQ(a.logit_softcap, 0.0);
  EXPECT_TRUE(a.qk_norm);
  EXPECT_TRUE(a.v_norm);
  EXPECT_DOUBLE_EQ(a.rope_theta_local, 1e4);
  EXPECT_DOUBLE_EQ(a.rope_theta_global, 1e6);
  EXPECT_EQ(a.global_every, 5u);
  EXPECT_EQ(a.global_offset, 4u);
  EXPECT_TRUE(a.global_layers.empty());
  EXPECT_EQ(a.sliding_window, 512u);
  EXPECT_EQ(a.kv_shared_from, 20u);
  EXPECT_EQ(m.per_layer_input.vocab, 262144u);
  EXPECT_EQ(m.per_layer_input.dim, 256u);
  EXPECT_EQ(m.per_layer_input.table_format, "int4");
  EXPECT_EQ(m.per_layer_input.table_scale_group, 256u);
  EXPECT_EQ(m.altup.streams, 4u);
  EXPECT_EQ(m.altup.active_stream, 0u);
  EXPECT_EQ(m.laurel_rank, 64u);
  EXPECT_EQ(m.sparse_ffn_layers, 10u);
  EXPECT_DOUBLE_EQ(m.sparse_ffn_cutoff_z, 1.6448536);
  EXPECT_FALSE(m.skip_masked_down_rows);
  EXPECT_EQ(m.weights.format, "int4");
  EXPECT_TRUE(m.weights.scales);
  EXPECT_EQ(m.weights.scale_group, 0u);
}

TEST(ModelConfig, PccxDocVariantDiffersOnlyInTheWindow) {
  auto doc = pccx::config::to_json_as(llmtest::gemma_doc());
  auto released = pccx::config::to_json_as(llmtest::gemma());
  EXPECT_EQ(doc["attention"]["sliding_window"], 0);
  EXPECT_EQ(doc["name"], "gemma3n-e4b-pccx-doc");
  doc["attention"]["sliding_window"] = 512;
  doc["name"] = "gemma3n-e4b";
  EXPECT_EQ(doc, released);
  // The same variant as an override of the released file.
  auto set = load_model(model_path("gemma3n-e4b"), {"attention.sliding_window=0"});
  EXPECT_EQ(set.attention.sliding_window, 0u);
}

TEST(ModelConfig, GemmaLayerRoles) {
  const model_config m = llmtest::gemma();
  std::vector<uint32_t> global;
  for (uint32_t i = 0; i < m.layers; ++i)
    if (m.is_global(i)) global.push_back(i);
  EXPECT_EQ(global, (std::vector<uint32_t>{4, 9, 14, 19, 24, 29, 34}));
  EXPECT_EQ(m.storing_layers(), 20u);
  for (uint32_t i = 0; i < 20; ++i) EXPECT_EQ(m.kv_source(i), i);
  for (uint32_t i = 20; i < 35; ++i) EXPECT_EQ(m.kv_source(i), (i + 1) % 5 == 0 ? 19u : 18u) << i;
  EXPECT_TRUE(m.is_sparse_ffn(9));
  EXPECT_FALSE(m.is_sparse_ffn(10));
  // Local layers see the last 512 tokens, global ones everything.
  EXPECT_EQ(m.attention_span(0, 100), 100u);
  EXPECT_EQ(m.attention_span(0, 4096), 512u);
  EXPECT_EQ(m.attention_span(4, 4096), 4096u);
  EXPECT_EQ(llmtest::gemma_doc().attention_span(0, 4096), 4096u);
}

TEST(ModelConfig, TinyHasTheSameStructure) {
  const model_config m = llmtest::tiny();
  EXPECT_EQ(m.layers, 10u);
  EXPECT_EQ(m.hidden, 64u);
  EXPECT_EQ(m.ffn, 128u);
  EXPECT_EQ(m.attention.heads, 2u);
  EXPECT_EQ(m.attention.kv_heads, 1u);
  EXPECT_EQ(m.attention.head_dim, 32u);
  EXPECT_EQ(m.vocab, 512u);
  EXPECT_EQ(m.per_layer_input.dim, 16u);
  EXPECT_EQ(m.altup.streams, 4u);
  EXPECT_EQ(m.laurel_rank, 8u);
  EXPECT_EQ(m.sparse_ffn_layers, 1u);
  EXPECT_EQ(m.attention.sliding_window, 8u);
  // Layers 0-3 local and 4 global store; 5-8 read layer 3, 9 reads layer 4,
  // as 20-34 read 18 and 19 in Gemma.
  EXPECT_EQ(m.storing_layers(), 5u);
  for (uint32_t i = 0; i < 10; ++i) EXPECT_EQ(m.is_global(i), i == 4 || i == 9) << i;
  for (uint32_t i = 5; i < 9; ++i) EXPECT_EQ(m.kv_source(i), 3u);
  EXPECT_EQ(m.kv_source(9), 4u);
}

TEST(ModelConfig, ExplicitGlobalLayersJoinThePattern) {
  const auto m = load_model(model_path("tiny"), {"attention.global_layers=[1]"});
  EXPECT_TRUE(m.is_global(1));
  EXPECT_TRUE(m.is_global(4));
  EXPECT_FALSE(m.is_global(2));
  // Without the periodic pattern only the list counts.
  const auto only = load_model(model_path("tiny"),
                               {"attention.global_every=0", "attention.global_offset=0",
                                "attention.global_layers=[1, 6]", "attention.kv_shared_from=0"});
  for (uint32_t i = 0; i < 10; ++i) EXPECT_EQ(only.is_global(i), i == 1 || i == 6) << i;
  EXPECT_EQ(only.storing_layers(), 10u);
}

TEST(ModelConfig, PerLayerFfnOverride) {
  const auto m =
      load_model(model_path("tiny"), {"ffn_per_layer=[64, 128, 128, 128, 128, 256, 128, 128, "
                                      "128, 128]"});
  EXPECT_EQ(m.ffn_of(0), 64u);
  EXPECT_EQ(m.ffn_of(5), 256u);
  EXPECT_EQ(m.ffn_of(9), 128u);
}

TEST(ModelConfigErrors, HiddenNotAMultipleOf8) {
  EXPECT_EQ(load_error(model_path("gemma3n-e4b"), {"hidden=2050"}),
            "--set hidden=2050: /hidden: expected a multiple of 8 (8 BF16 values fill one "
            "128-bit L2 word), found 2050");
}

TEST(ModelConfigErrors, HeadsNotAMultipleOfKvHeads) {
  EXPECT_EQ(load_error(model_path("gemma3n-e4b"), {"attention.heads=7"}),
            "--set attention.heads=7: /attention/heads: expected heads to be a multiple of "
            "kv_heads (2), found 7");
}

TEST(ModelConfigErrors, KvSharedFromBeyondLayers) {
  EXPECT_EQ(load_error(model_path("gemma3n-e4b"), {"attention.kv_shared_from=36"}),
            "--set attention.kv_shared_from=36: /attention/kv_shared_from: expected a layer "
            "index up to layers (35; 0 = no sharing), found 36");
  // The blame follows the value changed last.
  EXPECT_EQ(load_error(model_path("gemma3n-e4b"), {"layers=19"}),
            "--set layers=19: /layers: expected a layer index up to layers (19; 0 = no sharing), "
            "found 20");
}

TEST(ModelConfigErrors, SharedLayerWithoutAStoringLayerOfItsKind) {
  // Five tiny layers with sharing from layer 3: layer 4 is global, but
  // layers 0-2 are all local.
  EXPECT_EQ(load_error(model_path("tiny"), {"layers=5", "attention.kv_shared_from=3"}),
            "--set attention.kv_shared_from=3: /attention/kv_shared_from: layer 4 (global) "
            "shares a KV cache but no layer below 3 is global; expected an earlier storing "
            "layer of the same kind, found none");
  // Gemma with its only global layer at 24: no storing layer is global.
  EXPECT_EQ(load_error(model_path("gemma3n-e4b"),
                       {"attention.global_every=25", "attention.global_offset=24"}),
            "--set attention.global_offset=24: /attention/global_offset: layer 24 (global) "
            "shares a KV cache but no layer below 20 is global; expected an earlier storing "
            "layer of the same kind, found none");
}

TEST(ModelConfigErrors, PatternAndListChecks) {
  EXPECT_EQ(load_error(model_path("gemma3n-e4b"), {"attention.global_offset=5"}),
            "--set attention.global_offset=5: /attention/global_offset: expected global_offset "
            "below global_every (5), found 5");
  EXPECT_EQ(load_error(model_path("tiny"), {"attention.global_layers=[2, 10, 2]"}),
            "--set attention.global_layers=[2, 10, 2]: /attention/global_layers/1: expected a "
            "layer index below layers (10), found 10\n"
            "--set attention.global_layers=[2, 10, 2]: /attention/global_layers/2: layer 2 is "
            "listed twice");
  EXPECT_EQ(load_error(model_path("tiny"), {"ffn_per_layer=[128, 128]"}),
            "--set ffn_per_layer=[128, 128]: /ffn_per_layer: expected no entries or one per "
            "layer (10), found 2");
  EXPECT_EQ(load_error(model_path("tiny"), {"altup.active_stream=4"}),
            "--set altup.active_stream=4: /altup/active_stream: expected a stream below streams "
            "(4), found 4");
  EXPECT_EQ(load_error(model_path("tiny"), {"sparse_ffn_layers=11"}),
            "--set sparse_ffn_layers=11: /sparse_ffn_layers: expected at most layers (10), found "
            "11");
  EXPECT_EQ(load_error(model_path("tiny"), {"attention.head_dim=36"}),
            "--set attention.head_dim=36: /attention/head_dim: expected a multiple of 8 (8 BF16 "
            "values fill one 128-bit L2 word), found 36");
}

TEST(ModelConfigErrors, TypesRangesAndUnknownKeys) {
  const std::string f = model_path("gemma3n-e4b");
  EXPECT_EQ(load_error(f, {"attention.kv_heads=0"}),
            "--set attention.kv_heads=0: /attention/kv_heads: expected an unsigned integer in "
            "[1, 4096], found 0 (at least one head; 4,096 is a modelling cap (Gemma 3n: 8 query, "
            "2 KV heads))");
  EXPECT_EQ(load_error(f, {"attention.sliding_windw=8"}),
            "--set attention.sliding_windw=8: /attention/sliding_windw: unknown key; did you mean "
            "\"sliding_window\"?");
  EXPECT_EQ(load_error(f, {"weights.format=int8"}),
            "--set weights.format=int8: /weights/format: expected one of \"int4\", found "
            "\"int8\"; did you mean \"int4\"?");
}

TEST(ModelConfigErrors, DimensionsAreRequired) {
  // A model file that names nothing: every dimension reports its absence.
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("pccx_llm_empty_" + std::to_string(::getpid()) + ".json"))
                               .string();
  std::ofstream(path) << "{}";
  const std::string msg = load_error(path, {});
  std::filesystem::remove(path);
  for (const char* line :
       {"built-in defaults: /layers: expected an unsigned integer in [1, 65535], found 0",
        "built-in defaults: /hidden: expected an unsigned integer in [8, 1048576], found 0",
        "built-in defaults: /attention/head_dim: expected an unsigned integer in [2, 65535], "
        "found 0"})
    EXPECT_NE(msg.find(line), std::string::npos) << line << "\nnot in\n" << msg;
}

TEST(ModelConfigErrors, NameIsRequired) {
  EXPECT_EQ(load_error(model_path("tiny"), {"name=\"\""}),
            "--set name=\"\": /name: expected a non-empty model name, found \"\"");
}

TEST(ModelConfig, ShapeFieldNotes) {
  // Only the LM head exceeds the 16-bit shape fields; the decode tiles it.
  EXPECT_EQ(shape_field_notes(llmtest::gemma()),
            (std::vector<std::string>{"lm_head: N 262,400 > 65,535, at least 5 tiles"}));
  EXPECT_TRUE(shape_field_notes(llmtest::tiny()).empty());
}
