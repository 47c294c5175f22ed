// What a model_config implies: the matrices of every layer and their
// shapes, the bytes of their INT4 row records, the small BF16 parameters,
// the per-layer embedding table, MACs per token, and the KV-cache bytes
// stored and read per token. All functions expect a validated config.
// docs/reference/model-config.md tabulates them for Gemma 3n E4B.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/kv/kv_format.h"
#include "platform/workload/llm/model_config.h"

namespace pccx::llm {

// One GEMV matrix as stored: `rows` row records of `cols` inputs each
// (rows = the GEMV's N, cols = its K). `layer` is -1 for the matrices
// outside the layers.
struct matrix_shape {
  std::string name;
  int32_t layer = -1;
  uint32_t rows = 0;
  uint32_t cols = 0;
  // W_down of a sparse layer with skip_masked_down_rows: one record per FFN
  // unit (rows = ffn, cols = hidden), used with the GEMV's accumulate.
  bool by_unit = false;

  uint64_t macs() const { return uint64_t(rows) * cols; }
};

// The matrices of one layer in decode order: altup_router, attn_q, attn_k,
// attn_v (storing layers only), attn_o, laurel_left, laurel_right,
// ffn_gate, ffn_up, ffn_down, ple_gate, ple_proj. Absent features (no AltUp,
// LAuReL or per-layer inputs) have no matrices.
std::vector<matrix_shape> layer_matrices(const model_config& m, uint32_t layer);
// Matrices before the first layer (altup_proj.1.., ple_model_proj) and after
// the last (altup_unproj.1.., lm_head), in that order.
std::vector<matrix_shape> entry_matrices(const model_config& m);
std::vector<matrix_shape> exit_matrices(const model_config& m);
// Entry, every layer, exit: the order of one decode step.
std::vector<matrix_shape> all_matrices(const model_config& m);

// Bytes of one row record of `cols` inputs: BF16 scales (with
// weights.scales: one per row when scale_group is 0, else ceil(cols /
// scale_group)), then ceil(cols / 2) INT4 bytes, zero padded to 16 bytes.
// The formula of docs/models/gemv.md.
uint64_t weight_record_bytes(const weights_config& w, uint32_t cols);
// The packed INT4 values alone: rows x ceil(cols / 2).
uint64_t int4_bytes(const matrix_shape& s);

// A byte count two ways: the INT4 values alone (the figure the pccx
// documents tabulate) and the row records as stored (scales and padding).
struct weight_bytes {
  uint64_t int4 = 0;
  uint64_t records = 0;
  weight_bytes& operator+=(const weight_bytes& o) {
    int4 += o.int4;
    records += o.records;
    return *this;
  }
};
weight_bytes matrix_bytes(const model_config& m, const matrix_shape& s);
weight_bytes layer_weight_bytes(const model_config& m, uint32_t layer);
weight_bytes entry_exit_weight_bytes(const model_config& m);
// Every matrix: all layers plus entry and exit (not the tables).
weight_bytes total_weight_bytes(const model_config& m);

// Bytes of one table row of `width` values in a table format ("int4",
// "int8" with BF16 scales per scale_group, 0 = one per row; "bf16"), padded
// to 16 bytes.
uint64_t table_row_bytes(const std::string& format, uint32_t scale_group, uint32_t width);
// The per-layer embedding table: per_layer_input.vocab rows of layers x dim
// values. 0 without per-layer inputs.
uint64_t ple_row_bytes(const model_config& m);
uint64_t ple_table_bytes(const model_config& m);
// The embedding row a token reads: an LM-head record when tied, else a row
// of the separate embedding table (same record format).
uint64_t embedding_row_bytes(const model_config& m);
// The separate embedding table (0 when tied).
uint64_t embedding_table_bytes(const model_config& m);

// Small BF16 parameters: norm weights, AltUp coefficients. `layer` -1 for
// the final norm and the per-layer projection norm.
struct vector_param {
  std::string name;
  int32_t layer = -1;
  uint32_t elements = 0;
};
// Per layer: input_norm, post_attn_norm, pre_ffn_norm, post_ffn_norm,
// q_norm and k_norm (qk_norm; k_norm on storing layers), laurel_norm,
// ple_post_norm, altup_router_norm, altup_output_scale,
// altup_prediction_coefs (streams^3 words), altup_correction_coefs
// (streams^2 words); a coefficient word is 8 elements, the value in element 0.
// Then final_norm and ple_proj_norm.
std::vector<vector_param> vector_params(const model_config& m);
// Each vector padded to 16 bytes.
uint64_t vector_param_bytes(const model_config& m);

// Weight bytes one decode step reads: every matrix record plus the
// embedding row and the per-layer embedding row of the token.
weight_bytes weight_bytes_per_token(const model_config& m);

// MACs of the matrices per token, dense.
uint64_t weight_macs_per_token(const model_config& m);
// Share of FFN units a sparse layer keeps: 1 - Phi(z) (0.05 at z = 1.6448536).
double sparse_keep_fraction(const model_config& m);
// Expected MACs and INT4 bytes if the decode skipped W_down of the masked
// units in the sparse layers (what skip_masked_down_rows allows).
double weight_macs_per_token_down_skipped(const model_config& m);
double int4_bytes_per_token_down_skipped(const model_config& m);
// q.K and p.V MACs of one token at a context of `context` tokens:
// sum over layers of 2 x heads x head_dim x attention_span.
uint64_t attention_macs_per_token(const model_config& m, uint64_t context);

// The K and V record formats of the cache.
struct kv_formats {
  kv::kv_format key;
  kv::kv_format value;
};
// FP16 records of the model's head_dim.
kv_formats kv_fp16(const model_config& m);
// Empty when both formats fit the model (head_dim equal, check() clean),
// else the problems.
std::string check_kv_formats(const model_config& m, const kv_formats& f);

// kv_heads x (K record + V record): one token of one storing layer.
uint64_t kv_bytes_per_token_per_layer(const model_config& m, const kv_formats& f);
// Over the storing layers (each token appended to every storing layer).
uint64_t kv_bytes_per_token(const model_config& m, const kv_formats& f);
// Bytes held after `context` tokens: storing layers of the sliding-window
// kind hold at most sliding_window tokens.
uint64_t kv_cache_bytes(const model_config& m, const kv_formats& f, uint64_t context);
// Bytes one decode step reads at a context of `context` tokens: every
// layer reads attention_span tokens of its source layer's cache.
uint64_t kv_read_bytes_per_token(const model_config& m, const kv_formats& f, uint64_t context);

// Matrices with a dimension above the ISA's 16-bit shape fields: the decode
// must tile them. One line each: "lm_head: N 262,400 > 65,535, at least 5
// tiles".
std::vector<std::string> shape_field_notes(const model_config& m);

// 1234567 -> "1,234,567".
std::string grouped(uint64_t v);

}  // namespace pccx::llm
