#include "platform/workload/decode_l2_fit.h"

#include <algorithm>
#include <cstring>

#include "pccx_gemma_decode.h"
#include "pccx_gemma_decode_limits.h"
#include "platform/vp/top/simulation.h"
#include "platform/workload/llm/model_shapes.h"

namespace pccx::workload {

namespace {

// The struct at byte `at` of the block, copied out as it is in memory (the
// block is little endian, and so is the platform).
template <class T>
T get(const std::vector<uint8_t>& b, size_t at) {
  if (at > b.size() || sizeof(T) > b.size() - at)
    throw std::out_of_range("decode parameter block too short");
  T v;
  std::memcpy(&v, b.data() + at, sizeof(T));
  return v;
}

constexpr uint32_t kShapeMax = 65535;  // a shape extent is 16 bits

}  // namespace

gd_l2_shape l2_shape_of_block(const std::vector<uint8_t>& b) {
  const auto h = get<gd_block_header>(b, 0);
  gd_l2_shape s{};
  s.layers = h.layers;
  s.hidden = h.hidden;
  s.heads = h.heads;
  s.kv_heads = h.kv_heads;
  s.head_dim = h.head_dim;
  s.vocab = h.vocab;
  s.lm_tile = h.lm_tile;
  s.streams = h.streams;
  s.ple_dim = h.ple_dim;
  s.laurel = h.laurel_rank;
  for (uint32_t r = 0; r < h.rings && r < GD_MAX_RINGS; ++r)
    s.span_max = std::max(s.span_max, h.ring[r].max_tokens);
  for (uint32_t l = 0; l < s.layers; ++l) {
    const auto ly = get<gd_block_layer>(b, h.layers_offset + size_t(l) * sizeof(gd_block_layer));
    s.ffn_max = std::max(s.ffn_max, ly.ffn);
    if (ly.sparse_ffn != 0) s.any_sparse = 1;
  }
  return s;
}

std::vector<std::pair<std::string, uint64_t>> l2_layout_parts(const gd_l2_shape& s) {
  gd_l2 a{};
  gd_plan_l2(&s, &a);
  const uint32_t G = s.kv_heads ? s.heads / s.kv_heads : 0;
  using llm::grouped;
  return {
      {"words below the layout", GD_L2_BASE},
      {"constants and broadcast buffers", a.xs - a.k},
      {"hidden-size vectors (" + grouped(s.streams) + " AltUp streams, hidden " +
           grouped(s.hidden) + ")",
       a.q - a.xs},
      {"attention vectors and RoPE tables (" + grouped(s.heads) + " heads x " +
           grouped(s.head_dim) + ")",
       a.scores - a.q},
      {"attention scores and exponentials (2 x " + grouped(G) + " heads per group x span " +
           grouped(s.span_max) + " / 8)",
       a.out - a.scores},
      {"attention outputs", a.gate - a.out},
      {"FFN (" + std::string(s.any_sparse ? "3" : "2") + " x " + grouped(s.ffn_max) + " / 8)",
       a.gamma - a.gate},
      {"norm weights, RMSNorm and AltUp work areas", a.pli - a.gamma},
      {"per-layer inputs (" + grouped(s.layers) + " layers x " + grouped(s.ple_dim) + ")",
       a.logits - a.pli},
      {"LM-head tiles (" + grouped(a.tiles) + " tiles x " + grouped(a.tile_stride) + ")",
       a.end - a.logits},
  };
}

void check_block_limits(const std::vector<uint8_t>& block) {
  const auto h = get<gd_block_header>(block, 0);
  const gd_limit_problem p = gd_header_limits(&h);
  if (!p.field) return;
  throw vp::input_error(
      std::string("the decode program cannot run this model: ") + p.field + " must be " +
      p.rule + " (layers " + llm::grouped(h.layers) + ", hidden " + llm::grouped(h.hidden) +
      ", heads " + llm::grouped(h.heads) + ", kv_heads " + llm::grouped(h.kv_heads) +
      ", head_dim " + llm::grouped(h.head_dim) + ", vocab " + llm::grouped(h.vocab) +
      ", tokens " + llm::grouped(h.tokens) + "; pccx_gemma_decode_limits.h)");
}

uint32_t prefill_rows_fitting(const gd_l2_shape& s, uint32_t ffn_part, uint32_t l2_words) {
  gd_l2 a{};
  gd_plan_l2(&s, &a);
  const uint32_t row = gd_prefill_row_words(&s, ffn_part);
  return l2_words > a.logits ? (l2_words - a.logits) / row : 0;
}

gd_attention_tile prefill_attention_tile(const gd_l2_shape& s, uint32_t ffn_part, uint32_t chunk,
                                         uint32_t n_first, uint32_t rows, uint32_t cap,
                                         uint32_t sinks, uint32_t window) {
  gd_l2 a{};
  gd_plan_l2(&s, &a);
  gd_prefill_l2 p{};
  gd_plan_prefill_l2(&s, &a, chunk, ffn_part, &p);
  return gd_prefill_attention_tile(&a, &p, s.heads / s.kv_heads, s.head_dim, n_first, rows, cap,
                                   sinks, window);
}

namespace {

// A chunk's row buffers from the decode's logits on (gd_prefill_l2).
void check_prefill_l2_fit(const std::vector<uint8_t>& block, const gd_l2_shape& s,
                          const gd_l2& a, uint32_t l2_words) {
  const auto h = get<gd_block_header>(block, 0);
  if (h.chunk <= 1) return;
  gd_prefill_l2 p{};
  const uint64_t end = gd_plan_prefill_l2(&s, &a, h.chunk, h.ffn_part, &p);
  if (end <= l2_words) return;
  const uint32_t row = gd_prefill_row_words(&s, h.ffn_part);
  using llm::grouped;
  throw l2_fit_error(
      "a prefill chunk of " + grouped(h.chunk) + " rows does not fit L2: each row keeps " +
      grouped(row) + " words (AltUp streams and predictions, per-layer inputs, the GEMM's inputs "
      "and outputs, an FFN slice of " + grouped(h.ffn_part) + " columns for gate and up), from "
      "the decode's LM-head tiles at word " + grouped(a.logits) + ": " + grouped(a.logits) +
      " + " + grouped(h.chunk) + " x " + grouped(row) + " = " + grouped(end) + " > " +
      grouped(l2_words) + " (npu.l2.words); at most " +
      grouped(prefill_rows_fitting(s, h.ffn_part, l2_words)) + " rows fit");
}

}  // namespace

void check_l2_fit(const std::vector<uint8_t>& block, uint32_t l2_words) {
  const gd_l2_shape s = l2_shape_of_block(block);
  if (s.span_max > kShapeMax)
    throw l2_fit_error("the decode's attention span of " + llm::grouped(s.span_max) +
                       " tokens (the largest KV ring cap) exceeds a shape extent of " +
                       llm::grouped(kShapeMax) + ": use a ring cap of at most 65,535 tokens");
  gd_l2 a{};
  const uint64_t need = gd_plan_l2(&s, &a);
  if (need <= l2_words) {
    check_prefill_l2_fit(block, s, a, l2_words);
    return;
  }
  std::string msg = "the decode's activations do not fit L2: they need " + llm::grouped(need) +
                    " words of 16 bytes, npu.l2.words is " + llm::grouped(l2_words) + ":";
  std::string sum;
  for (const auto& [label, words] : l2_layout_parts(s)) {
    msg += "\n  " + label + ": " + llm::grouped(words);
    sum += (sum.empty() ? "" : " + ") + llm::grouped(words);
  }
  msg += "\n  " + sum + " = " + llm::grouped(need) + " > " + llm::grouped(l2_words) +
         "\n  (a smaller ring cap, --ring-cap, or a larger npu.l2.words)";
  throw l2_fit_error(msg);
}

}  // namespace pccx::workload
