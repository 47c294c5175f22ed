// The description of a decoder-only language model as the pccx decode sees
// it: every structural fact (dimensions, the local/global attention pattern,
// KV sharing, AltUp, LAuReL, per-layer inputs, FFN sparsity, quantisation)
// is a key, so a different model is a different file under configs/models/.
//
// The struct is bound with the platform's configuration machinery
// (platform/config: layered JSON, typed visitors, JSON-pointer errors), so a
// model file takes --set overrides and reports mistakes the same way as
// the platform configuration. docs/reference/model-config.md lists every key.
//
// Dimensions have out-of-range defaults (0), which makes them required: a
// model file that leaves one out fails to load. Optional features default
// to "absent" (laurel_rank 0, per_layer_input.dim 0, altup.streams 1,
// sparse_ffn_layers 0, sliding_window 0, kv_shared_from 0).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "infra/config/config_schema.h"
#include "platform/config/platform_loader.h"

namespace pccx::llm {

// Largest value the ISA's 16-bit shape fields hold (MEMSET a, b, c).
inline constexpr uint32_t kShapeFieldMax = 65535;

// Reasons shared by several keys.
// hidden, ffn, ffn_per_layer: a vector lives in the L2 as whole words.
constexpr const char* kWidthRange =
    "one 128-bit L2 word (8 BF16) at least; 2^20 BF16 fill the largest L2 (131,072 words)";
constexpr const char* kHeadCountRange =
    "at least one head; 4,096 is a modelling cap (Gemma 3n: 8 query, 2 KV heads)";
constexpr const char* kSoftcapRange = "0 = no cap; 10^6 is a modelling cap (Gemma 3n logits: 30)";
constexpr const char* kRopeThetaRange =
    "a base of at least 1 keeps every frequency at most 1; 10^12 is a modelling cap";
constexpr const char* kLayerIndexRange =
    "a layer index: below layers (checked) and the 65,535-layer cap";
// Caps of vocab (and per_layer_input.vocab) and of token counts (max_position, sliding_window).
inline constexpr uint32_t kVocabMax = 1u << 24;
inline constexpr uint32_t kTokenMax = 1u << 24;

struct attention_config {
  uint32_t heads = 0;
  uint32_t kv_heads = 0;
  uint32_t head_dim = 0;
  double scale = 1.0;
  double logit_softcap = 0.0;
  bool qk_norm = false;
  bool v_norm = false;
  double rope_theta_local = 0.0;
  double rope_theta_global = 0.0;
  uint32_t global_every = 0;
  uint32_t global_offset = 0;
  std::vector<uint32_t> global_layers;
  uint32_t sliding_window = 0;
  uint32_t kv_shared_from = 0;

  template <class V>
  void visit(V& v) {
    using config::range;
    v.field("heads", heads, "Query heads", range(1, 4096, kHeadCountRange));
    v.field("kv_heads", kv_heads, "Key/value heads (GQA: heads is a multiple)",
            range(1, 4096, kHeadCountRange));
    v.field("head_dim", head_dim, "Elements per head vector (a multiple of 8)",
            range(2, 65535, "RoPE rotates pairs, so at least 2; the GEMV's K field is 16 bits"));
    v.field("scale", scale, "Factor on q.k before softmax (1.0 = none; 1/sqrt(head_dim) is usual)",
            range(0.0, 1e6, "0 flattens the softmax; 10^6 is a modelling cap"));
    v.field("logit_softcap", logit_softcap, "Attention logit softcap c: c tanh(s / c); 0 = none",
            range(0.0, 1e6, kSoftcapRange));
    v.field("qk_norm", qk_norm, "RMSNorm with a learned scale on every q and k head vector");
    v.field("v_norm", v_norm, "RMSNorm without a scale on every v head vector");
    v.field("rope_theta_local", rope_theta_local, "RoPE base of local (sliding-window) layers",
            range(1.0, 1e12, kRopeThetaRange));
    v.field("rope_theta_global", rope_theta_global, "RoPE base of global layers",
            range(1.0, 1e12, kRopeThetaRange));
    v.field("global_every", global_every,
            "Layer i is global when i mod global_every == global_offset; 0 = no periodic pattern",
            range(0, 65535, "0 = no pattern; a period up to the 65,535-layer cap"));
    v.field("global_offset", global_offset, "See global_every; below global_every",
            range(0, 65535, "0 or a layer index below global_every (checked), under 65,535"));
    v.field("global_layers", global_layers,
            "Further global layers, listed explicitly (joined with the periodic pattern)",
            range(0, 65535, kLayerIndexRange));
    v.field("sliding_window", sliding_window,
            "Tokens a local layer attends to (the newest, its own included); 0 = the whole "
            "history (local layers then differ from global ones only by their RoPE base)",
            range(0u, kTokenMax, "0 = the whole history; 2^24 tokens is the cap of max_position"));
    v.field("kv_shared_from", kv_shared_from,
            "Layers from this index on store no K/V: each reads the cache of the last storing "
            "layer of its own kind (local or global); 0 = every layer stores",
            range(0, 65535, "0 = every layer stores; else up to layers (checked), under 65,535"));
  }
};

struct per_layer_input_config {
  uint32_t vocab = 0;
  uint32_t dim = 0;
  std::string table_format = "int4";
  uint32_t table_scale_group = 0;

  template <class V>
  void visit(V& v) {
    using config::range;
    v.field("vocab", vocab, "Rows of the per-layer embedding table (token ids below it have a row)",
            range(0u, kVocabMax, "0 only without per-layer inputs (checked); the cap of vocab"));
    v.field("dim", dim, "Per-layer input width per layer; 0 = the model has no per-layer inputs",
            range(0, 65535, "0 = none; 65,535 keeps layers x dim (uint32) from overflowing"));
    v.field("table_format", table_format,
            "Storage of the table rows (layers x dim values per token): int4/int8 with BF16 "
            "scales, or plain bf16",
            config::one_of({"int4", "int8", "bf16"}));
    v.field("table_scale_group", table_scale_group,
            "int4/int8: values per BF16 scale in a table row; 0 = one scale per row",
            range(0, 65535, "0 = one scale per row; up to 65,535 values a scale (modelling cap)"));
  }
};

struct altup_config {
  uint32_t streams = 1;
  uint32_t active_stream = 0;

  template <class V>
  void visit(V& v) {
    using config::range;
    v.field("streams", streams,
            "AltUp streams of width hidden carried between layers; 1 = no AltUp",
            range(1, 64, "1 = no AltUp; 64 is a modelling cap (Gemma 3n: 4)"));
    v.field("active_stream", active_stream,
            "The stream the layer computes on (the others are predicted and corrected)",
            range(0, 63, "a stream index below streams (checked), so below the cap of 64"));
  }
};

// Row records of every GEMV matrix (docs/models/gemv.md: BF16 scales when `scales`,
// then the packed INT4 values, zero padded to 16 bytes).
struct weights_config {
  std::string format = "int4";
  bool scales = true;
  uint32_t scale_group = 0;

  template <class V>
  void visit(V& v) {
    v.field("format", format, "Matrix element format (the GEMV's LUT path takes INT4)",
            config::one_of({"int4"}));
    v.field("scales", scales, "Rows carry BF16 scales (the GEMV's w_scale flag)");
    v.field("scale_group", scale_group,
            "Inputs per BF16 scale; 0 = one scale per output row (npu.gemv.scale_group)",
            config::range(0, 65535, "0 = one scale per row; a group spans at most the 16-bit K"));
  }
};

struct model_config {
  std::string name;
  uint32_t layers = 0;
  uint32_t hidden = 0;
  uint32_t ffn = 0;
  std::vector<uint32_t> ffn_per_layer;
  std::string ffn_activation = "gelu_tanh";
  uint32_t vocab = 0;
  bool tie_embeddings = true;
  double rms_norm_eps = 1e-6;
  double final_logit_softcap = 0.0;
  uint32_t max_position = 0;
  attention_config attention;
  per_layer_input_config per_layer_input;
  altup_config altup;
  uint32_t laurel_rank = 0;
  uint32_t sparse_ffn_layers = 0;
  double sparse_ffn_cutoff_z = 1.6448536;
  bool skip_masked_down_rows = false;
  weights_config weights;

  template <class V>
  void visit(V& v) {
    using config::range;
    v.field("name", name, "Model name, for tables and messages");
    v.field("layers", layers, "Decoder layers",
            range(1, 65535, "at least one layer; 65,535 keeps layers x per-layer dim in uint32"));
    v.field("hidden", hidden, "Hidden width (residual stream)", range(8, 1048576, kWidthRange));
    v.field("ffn", ffn, "FFN intermediate width of every layer", range(8, 1048576, kWidthRange));
    v.field("ffn_per_layer", ffn_per_layer,
            "Per-layer FFN widths replacing ffn; empty or one entry per layer",
            range(8, 1048576, kWidthRange));
    v.field("ffn_activation", ffn_activation, "FFN activation on the gate: GELU, tanh form",
            config::one_of({"gelu_tanh"}));
    v.field("vocab", vocab, "Vocabulary: embedding rows and LM-head outputs",
            range(1u, kVocabMax,
                  "at least one token; 2^24 (64x Gemma's 262,400) keeps logits at 32 MiB a token"));
    v.field("tie_embeddings", tie_embeddings,
            "The LM head is the embedding table (one matrix in DDR)");
    v.field("rms_norm_eps", rms_norm_eps, "Epsilon of every RMSNorm",
            range(0.0, 1.0, "non-negative; 1 is a modelling cap (usual: 1e-6)"));
    v.field("final_logit_softcap", final_logit_softcap, "Final logits c tanh(x / c); 0 = none",
            range(0.0, 1e6, kSoftcapRange));
    v.field("max_position", max_position, "Trained context length, tokens",
            range(1u, kTokenMax,
                  "at least one token; 2^24 is a modelling cap, 512x Gemma 3n's 32,768"));
    v.field("attention", attention, "Attention");
    v.field("per_layer_input", per_layer_input, "Per-layer inputs (PLE)");
    v.field("altup", altup, "Alternating updates (AltUp)");
    v.field("laurel_rank", laurel_rank,
            "Rank of the LAuReL low-rank residual (hidden -> rank -> hidden); 0 = none",
            range(0, 65535, "0 = none; a rank is one 16-bit shape extent (65,535)"));
    v.field("sparse_ffn_layers", sparse_ffn_layers,
            "Layers 0..n-1 apply gaussian top-k sparsity to the FFN gate",
            range(0, 65535, "0 = dense; at most layers (checked), under the 65,535-layer cap"));
    v.field("sparse_ffn_cutoff_z", sparse_ffn_cutoff_z,
            "Sparse layers keep gate - (mean + z std), clipped at 0 (z = 1.6448536 keeps 5 %)",
            range(0.0, 10.0,
                  "0 keeps the gate above its mean; past 10 std a Gaussian keeps next to nothing"));
    v.field("skip_masked_down_rows", skip_masked_down_rows,
            "Sparse layers store W_down by FFN unit so the decode can skip the masked units' "
            "records; false = W_down stored by output row and read densely");
    v.field("weights", weights, "Quantisation of the matrices");
  }
  void validate(config::validator& check) const;

  // Derived facts used everywhere; valid only for a validated config.
  uint32_t ffn_of(uint32_t layer) const {
    return ffn_per_layer.empty() ? ffn : ffn_per_layer[layer];
  }
  bool is_global(uint32_t layer) const;
  // kv_shared_from, or layers when no layer shares.
  uint32_t storing_layers() const;
  bool stores_kv(uint32_t layer) const { return layer < storing_layers(); }
  // The layer whose cache `layer` attends to: itself when it stores,
  // otherwise the last storing layer of the same kind. layers (an invalid
  // index) when there is none, which validate() reports.
  uint32_t kv_source(uint32_t layer) const;
  // Tokens of a context of `context` tokens the layer attends to.
  uint64_t attention_span(uint32_t layer, uint64_t context) const;
  bool has_ple() const { return per_layer_input.dim != 0; }
  bool has_altup() const { return altup.streams > 1; }
  bool has_laurel() const { return laurel_rank != 0; }
  bool is_sparse_ffn(uint32_t layer) const { return layer < sparse_ffn_layers; }
};

// Loads a model file (then any "key=value" overrides); throws
// config::config_error with every problem, each as
// "<file>: <JSON pointer>: <what>".
model_config load_model(const std::string& path, const std::vector<std::string>& sets = {});
model_config load_model(const config::config_layers& layers);

}  // namespace pccx::llm
