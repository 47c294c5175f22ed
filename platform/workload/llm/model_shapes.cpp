#include "platform/workload/llm/model_shapes.h"

#include <cmath>

namespace pccx::llm {

namespace {

constexpr uint64_t kBeat = 16;      // record alignment: one 128-bit AXI beat
constexpr uint64_t kBf16Bytes = 2;  // one stored scale or parameter

uint64_t pad_beat(uint64_t bytes) {
  return (bytes + kBeat - 1) / kBeat * kBeat;
}

uint64_t ceil_div(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}

matrix_shape shape(const std::string& name, int32_t layer, uint32_t rows, uint32_t cols,
                   bool by_unit = false) {
  return matrix_shape{name, layer, rows, cols, by_unit};
}

}  // namespace

std::vector<matrix_shape> layer_matrices(const model_config& m, uint32_t layer) {
  const auto& a = m.attention;
  const int32_t l = static_cast<int32_t>(layer);
  const uint32_t q_dim = a.heads * a.head_dim;
  const uint32_t kv_dim = a.kv_heads * a.head_dim;
  const uint32_t ffn = m.ffn_of(layer);
  std::vector<matrix_shape> out;
  if (m.has_altup()) out.push_back(shape("altup_router", l, m.altup.streams, m.hidden));
  out.push_back(shape("attn_q", l, q_dim, m.hidden));
  if (m.stores_kv(layer)) {
    out.push_back(shape("attn_k", l, kv_dim, m.hidden));
    out.push_back(shape("attn_v", l, kv_dim, m.hidden));
  }
  out.push_back(shape("attn_o", l, m.hidden, q_dim));
  if (m.has_laurel()) {
    out.push_back(shape("laurel_left", l, m.laurel_rank, m.hidden));
    out.push_back(shape("laurel_right", l, m.hidden, m.laurel_rank));
  }
  out.push_back(shape("ffn_gate", l, ffn, m.hidden));
  out.push_back(shape("ffn_up", l, ffn, m.hidden));
  if (m.is_sparse_ffn(layer) && m.skip_masked_down_rows)
    out.push_back(shape("ffn_down", l, ffn, m.hidden, true));
  else
    out.push_back(shape("ffn_down", l, m.hidden, ffn));
  if (m.has_ple()) {
    out.push_back(shape("ple_gate", l, m.per_layer_input.dim, m.hidden));
    out.push_back(shape("ple_proj", l, m.hidden, m.per_layer_input.dim));
  }
  return out;
}

std::vector<matrix_shape> entry_matrices(const model_config& m) {
  std::vector<matrix_shape> out;
  for (uint32_t s = 1; s < m.altup.streams; ++s)
    out.push_back(shape("altup_proj." + std::to_string(s), -1, m.hidden, m.hidden));
  if (m.has_ple())
    out.push_back(shape("ple_model_proj", -1, m.layers * m.per_layer_input.dim, m.hidden));
  return out;
}

std::vector<matrix_shape> exit_matrices(const model_config& m) {
  std::vector<matrix_shape> out;
  for (uint32_t s = 1; s < m.altup.streams; ++s)
    out.push_back(shape("altup_unproj." + std::to_string(s), -1, m.hidden, m.hidden));
  out.push_back(shape("lm_head", -1, m.vocab, m.hidden));
  return out;
}

std::vector<matrix_shape> all_matrices(const model_config& m) {
  std::vector<matrix_shape> out = entry_matrices(m);
  for (uint32_t l = 0; l < m.layers; ++l) {
    auto layer = layer_matrices(m, l);
    out.insert(out.end(), layer.begin(), layer.end());
  }
  auto exit = exit_matrices(m);
  out.insert(out.end(), exit.begin(), exit.end());
  return out;
}

uint64_t weight_record_bytes(const weights_config& w, uint32_t cols) {
  const uint64_t scales = !w.scales ? 0 : w.scale_group == 0 ? 1 : ceil_div(cols, w.scale_group);
  return pad_beat(kBf16Bytes * scales + ceil_div(cols, 2));
}

uint64_t int4_bytes(const matrix_shape& s) {
  return uint64_t(s.rows) * ceil_div(s.cols, 2);
}

weight_bytes matrix_bytes(const model_config& m, const matrix_shape& s) {
  return {int4_bytes(s), uint64_t(s.rows) * weight_record_bytes(m.weights, s.cols)};
}

weight_bytes layer_weight_bytes(const model_config& m, uint32_t layer) {
  weight_bytes b;
  for (const auto& s : layer_matrices(m, layer)) b += matrix_bytes(m, s);
  return b;
}

weight_bytes entry_exit_weight_bytes(const model_config& m) {
  weight_bytes b;
  for (const auto& s : entry_matrices(m)) b += matrix_bytes(m, s);
  for (const auto& s : exit_matrices(m)) b += matrix_bytes(m, s);
  return b;
}

weight_bytes total_weight_bytes(const model_config& m) {
  weight_bytes b = entry_exit_weight_bytes(m);
  for (uint32_t l = 0; l < m.layers; ++l) b += layer_weight_bytes(m, l);
  return b;
}

uint64_t table_row_bytes(const std::string& format, uint32_t scale_group, uint32_t width) {
  if (format == "bf16") return pad_beat(kBf16Bytes * width);
  const uint64_t scales = scale_group == 0 ? 1 : ceil_div(width, scale_group);
  const uint64_t values = format == "int8" ? width : ceil_div(width, 2);
  return pad_beat(kBf16Bytes * scales + values);
}

uint64_t ple_row_bytes(const model_config& m) {
  if (!m.has_ple()) return 0;
  const auto& p = m.per_layer_input;
  return table_row_bytes(p.table_format, p.table_scale_group, m.layers * p.dim);
}

uint64_t ple_table_bytes(const model_config& m) {
  return uint64_t(m.per_layer_input.vocab) * ple_row_bytes(m);
}

uint64_t embedding_row_bytes(const model_config& m) {
  return weight_record_bytes(m.weights, m.hidden);
}

uint64_t embedding_table_bytes(const model_config& m) {
  return m.tie_embeddings ? 0 : uint64_t(m.vocab) * embedding_row_bytes(m);
}

std::vector<vector_param> vector_params(const model_config& m) {
  std::vector<vector_param> out;
  const uint32_t s = m.altup.streams;
  for (uint32_t layer = 0; layer < m.layers; ++layer) {
    const int32_t l = static_cast<int32_t>(layer);
    for (const char* n : {"input_norm", "post_attn_norm", "pre_ffn_norm", "post_ffn_norm"})
      out.push_back({n, l, m.hidden});
    if (m.attention.qk_norm) {
      out.push_back({"q_norm", l, m.attention.head_dim});
      if (m.stores_kv(layer)) out.push_back({"k_norm", l, m.attention.head_dim});
    }
    if (m.has_laurel()) out.push_back({"laurel_norm", l, m.hidden});
    if (m.has_ple()) out.push_back({"ple_post_norm", l, m.hidden});
    if (m.has_altup()) {
      out.push_back({"altup_router_norm", l, m.hidden});
      out.push_back({"altup_output_scale", l, m.hidden});
      // One coefficient per 16-byte word (element 0, the rest zero): the
      // SFU takes a SCALE's scalar from element 0 of a word
      // (docs/models/decode-model.md).
      out.push_back({"altup_prediction_coefs", l, s * s * s * 8});
      out.push_back({"altup_correction_coefs", l, s * s * 8});
    }
  }
  out.push_back({"final_norm", -1, m.hidden});
  if (m.has_ple()) out.push_back({"ple_proj_norm", -1, m.per_layer_input.dim});
  return out;
}

uint64_t vector_param_bytes(const model_config& m) {
  uint64_t total = 0;
  for (const auto& v : vector_params(m)) total += pad_beat(kBf16Bytes * v.elements);
  return total;
}

weight_bytes weight_bytes_per_token(const model_config& m) {
  weight_bytes b = total_weight_bytes(m);
  // The token's embedding row and per-layer embedding row; the INT4 figure
  // counts their packed values only (the pccx documents' 5,504 bytes).
  const uint64_t ple_values = m.has_ple() ? uint64_t(m.layers) * m.per_layer_input.dim : 0;
  b.int4 += ceil_div(m.hidden, 2) + ceil_div(ple_values, 2);
  b.records += embedding_row_bytes(m) + ple_row_bytes(m);
  return b;
}

uint64_t weight_macs_per_token(const model_config& m) {
  uint64_t macs = 0;
  for (const auto& s : all_matrices(m)) macs += s.macs();
  return macs;
}

double sparse_keep_fraction(const model_config& m) {
  return 0.5 * std::erfc(m.sparse_ffn_cutoff_z / std::sqrt(2.0));
}

double weight_macs_per_token_down_skipped(const model_config& m) {
  double skipped = 0;
  for (uint32_t l = 0; l < m.sparse_ffn_layers; ++l)
    skipped += double(m.hidden) * m.ffn_of(l) * (1.0 - sparse_keep_fraction(m));
  return double(weight_macs_per_token(m)) - skipped;
}

double int4_bytes_per_token_down_skipped(const model_config& m) {
  double skipped = 0;
  for (uint32_t l = 0; l < m.sparse_ffn_layers; ++l)
    skipped += double(m.hidden) * m.ffn_of(l) / 2.0 * (1.0 - sparse_keep_fraction(m));
  return double(weight_bytes_per_token(m).int4) - skipped;
}

uint64_t attention_macs_per_token(const model_config& m, uint64_t context) {
  uint64_t macs = 0;
  const uint64_t per_token = 2ull * m.attention.heads * m.attention.head_dim;
  for (uint32_t l = 0; l < m.layers; ++l) macs += per_token * m.attention_span(l, context);
  return macs;
}

kv_formats kv_fp16(const model_config& m) {
  kv_formats f;
  f.key.kind = f.value.kind = kv::kv_kind::fp16;
  f.key.head_dim = f.value.head_dim = m.attention.head_dim;
  return f;
}

std::string check_kv_formats(const model_config& m, const kv_formats& f) {
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : "; ") + s; };
  for (const auto& [name, fmt] : {std::pair{"key", &f.key}, std::pair{"value", &f.value}}) {
    if (fmt->head_dim != m.attention.head_dim)
      add(std::string(name) + " format: expected head_dim " + std::to_string(m.attention.head_dim) +
          " (the model's), found " + std::to_string(fmt->head_dim));
    const std::string problem = fmt->check();
    if (!problem.empty()) add(std::string(name) + " format: " + problem);
  }
  return out;
}

uint64_t kv_bytes_per_token_per_layer(const model_config& m, const kv_formats& f) {
  return uint64_t(m.attention.kv_heads) * (f.key.record_bytes() + f.value.record_bytes());
}

uint64_t kv_bytes_per_token(const model_config& m, const kv_formats& f) {
  return m.storing_layers() * kv_bytes_per_token_per_layer(m, f);
}

uint64_t kv_cache_bytes(const model_config& m, const kv_formats& f, uint64_t context) {
  uint64_t tokens = 0;
  for (uint32_t l = 0; l < m.storing_layers(); ++l) tokens += m.attention_span(l, context);
  return tokens * kv_bytes_per_token_per_layer(m, f);
}

uint64_t kv_read_bytes_per_token(const model_config& m, const kv_formats& f, uint64_t context) {
  uint64_t tokens = 0;
  for (uint32_t l = 0; l < m.layers; ++l) tokens += m.attention_span(l, context);
  return tokens * kv_bytes_per_token_per_layer(m, f);
}

std::vector<std::string> shape_field_notes(const model_config& m) {
  std::vector<std::string> out;
  for (const auto& s : all_matrices(m)) {
    for (const auto& [field, v] : {std::pair{"N", s.rows}, std::pair{"K", s.cols}}) {
      if (v <= kShapeFieldMax) continue;
      const std::string where =
          s.layer < 0 ? s.name : "layer " + std::to_string(s.layer) + " " + s.name;
      out.push_back(where + ": " + field + " " + grouped(v) + " > " + grouped(kShapeFieldMax) +
                    ", at least " + std::to_string(ceil_div(v, kShapeFieldMax)) + " tiles");
    }
  }
  return out;
}

std::string grouped(uint64_t v) {
  std::string digits = std::to_string(v);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace pccx::llm
