#include "platform/workload/decode_runner.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <memory>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "models/memory/ddr/ddr_capacity.h"
#include "models/npu/units/bf16.h"
#include "models/kv/kv_codec.h"
#include "pccx_gemma_decode.h"
#include "pccx_kv.h"
#include "pccx_host_mem.h"
#include "platform/vp/top/platform_top.h"
#include "platform/workload/decode_l2_fit.h"
#include "platform/workload/kv_history.h"
#include "platform/workload/llm/prefill_plan.h"
#include "platform/workload/llm/reference_decoder.h"
#include "platform/workload/llm/weight_image.h"

namespace pccx::workload {

namespace {

// n objects at byte `at` of b, as they are in memory: the block is little
// endian, and so are the platform and the board.
template <class T>
void put(std::vector<uint8_t>& b, size_t at, const T* v, size_t n = 1) {
  if (n != 0) std::memcpy(b.data() + at, v, n * sizeof(T));
}

uint32_t narrow(uint64_t v, const std::string& what) {
  if (v > UINT32_MAX) throw std::invalid_argument(what + " does not fit 32 bits");
  return static_cast<uint32_t>(v);
}

// A matrix entry: the F parts of llm::plan_ddr (part f = the rows n with
// n mod F = f), one per weight stream of the GEMV.
gd_block_matrix block_matrix(const llm::planned_matrix& pm) {
  if (pm.parts.empty() || pm.parts.size() > GD_MAX_WEIGHT_STREAMS)
    throw std::invalid_argument(pm.shape.name + ": the decode takes 1 to " +
                                std::to_string(GD_MAX_WEIGHT_STREAMS) +
                                " weight streams, plan has " + std::to_string(pm.parts.size()));
  gd_block_matrix r{};
  for (size_t f = 0; f < pm.parts.size(); ++f) r.part[f] = pm.parts[f].addr;
  r.rows = pm.shape.rows;
  r.cols = pm.shape.cols;
  r.record_bytes = narrow(pm.record_bytes, pm.shape.name + " record");
  r.parts = static_cast<uint32_t>(pm.parts.size());
  return r;
}

uint64_t vector_addr(const llm::ddr_plan& p, int32_t layer, const std::string& name) {
  for (const auto& v : p.vectors)
    if (v.param.layer == layer && v.param.name == name) return v.addr;
  throw std::out_of_range("no vector " + name + " of layer " + std::to_string(layer));
}

// The program and its block, for the firmware entry below.
std::vector<uint8_t> g_block;
uint64_t g_block_addr = 0;
// A functional run with the reference check: the weights, the KV history and
// the rotation matrix written before the decode, the logits read after it.
std::vector<llm::blob> g_blobs;
struct logits_readback {
  uint64_t addr = 0, stride = 0;
  uint32_t vocab = 0, tokens = 0;
  std::vector<std::vector<uint16_t>> bf16;
  std::vector<llm::blob> rings;  // the KV rings' regions, read back with the logits
} g_logits;

// The host's part before the decode, the same for both CPU kinds: the
// reference check's blobs and the parameter block into DDR.
void place_in_ddr() {
  for (const auto& b : g_blobs)
    for (size_t at = 0; at < b.bytes.size(); at += 1u << 20) {
      const size_t n = std::min<size_t>(b.bytes.size() - at, 1u << 20);
      pccx_host_write(b.addr + at, b.bytes.data() + at, static_cast<uint32_t>(n));
    }
  pccx_host_write(g_block_addr, g_block.data(), static_cast<uint32_t>(g_block.size()));
}

// And after a decode that succeeded: every token's logits back.
void read_logits() {
  g_logits.bf16.clear();
  for (uint32_t t = 0; t < g_logits.tokens; ++t) {
    g_logits.bf16.emplace_back(g_logits.vocab);
    pccx_host_read(g_logits.addr + t * g_logits.stride, g_logits.bf16.back().data(),
                   2 * g_logits.vocab);
  }
  for (auto& r : g_logits.rings)
    for (size_t at = 0; at < r.bytes.size(); at += 1u << 20) {
      const size_t n = std::min<size_t>(r.bytes.size() - at, 1u << 20);
      pccx_host_read(r.addr + at, r.bytes.data() + at, static_cast<uint32_t>(n));
    }
}

int host_then_decode(void) {
  place_in_ddr();
  // In timing mode the DDR keeps no bytes, so host code takes the block
  // from the host's memory (an ELF reads it through its view of DDR).
  const int rc = pccx_gemma_decode_run(g_block.data(), static_cast<uint32_t>(g_block.size()));
  g_logits.bf16.clear();
  if (rc == 0) read_logits();
  return rc;
}

// H / sqrt(d) (Sylvester order, the codec's rotation) as INT4 row records:
// entries +-1, every scale 1 / sqrt(d).
std::vector<llm::blob> rotation_blobs(const llm::model_config& m, const llm::planned_matrix& r) {
  const uint32_t d = r.shape.rows;
  const uint32_t groups =
      m.weights.scale_group == 0 ? 1 : (d + m.weights.scale_group - 1) / m.weights.scale_group;
  const std::vector<uint16_t> scales(groups, npu::bf16::from_float(1.0f / std::sqrt(float(d))));
  const size_t F = r.parts.size();
  std::vector<llm::blob> out(F);
  for (size_t f = 0; f < F; ++f) out[f].addr = r.parts[f].addr;
  for (uint32_t i = 0; i < d; ++i) {
    std::vector<int> values(d);
    for (uint32_t j = 0; j < d; ++j) values[j] = __builtin_popcount(i & j) % 2 ? -1 : 1;
    const auto rec = llm::encode_weight_record(m.weights, values, scales);
    auto& part = out[i % F].bytes;
    part.insert(part.end(), rec.begin(), rec.end());
  }
  return out;
}

uint64_t counter(const vp::run_result& r, const std::string& name) {
  for (const auto& [n, v] : r.counters)
    if (n == name) return v;
  throw std::out_of_range("no counter " + name);
}

}  // namespace

namespace {

// A matrix entry by name, or all zero when the model has no such matrix.
gd_block_matrix named_matrix(const llm::ddr_plan& plan, int32_t layer, const std::string& name) {
  for (const auto& pm : plan.matrices)
    if (pm.shape.layer == layer && pm.shape.name == name) return block_matrix(pm);
  return gd_block_matrix{};
}

double marker_time(const vp::run_result& r, const std::string& name) {
  for (size_t i = 0; i < r.markers.size(); ++i)
    if (r.markers[i] == name) return r.marker_times_ns[i];
  throw std::runtime_error("the decode left no marker '" + name + "'");
}

// From the "decode: token <t> part <name> from <seq>" lines and the
// completion times of the instructions.
std::vector<part_time> part_times(const vp::run_result& r, const std::vector<double>& done_ns,
                                  uint32_t tokens) {
  std::vector<part_time> parts;
  for (uint32_t t = 0; t < tokens; ++t) {
    const std::string key = "decode: token " + std::to_string(t) + " part ";
    std::vector<std::pair<std::string, uint64_t>> starts;
    for (const auto& line : r.printed)
      if (line.rfind(key, 0) == 0) {
        const auto from = line.rfind(" from ");
        starts.emplace_back(line.substr(key.size(), from - key.size()),
                            std::stoull(line.substr(from + 6)));
      }
    if (starts.size() < 3 || starts.back().first != "end")
      throw std::runtime_error("the decode printed no part starts for token " + std::to_string(t));
    const std::string token = "decode: token " + std::to_string(t);
    double prev = marker_time(r, token);
    if (parts.empty()) {
      for (size_t k = 0; k + 1 < starts.size(); ++k) parts.push_back({starts[k].first, 0, 0});
      parts.push_back({"sync", 0, 0});
    }
    for (size_t k = 0; k + 1 < starts.size(); ++k) {
      double end = prev;
      for (uint64_t q = starts[k].second; q < starts[k + 1].second && q < done_ns.size(); ++q)
        end = std::max(end, done_ns[q]);
      parts[k].instructions += double(starts[k + 1].second - starts[k].second) / tokens;
      parts[k].ns += (end - prev) / tokens;
      prev = end;
    }
    parts.back().ns += (marker_time(r, token + " end") - prev) / tokens;
  }
  return parts;
}

}  // namespace

std::vector<uint32_t> default_token_ids(const llm::model_config& m, uint32_t n) {
  std::vector<uint32_t> ids(n);
  for (uint32_t t = 0; t < n; ++t) ids[t] = static_cast<uint32_t>((7919ull * t + 2) % m.vocab);
  return ids;
}

namespace {

// Where each section of the block starts, and its size (pccx_gemma_decode.h).
struct block_layout {
  size_t altup = 0, layers = 0, tokens = 0, rope = 0, bytes = 0;
};

// Logits buffers: the prompt's last token's (with a prompt), then one per
// decoded token.
uint32_t logit_slots(const decode_options& o) {
  return (o.prompt_tokens != 0 ? 1u : 0u) + o.tokens;
}

block_layout layout_of(const llm::model_config& m, uint32_t tokens) {
  block_layout l;
  l.altup = sizeof(gd_block_header);
  l.layers = l.altup + 2 * size_t(m.altup.streams - 1) * sizeof(gd_block_matrix);
  l.tokens = l.layers + size_t(m.layers) * sizeof(gd_block_layer);
  l.rope = l.tokens + sizeof(uint32_t) * size_t(tokens);
  l.bytes = l.rope + sizeof(float) * size_t(m.attention.head_dim);
  return l;
}

// The model and options against what the program handles; the token ids.
std::vector<uint32_t> decodable_ids(const llm::model_config& m, const llm::ddr_plan& plan,
                                    const decode_options& o) {
  if (plan.kv_rings.empty() || plan.kv_rings.size() > 2)
    throw std::invalid_argument("the decode handles one or two KV ring groups");
  if (o.lm_tile == 0 || o.lm_tile > 2048)
    throw std::invalid_argument("lm_tile must be 1 to 2048 rows");
  if (m.attention.logit_softcap != 0)
    throw std::invalid_argument(
        "attention.logit_softcap: the decode program issues no attention softcap (set it to 0)");
  if (m.skip_masked_down_rows)
    throw std::invalid_argument(
        "skip_masked_down_rows: the decode program reads W_down densely (set it to false)");
  if (m.altup.streams > GD_MAX_STREAMS)
    throw std::invalid_argument("altup.streams: the decode program takes at most " +
                                std::to_string(GD_MAX_STREAMS));
  const uint32_t n = o.prompt_tokens + o.tokens;
  if (o.prompt_tokens != 0 && o.per_layer)
    throw std::invalid_argument(
        "per_layer times the parts of the decoded tokens: run it without a prompt");
  std::vector<uint32_t> ids = o.token_ids.empty() ? default_token_ids(m, n) : o.token_ids;
  if (ids.size() != n)
    throw std::invalid_argument("token_ids: " + std::to_string(ids.size()) + " ids for " +
                                std::to_string(n) + " tokens");
  for (uint32_t id : ids)
    if (id >= m.vocab)
      throw std::invalid_argument("token id " + std::to_string(id) + " >= vocab " +
                                  std::to_string(m.vocab));
  return ids;
}

// The header's dimensions, LM-head tile, eps and flags.
void put_dimensions(gd_block_header& h, const llm::model_config& m, const llm::ddr_plan& plan,
                    const decode_options& o, const llm::kv_formats& kvf, const block_layout& l) {
  h.magic = GD_MAGIC;
  h.bytes = static_cast<uint32_t>(l.bytes);
  h.layers = m.layers;
  h.hidden = m.hidden;
  h.heads = m.attention.heads;
  h.kv_heads = m.attention.kv_heads;
  h.head_dim = m.attention.head_dim;
  h.vocab = m.vocab;
  h.tokens = o.tokens;
  h.prompt = o.prompt_tokens;
  h.chunk = o.prompt_tokens != 0 ? std::min(o.chunk, o.prompt_tokens) : 0;
  h.context = o.context;
  // LM-head tiles: whole words, and a multiple of F so every tile starts
  // on the first weight stream.
  const uint32_t tile_step = std::lcm(8u, std::max(plan.weight_streams, 1u));
  const uint32_t tile = std::min(o.lm_tile, (m.vocab + tile_step - 1) / tile_step * tile_step);
  if (tile < tile_step)
    throw std::invalid_argument("lm_tile " + std::to_string(o.lm_tile) + " is below " +
                                std::to_string(tile_step) + " rows");
  h.lm_tile = tile - tile % tile_step;
  h.rings = static_cast<uint32_t>(plan.kv_rings.size());
  h.eps = npu::bf16::from_float(static_cast<float>(m.rms_norm_eps));
  uint32_t flags = 0;
  if (m.attention.qk_norm) flags |= GD_F_QK_NORM;
  if (m.attention.v_norm) flags |= GD_F_V_NORM;
  if (kvf.key.kind == kv::kv_kind::rotated) flags |= GD_F_ROTATED_K;
  if (kvf.value.kind == kv::kv_kind::rotated) flags |= GD_F_ROTATED_V;
  if (o.per_layer) flags |= GD_F_PART_STARTS;
  h.flags = flags;
}

// Sinks on the rings that hold the whole history; a sliding-window ring
// keeps only the newest tokens, as the model defines it.
uint32_t ring_sinks(const llm::kv_ring_group& g, const decode_options& o) {
  return g.name == "kv.local" ? 0 : o.sinks;
}

// The header's DDR addresses: staging, logits, embedding table, final norm,
// LM head and the KV ring groups.
void put_addresses(gd_block_header& h, const llm::model_config& m, const llm::ddr_plan& plan,
                   const decode_options& o, const block_addresses& at) {
  h.scratch = at.scratch;
  h.prefill_scratch = at.prefill_scratch;
  h.ffn_part = at.ffn_part;
  h.logits = at.logits;
  h.embedding = m.tie_embeddings ? 0 : plan.find("embedding").base;
  h.final_norm = vector_addr(plan, -1, "final_norm");
  h.lm_head = block_matrix(plan.matrix(-1, "lm_head"));
  for (size_t r = 0; r < plan.kv_rings.size(); ++r) {
    const auto& g = plan.kv_rings[r];
    gd_block_ring& ring = h.ring[r];
    ring.base = g.base;
    ring.bytes = g.bytes;
    ring.layers = static_cast<uint32_t>(g.layers.size());
    ring.max_tokens = g.max_tokens;
    ring.k_record_bytes = g.k_record_bytes;
    ring.v_record_bytes = g.v_record_bytes;
    ring.sinks = ring_sinks(g, o);
    ring.window = g.window;
  }
}

// The header's AltUp, per-layer input, LAuReL, sparsity and weight fields,
// the per-layer projection and the rotation matrix (after put_dimensions:
// the flags say whether the KV is rotated).
void put_model_fields(gd_block_header& h, const llm::model_config& m, const llm::ddr_plan& plan,
                      const block_addresses& at) {
  h.streams = m.altup.streams;
  h.active_stream = m.altup.active_stream;
  h.ple_dim = m.per_layer_input.dim;
  h.laurel_rank = m.laurel_rank;
  h.ple_vocab = m.per_layer_input.vocab;
  h.sparse_ffn_layers = m.sparse_ffn_layers;
  h.cutoff_z = static_cast<float>(m.sparse_ffn_cutoff_z);
  h.final_softcap = static_cast<float>(m.final_logit_softcap);
  h.q_scale = static_cast<float>(m.attention.scale);
  const std::string& tf = m.per_layer_input.table_format;
  h.table_format = tf == "int4" ? 0 : tf == "int8" ? 1 : 2;
  h.table_scale_group = m.per_layer_input.table_scale_group;
  h.table_row_bytes = narrow(llm::ple_row_bytes(m), "per-layer table row");
  if (m.has_ple()) {
    h.ple_table = plan.find("ple_table").base;
    h.ple_proj_norm = vector_addr(plan, -1, "ple_proj_norm");
  }
  h.weight_scale_group = m.weights.scale_group;
  h.weight_scales = m.weights.scales ? 1 : 0;
  h.ple_model_proj = named_matrix(plan, -1, "ple_model_proj");
  if ((h.flags & (GD_F_ROTATED_K | GD_F_ROTATED_V)) && !at.rotation.parts.empty())
    h.rotation = block_matrix(at.rotation);
}

// The header's section offsets, logits stride, weight streams and their
// channels, and the L2 size.
void put_layout(gd_block_header& h, const llm::ddr_plan& plan, const block_addresses& at,
                const block_layout& l) {
  h.altup_offset = static_cast<uint32_t>(l.altup);
  h.layers_offset = static_cast<uint32_t>(l.layers);
  h.tokens_offset = static_cast<uint32_t>(l.tokens);
  h.rope_offset = static_cast<uint32_t>(l.rope);
  h.logits_stride = at.logits_stride;
  h.weight_streams = plan.weight_streams;
  if (at.weight_channels.size() != plan.weight_streams)
    throw std::invalid_argument("the plan has " + std::to_string(plan.weight_streams) +
                                " weight streams, the block names " +
                                std::to_string(at.weight_channels.size()) + " channels");
  for (size_t f = 0; f < at.weight_channels.size() && f < GD_MAX_WEIGHT_STREAMS; ++f)
    h.weight_channels[f] = at.weight_channels[f];
  h.l2_words = at.l2_words;
}

// proj.1 .. proj.S-1, then unproj.1 .. unproj.S-1.
std::vector<gd_block_matrix> altup_matrices(const llm::model_config& m, const llm::ddr_plan& plan) {
  const uint32_t S = m.altup.streams;
  std::vector<gd_block_matrix> altup(2 * size_t(S - 1), gd_block_matrix{});
  for (uint32_t j = 1; j < S; ++j) {
    altup[j - 1] = named_matrix(plan, -1, "altup_proj." + std::to_string(j));
    altup[S - 1 + j - 1] = named_matrix(plan, -1, "altup_unproj." + std::to_string(j));
  }
  return altup;
}

// The plan's names of the vectors (GD_V_*) and matrices (GD_Q ..) of a layer.
const char* const kLayerVectors[GD_VECTORS] = {"input_norm",
                                               "post_attn_norm",
                                               "pre_ffn_norm",
                                               "post_ffn_norm",
                                               "q_norm",
                                               "k_norm",
                                               "laurel_norm",
                                               "ple_post_norm",
                                               "altup_router_norm",
                                               "altup_output_scale",
                                               "altup_prediction_coefs",
                                               "altup_correction_coefs"};
const char* const kLayerMatrices[GD_MATRICES] = {
    "attn_q",   "attn_k",       "attn_v",      "attn_o",       "ffn_gate", "ffn_up",
    "ffn_down", "altup_router", "laurel_left", "laurel_right", "ple_gate", "ple_proj"};

std::vector<gd_block_layer> layer_records(const llm::model_config& m, const llm::ddr_plan& plan) {
  // Each layer's matrices, vectors and ring slot, found in one pass over
  // the plan: a search of the whole plan per layer would make the block
  // quadratic in the layer count.
  std::vector<std::vector<const llm::planned_matrix*>> matrices(m.layers);
  std::vector<std::vector<const llm::planned_vector*>> vectors(m.layers);
  for (const auto& pm : plan.matrices)
    if (pm.shape.layer >= 0 && static_cast<uint32_t>(pm.shape.layer) < m.layers)
      matrices[pm.shape.layer].push_back(&pm);
  for (const auto& v : plan.vectors)
    if (v.param.layer >= 0 && static_cast<uint32_t>(v.param.layer) < m.layers)
      vectors[v.param.layer].push_back(&v);
  constexpr uint32_t kNoRing = ~0u;
  std::vector<std::pair<uint32_t, uint32_t>> ring_of(m.layers, {kNoRing, 0});
  for (size_t r = 0; r < plan.kv_rings.size(); ++r)
    for (size_t i = 0; i < plan.kv_rings[r].layers.size(); ++i)
      if (plan.kv_rings[r].layers[i] < m.layers)
        ring_of[plan.kv_rings[r].layers[i]] = {static_cast<uint32_t>(r), static_cast<uint32_t>(i)};

  std::vector<gd_block_layer> layers(m.layers, gd_block_layer{});
  for (uint32_t l = 0; l < m.layers; ++l) {
    gd_block_layer& ly = layers[l];
    const auto [ring, index] = ring_of[m.kv_source(l)];
    if (ring == kNoRing) throw std::out_of_range("layer " + std::to_string(l) + " has no KV ring");
    ly.ffn = m.ffn_of(l);
    ly.ring = ring;
    ly.ring_index = index;
    ly.stores_kv = m.stores_kv(l) ? 1 : 0;
    ly.global = m.is_global(l) ? 1 : 0;
    ly.sparse_ffn = l < m.sparse_ffn_layers ? 1 : 0;
    for (uint32_t k = 0; k < GD_VECTORS; ++k)  // the first of a name, absent: 0
      for (const llm::planned_vector* v : vectors[l])
        if (v->param.name == kLayerVectors[k]) {
          ly.vectors[k] = v->addr;
          break;
        }
    for (uint32_t k = 0; k < GD_MATRICES; ++k)
      for (const llm::planned_matrix* pm : matrices[l])
        if (pm->shape.name == kLayerMatrices[k]) {
          ly.matrices[k] = block_matrix(*pm);
          break;
        }
  }
  return layers;
}

// RoPE inverse frequencies theta^(-2m/d), local then global.
std::vector<float> rope_frequencies(const llm::model_config& m) {
  const uint32_t d = m.attention.head_dim;
  std::vector<float> rope(d, 0.0f);
  for (int global = 0; global < 2; ++global) {
    const double theta = global ? m.attention.rope_theta_global : m.attention.rope_theta_local;
    for (uint32_t i = 0; i < d / 2; ++i)
      rope[global * (d / 2) + i] = static_cast<float>(std::pow(theta, -2.0 * i / d));
  }
  return rope;
}

}  // namespace

std::vector<uint8_t> decode_param_block(const llm::model_config& m, const llm::ddr_plan& plan,
                                        const decode_options& o, const block_addresses& at,
                                        const llm::kv_formats& kvf) {
  const std::vector<uint32_t> ids = decodable_ids(m, plan, o);
  const block_layout l = layout_of(m, o.prompt_tokens + o.tokens);
  gd_block_header h{};
  put_dimensions(h, m, plan, o, kvf, l);
  put_addresses(h, m, plan, o, at);
  put_model_fields(h, m, plan, at);
  put_layout(h, plan, at, l);
  const std::vector<gd_block_matrix> altup = altup_matrices(m, plan);
  const std::vector<gd_block_layer> layers = layer_records(m, plan);
  const std::vector<float> rope = rope_frequencies(m);
  std::vector<uint8_t> b(l.bytes, 0);
  put(b, 0, &h);
  put(b, l.altup, altup.data(), altup.size());
  put(b, l.layers, layers.data(), layers.size());
  put(b, l.tokens, ids.data(), ids.size());
  put(b, l.rope, rope.data(), rope.size());
  return b;
}

namespace {

// A run's plan: the options with the ring cap filled in, the platform with
// the model's head_dim, its DDR plan and its KV formats.
struct decode_plan {
  decode_options o;
  config::platform_config cfg;
  llm::ddr_plan plan;
  llm::kv_formats kvf;
  uint32_t ffn_part = 0;  // chunk > 1: the prefill plan's FFN slice
};

// The prefill plan's view of a decode's prompt: the context and the decoded
// tokens count as generated, and the rings wrap as their cap says.
llm::prefill_options prefill_options_of(const decode_options& o, uint32_t prompt, uint32_t chunk) {
  llm::prefill_options po;
  po.prompt = prompt;
  po.chunk = chunk;
  po.generated = o.context + o.tokens;
  po.ring_cap = o.ring_cap;
  po.sinks = o.sinks;
  po.evict = true;
  return po;
}

// A chunked prompt against the GEMM's limits (llm::plan_prefill: the
// activation buffer, the weight block buffer, the ring): its FFN slice.
uint32_t prefill_ffn_part(const llm::model_config& m, const decode_options& o,
                          const config::platform_config& cfg, const llm::kv_formats& kvf) {
  return llm::plan_prefill(m, kvf, prefill_options_of(o, o.prompt_tokens, o.chunk), cfg.npu.gemm)
      .ffn_part;
}

// The options with the ring cap filled in (0: L + P + N).
decode_options with_ring_cap(const decode_options& opt) {
  decode_options o = opt;
  if (o.ring_cap == 0) o.ring_cap = o.context + o.prompt_tokens + o.tokens;
  return o;
}

// The platform with the model's head_dim (the KV formats' record sizes).
config::platform_config platform_for(const config::platform_config& base,
                                     const llm::model_config& m) {
  config::platform_config cfg = base;
  cfg.npu.kv.head_dim = m.attention.head_dim;
  return cfg;
}

// The addresses' DMA channels: the GEMV's weight FIFOs.
block_addresses with_weight_channels(const config::platform_config& cfg) {
  block_addresses at;
  for (uint32_t ch : cfg.npu.gemv.weight_fifos) at.weight_channels.push_back(static_cast<uint8_t>(ch));
  return at;
}

// The decode program's L2 layout inputs for the options' model and rings
// (o with its ring cap; the prompt at least one row, in chunks of one).
gd_l2_shape decode_l2_shape(const llm::model_config& m, const config::platform_config& cfg,
                            const llm::kv_formats& kvf, decode_options o) {
  o.prompt_tokens = std::max(o.prompt_tokens, 1u);
  o.chunk = 1;
  return l2_shape_of_block(decode_param_block(m, llm::plan_ddr(m, cfg, o.ring_cap, o.window_extra),
                                              o, with_weight_channels(cfg), kvf));
}

}  // namespace

uint32_t prefill_chunk_limit(const config::platform_config& base, const llm::model_config& m,
                             const decode_options& opt) {
  const decode_options o = with_ring_cap(opt);
  const config::platform_config cfg = platform_for(base, m);
  const llm::kv_formats kvf = llm::kv_formats_of(m, cfg);
  const llm::prefill_plan pp = llm::plan_prefill(
      m, kvf, prefill_options_of(o, std::max(o.prompt_tokens, 1u), 1), cfg.npu.gemm);
  const uint32_t l2_rows =
      prefill_rows_fitting(decode_l2_shape(m, cfg, kvf, o), pp.ffn_part, cfg.npu.l2.words);
  return std::max(1u, std::min({pp.chunk_limit, l2_rows, GD_MAX_CHUNK}));
}

std::vector<prefill_query_tile> prefill_query_tiles(const config::platform_config& base,
                                                    const llm::model_config& m,
                                                    const decode_options& opt, uint32_t chunk) {
  decode_options o = with_ring_cap(opt);
  const config::platform_config cfg = platform_for(base, m);
  const llm::kv_formats kvf = llm::kv_formats_of(m, cfg);
  const gd_l2_shape shape = decode_l2_shape(m, cfg, kvf, o);
  const uint32_t P = o.prompt_tokens = std::max(o.prompt_tokens, 1u);
  chunk = o.chunk = std::max(1u, std::min(chunk, P));
  const uint32_t ffn_part = prefill_ffn_part(m, o, cfg, kvf);
  // The last whole chunk (the prompt's own when shorter), after the context.
  const uint32_t p0 = P >= chunk ? (P / chunk - 1) * chunk : 0, rows = std::min(chunk, P);
  std::vector<prefill_query_tile> out;
  for (const auto& g : llm::plan_ddr(m, cfg, o.ring_cap, chunk - 1).kv_rings) {
    const gd_attention_tile t = prefill_attention_tile(
        shape, ffn_part, chunk, o.context + p0 + 1, rows, g.max_tokens, ring_sinks(g, o), g.window);
    out.push_back({g.name, t.rows, t.span});
  }
  return out;
}

namespace {

decode_plan plan_decode(const config::platform_config& base, const llm::model_config& m,
                        const decode_options& opt) {
  decode_options o = with_ring_cap(opt);
  const config::platform_config cfg = platform_for(base, m);
  if (o.prompt_tokens != 0 && o.chunk == 0)
    o.chunk = std::min(prefill_chunk_limit(base, m, o), o.prompt_tokens);
  if (o.prompt_tokens == 0) o.chunk = 1;
  const bool chunked = o.prompt_tokens != 0 && o.chunk > 1;
  // A chunk's rows append before they attend, so a window ring holds the
  // chunk's C - 1 newer records beyond the window of its first row.
  if (chunked) o.window_extra = std::max(o.window_extra, o.chunk - 1);
  const uint64_t staging = chunked ? uint64_t{o.chunk} * GD_SCRATCH_BYTES : 0;
  llm::ddr_plan plan = llm::plan_ddr(m, cfg, o.ring_cap, o.window_extra, staging);
  const llm::kv_formats kvf = llm::kv_formats_of(m, cfg);
  const uint32_t ffn_part = chunked ? prefill_ffn_part(m, o, cfg, kvf) : 0;
  return {o, cfg, std::move(plan), kvf, ffn_part};
}

// H / sqrt(d) at `next`, in the plan's F parts; `next` moves past it.
llm::planned_matrix rotation_matrix(const llm::model_config& m, uint32_t F, uint64_t& next) {
  const uint32_t d = m.attention.head_dim;
  llm::planned_matrix r;
  r.shape = {"kv_rotation", -1, d, d};
  r.record_bytes = llm::weight_record_bytes(m.weights, d);
  r.base = next;
  r.bytes = uint64_t(d) * r.record_bytes;
  for (uint32_t f = 0; f < F; ++f) {
    const uint32_t rows = (d - std::min(f, d) + F - 1) / F;
    r.parts.push_back({next, uint64_t(rows) * r.record_bytes, rows});
    next += uint64_t(rows) * r.record_bytes;
  }
  return r;
}

std::invalid_argument scratch_too_small(const llm::model_config& m, const decode_plan& p,
                                        const block_addresses& at, const llm::region& act,
                                        uint64_t block_bytes, uint64_t logit_bytes) {
  return std::invalid_argument(
      "the activation scratch is too small for the decode: parameter block " +
      llm::grouped(block_bytes) + " bytes (" + llm::grouped(at.scratch - act.base) +
      " to a 4 KiB boundary) + staging " + llm::grouped(GD_SCRATCH_BYTES) +
      (at.rotation.parts.empty() ? "" : " + rotation matrix " + llm::grouped(at.rotation.bytes)) +
      " + logits 2 x " + llm::grouped(m.vocab) + " (" + llm::grouped(logit_bytes) +
      " 64-byte aligned) = " + llm::grouped(at.logits + logit_bytes - act.base) + " > " +
      llm::grouped(act.bytes) +
      " bytes of the activations region (its size follows npu.l2.words: " +
      llm::grouped(p.cfg.npu.l2.words) + " words x 16 + the model's vectors)");
}

// In the activation scratch: the block, the firmware's staging area, the
// rotation matrix of a rotated KV format, then the logits (one buffer per
// token when N of them fit, else one shared buffer). The block's L2 layout
// is checked first (dimensions only: the addresses come here).
block_addresses place_in_scratch(const llm::model_config& m, const decode_plan& p) {
  const llm::region& act = p.plan.find("activations");
  block_addresses at = with_weight_channels(p.cfg);
  at.l2_words = p.cfg.npu.l2.words;
  if (p.ffn_part != 0) {
    at.prefill_scratch = p.plan.find("prefill_staging").base;
    at.ffn_part = p.ffn_part;
  }
  const std::vector<uint8_t> first_block = decode_param_block(m, p.plan, p.o, at, p.kvf);
  check_block_limits(first_block);
  check_l2_fit(first_block, p.cfg.npu.l2.words);
  const uint64_t block_bytes = first_block.size();
  // The block gets the room of the largest one the program takes, so a
  // block that grows (more tokens, a longer header) moves nothing after it.
  uint64_t next = (act.base + GD_MAX_BLOCK + 4095) & ~uint64_t{4095};
  at.scratch = next;
  next += GD_SCRATCH_BYTES;
  if (p.kvf.key.kind == kv::kv_kind::rotated || p.kvf.value.kind == kv::kv_kind::rotated)
    at.rotation = rotation_matrix(m, p.plan.weight_streams, next);
  const uint64_t logit_bytes = (2ull * m.vocab + 63) & ~uint64_t{63};
  at.logits = (next + 63) & ~uint64_t{63};
  if (at.logits + logit_slots(p.o) * logit_bytes <= act.base + act.bytes)
    at.logits_stride = static_cast<uint32_t>(logit_bytes);
  else if (at.logits + logit_bytes > act.base + act.bytes)
    throw scratch_too_small(m, p, at, act, block_bytes, logit_bytes);
  return at;
}

// A functional run with the reference check: the synthetic weights and KV
// history, written into DDR before the decode with the token rows and the
// rotation matrix; the logits read back after it.
struct reference_inputs {
  std::unique_ptr<llm::weight_image> image;
  std::unique_ptr<kv_history> history;
};

reference_inputs stage_reference(const llm::model_config& m, const decode_plan& p,
                                 const block_addresses& at, const std::vector<uint32_t>& ids) {
  const decode_options& o = p.o;
  if (!p.cfg.simulation.functional())
    throw std::invalid_argument(
        "the reference check needs simulation.mode=functional (values in DDR and L2)");
  reference_inputs in;
  in.image = std::make_unique<llm::weight_image>(m, p.plan, o.reference_seed);
  in.history =
      std::make_unique<kv_history>(m, p.plan, p.kvf, o.context, o.sinks, o.reference_seed + 1);
  g_blobs = in.image->blobs();
  for (auto& b : in.image->token_blobs(ids)) g_blobs.push_back(std::move(b));
  for (auto& b : in.history->blobs()) g_blobs.push_back(std::move(b));
  if (!at.rotation.parts.empty())
    for (auto& b : rotation_blobs(m, at.rotation)) g_blobs.push_back(std::move(b));
  for (const auto& b : o.ddr_overrides) g_blobs.push_back(b);
  if (at.logits_stride == 0 && logit_slots(o) > 1)
    throw std::invalid_argument(
        "the reference check needs every token's logits: " + std::to_string(logit_slots(o)) +
        " x 2 x vocab bytes do not fit the "
        "activation scratch");
  g_logits = {at.logits, at.logits_stride, m.vocab, logit_slots(o), {}, {}};
  for (const auto& g : p.plan.kv_rings)
    g_logits.rings.push_back({g.base, std::vector<uint8_t>(g.bytes)});
  return in;
}

double gemv_peak_per_cycle(const config::platform_config& cfg) {
  return double(cfg.npu.gemv_cores) * cfg.npu.gemv.macs_per_core_per_cycle;
}

// The counters and DDR bytes per class at a marker.
struct counters_at {
  bool seen = false;
  std::map<std::string, uint64_t> counters, ddr_bytes;
};

counters_at read_counters(vp::platform_top& top) {
  counters_at c;
  c.seen = true;
  const auto& pc = top.npu.counters();
  for (uint32_t i = 0; i < npu::perf_counters::size(); ++i)
    c.counters[pc.name_of(i)] = top.npu.cmd().counter(i);
  c.counters["instructions"] = top.npu.cmd().retired();
  for (size_t k = 0; k < mem::kTrafficClasses; ++k) {
    const auto cls = static_cast<mem::traffic_class>(k);
    c.ddr_bytes[mem::traffic_class_name(cls)] = top.ddr.recorder().cls(cls).bytes;
  }
  return c;
}

// The prompt's markers (the prefill's start and end).
struct prefill_marks {
  counters_at start, exit, end;
};

// Runs the decode program; with per_layer, done_ns gets the completion
// time of every instruction, for the per-part breakdown; marks gets the
// counters at the prefill's markers.
vp::run_result simulate(const config::platform_config& cfg, const decode_options& o,
                        std::vector<double>& done_ns, prefill_marks& marks) {
  vp::firmware_image fw;
  if (o.firmware_elf.empty()) {
    fw.name = "gemma_decode";
    fw.origin = "decode runner";
    fw.entry = &host_then_decode;
  } else {
    fw = vp::load_firmware(o.firmware_elf);
    if (!fw.elf)
      throw vp::firmware_error("--firmware " + o.firmware_elf +
                               ": decode runs its built-in program, or the program's AArch64 ELF "
                               "(gemma_decode.elf); this is not an AArch64 ELF");
  }
  auto setup = [&](vp::platform_top& top) {
    if (fw.elf) {
      top.cpu.set_host_steps(&place_in_ddr, &read_logits);
      // The program's boot argument: where its parameter block is.
      top.cpu.set_boot_value("gd_param_addr", g_block_addr);
    }
    if (o.per_layer)
      top.npu.cmd().retirements.subscribe([&](const npu::command_processor::retire_record& r) {
        if (r.seq >= done_ns.size()) done_ns.resize(r.seq + 1, 0);
        done_ns[r.seq] = r.retired.to_seconds() * 1e9;
      });
    if (o.prompt_tokens != 0)
      top.simctl.marker_events.subscribe([&](const vp::sim_control::marker_record& m) {
        if (m.text == "decode: prefill") marks.start = read_counters(top);
        if (m.text == "decode: prefill exit") marks.exit = read_counters(top);
        if (m.text == "decode: prefill end") marks.end = read_counters(top);
      });
  };
  return vp::run_simulation(cfg, fw, nullptr, setup);
}

double marker_span_ns(const vp::run_result& r, const std::string& a, const std::string& b);

// The prompt's figures from the counters at its markers, and its bound.
void collect_prefill(decode_report& rep, const llm::model_config& m, const decode_plan& p,
                     const prefill_marks& marks) {
  const decode_options& o = p.o;
  prefill_report& f = rep.prefill;
  f.prompt = o.prompt_tokens;
  f.chunk = std::min(o.chunk, o.prompt_tokens);
  f.ttft_ns = rep.ttft_ns;
  if (!marks.start.seen || !marks.end.seen || f.ttft_ns <= 0) return;
  f.tokens_per_s = f.prompt / (f.ttft_ns * 1e-9);
  auto delta = [&](const std::string& name) {
    return marks.end.counters.at(name) - marks.start.counters.at(name);
  };
  f.gemm_macs = delta("gemm_macs");
  f.macs = delta("macs");
  f.cycles = delta("cycles");
  f.instructions = delta("instructions");
  const double gemm_peak = 32.0 * 32.0 * 2.0;
  if (f.cycles != 0) {
    f.gemm_utilisation = double(f.gemm_macs) / (gemm_peak * double(f.cycles));
    f.npu_utilisation =
        double(f.macs) / ((gemv_peak_per_cycle(p.cfg) + gemm_peak) * double(f.cycles));
  }
  for (const auto& [cls, bytes] : marks.end.ddr_bytes)
    f.ddr_bytes[cls] = bytes - marks.start.ddr_bytes.at(cls);
  // The last row's exit and LM head (chunks only), for estimates that
  // count it once.
  if (marks.exit.seen) {
    f.exit.ns = marker_span_ns(rep.run, "decode: prefill exit", "decode: prefill end");
    auto exit_delta = [&](const std::string& name) {
      return marks.end.counters.at(name) - marks.exit.counters.at(name);
    };
    f.exit.gemm_macs = exit_delta("gemm_macs");
    f.exit.macs = exit_delta("macs");
    f.exit.cycles = exit_delta("cycles");
    for (const auto& [cls, bytes] : marks.end.ddr_bytes)
      f.exit.ddr_bytes[cls] = bytes - marks.exit.ddr_bytes.at(cls);
  }
  const llm::prefill_plan plan =
      llm::plan_prefill(m, p.kvf, prefill_options_of(o, o.prompt_tokens, f.chunk), p.cfg.npu.gemm);
  llm::roofline_inputs in;
  in.ddr_bytes_per_second = mem::derive_capacity(p.cfg.ddr).effective_bytes_per_s;
  in.macs_per_second = llm::gemm_peak_macs_per_second(p.cfg.clocks.core_mhz * 1e6);
  f.bound = llm::prefill_roofline(plan, in);
  if (f.bound.bound_seconds > 0) f.bound_ratio = f.ttft_ns * 1e-9 / f.bound.bound_seconds;
}

// From marker `a` to marker `b` (0 when either is missing).
double marker_span_ns(const vp::run_result& r, const std::string& a, const std::string& b) {
  double t0 = -1, t1 = -1;
  for (size_t i = 0; i < r.markers.size(); ++i) {
    if (r.markers[i] == a) t0 = r.marker_times_ns[i];
    if (r.markers[i] == b) t1 = r.marker_times_ns[i];
  }
  return t0 >= 0 && t1 >= t0 ? t1 - t0 : 0;
}

// Per token: the markers "decode: token t" and "decode: token t end", and
// the instructions it printed.
void collect_tokens(decode_report& rep, uint32_t tokens) {
  const vp::run_result& r = rep.run;
  for (uint32_t t = 0; t < tokens; ++t) {
    const std::string begin = "decode: token " + std::to_string(t), end = begin + " end";
    double t0 = -1, t1 = -1;
    for (size_t i = 0; i < r.markers.size(); ++i) {
      if (r.markers[i] == begin) t0 = r.marker_times_ns[i];
      if (r.markers[i] == end) t1 = r.marker_times_ns[i];
    }
    rep.latency_ns.push_back(t0 >= 0 && t1 >= t0 ? t1 - t0 : 0);
    if (r.cpu_kind == "AArch64 ELF") {
      uint64_t c0 = 0, c1 = 0;
      for (size_t i = 0; i < r.markers.size() && i < r.marker_cpu_instructions.size(); ++i) {
        if (r.markers[i] == begin) c0 = r.marker_cpu_instructions[i];
        if (r.markers[i] == end) c1 = r.marker_cpu_instructions[i];
      }
      rep.cpu_instructions.push_back(c1 >= c0 ? c1 - c0 : 0);
    }
    const std::string key = begin + " latency_ns ";
    for (const auto& line : r.printed)
      if (line.rfind(key, 0) == 0) {
        const auto at = line.find(" instructions ");
        rep.instructions.push_back(std::stoull(line.substr(at + 14)));
      }
  }
}

// The platform's logits against the reference through the platform's KV
// formats (the decode's own error) and against the exact one (plus the KV
// format's error).
// The records the run wrote (positions L .. L + P + N - 1 still valid in
// the rings at its end), decoded with the platform's codec, against the
// reference's records of the same positions: the lowest cosine and how many.
void compare_records(decode_report& rep, const llm::model_config& m, const decode_plan& p,
                     const llm::reference_decoder& ref) {
  const decode_options& o = p.o;
  const kv::kv_codec key(p.kvf.key), value(p.kvf.value);
  const uint32_t hd = m.attention.head_dim, appended = o.prompt_tokens + o.tokens;
  rep.kv_records_compared = 0;
  rep.kv_record_min_cosine = 1.0;
  for (size_t r = 0; r < p.plan.kv_rings.size() && r < g_logits.rings.size(); ++r) {
    const auto& g = p.plan.kv_rings[r];
    const llm::blob& bytes = g_logits.rings[r];
    // The ring as the program drives it: the same handle, the same appends.
    pccx_kv_handle h;
    pccx_kv_configure(&h, static_cast<uint32_t>(g.layers.size()), m.attention.kv_heads,
                      g.k_record_bytes, g.v_record_bytes, g.base, g.bytes);
    if (pccx_kv_set_sinks(&h, g.name == "kv.local" ? 0 : o.sinks) != PCCX_KV_OK ||
        pccx_kv_set_window(&h, g.window) != PCCX_KV_OK || pccx_kv_init(&h, g.max_tokens) != PCCX_KV_OK)
      throw std::runtime_error("the reference check cannot lay out ring " + g.name);
    h.appended = o.context;
    for (uint32_t t = 0; t < appended; ++t) pccx_kv_append_token(&h, nullptr);
    std::vector<float> got(hd);
    for (uint32_t idx = 0; idx < g.layers.size(); ++idx)
      for (uint32_t head = 0; head < m.attention.kv_heads; ++head)
        for (int is_v = 0; is_v < 2; ++is_v)
          for (uint32_t pos = o.context; pos < o.context + appended; ++pos) {
            uint64_t addr = 0;
            if (pccx_kv_slot_addr(&h, idx, head, is_v, pos, &addr) != PCCX_KV_OK) continue;
            const std::vector<double>* want = ref.stored_kv(g.layers[idx], head, pos, is_v != 0);
            if (!want) continue;
            (is_v ? value : key).decode(bytes.bytes.data() + (addr - bytes.addr), got.data());
            const double c =
                llm::cosine_similarity(std::vector<double>(got.begin(), got.end()), *want);
            rep.kv_record_min_cosine = std::min(rep.kv_record_min_cosine, c);
            ++rep.kv_records_compared;
          }
  }
}

void compare_with_reference(decode_report& rep, const llm::model_config& m, const decode_plan& p,
                            const reference_inputs& in, const std::vector<uint32_t>& ids) {
  const decode_options& o = p.o;
  for (int exact = 0; exact < 2; ++exact) {
    llm::reference_options ro;
    ro.context = o.context;
    ro.ring_cap = o.ring_cap;
    ro.sinks = o.sinks;
    ro.window_extra = o.window_extra;
    ro.kv_codec = exact == 0;
    ro.formats = p.kvf;
    llm::reference_decoder ref(*in.image, in.history->history(), ro);
    auto platform_logits = [&](uint32_t slot) {
      std::vector<double> got(m.vocab);
      for (uint32_t v = 0; v < m.vocab; ++v)
        got[v] = npu::bf16::to_float(g_logits.bf16.at(slot)[v]);
      return got;
    };
    const uint32_t first = o.prompt_tokens != 0 ? 1u : 0u;
    for (uint32_t t = 0; t < o.prompt_tokens; ++t) {
      const std::vector<double> want = ref.step(ids[t]);
      if (t + 1 == o.prompt_tokens)
        (exact ? rep.prompt_cosine_exact : rep.prompt_cosine) =
            llm::cosine_similarity(platform_logits(0), want);
    }
    for (uint32_t t = 0; t < o.tokens; ++t) {
      const std::vector<double> want = ref.step(ids[o.prompt_tokens + t]);
      (exact ? rep.reference_cosine_exact : rep.reference_cosine)
          .push_back(llm::cosine_similarity(platform_logits(first + t), want));
    }
    if (!exact) compare_records(rep, m, p, ref);
  }
}

// MACs, utilisation and the engines' busy, idle and stall clocks.
void collect_engines(decode_report& rep, const config::platform_config& cfg) {
  const vp::run_result& r = rep.run;
  rep.cycles = counter(r, "cycles");
  rep.gemv_macs = counter(r, "gemv_macs");
  rep.macs = counter(r, "macs");
  const double gemv_peak = gemv_peak_per_cycle(cfg);
  const double gemm_peak = 32.0 * 32.0 * 2.0;
  if (rep.cycles != 0) {
    rep.gemv_utilisation = double(rep.gemv_macs) / (gemv_peak * double(rep.cycles));
    rep.npu_utilisation = double(rep.macs) / ((gemv_peak + gemm_peak) * double(rep.cycles));
  }
  rep.engines["gemv"] = {counter(r, "gemv_busy_cycles"), counter(r, "gemv_idle_cycles"),
                         counter(r, "gemv_weight_stall_cycles") +
                             counter(r, "gemv_l2_stall_cycles") +
                             counter(r, "gemv_dequant_stall_cycles")};
  rep.engines["gemm"] = {
      counter(r, "gemm_busy_cycles"), counter(r, "gemm_idle_cycles"),
      counter(r, "gemm_weight_stall_cycles") + counter(r, "gemm_l2_stall_cycles")};
  rep.engines["sfu"] = {counter(r, "sfu_busy_cycles"), counter(r, "sfu_idle_cycles"),
                        counter(r, "sfu_input_stall_cycles")};
  rep.engines["dma"] = {counter(r, "dma_busy_cycles"), counter(r, "dma_idle_cycles"),
                        counter(r, "dma_hazard_stall_cycles")};
}

// DDR bytes by class, and per token the roofline bound of this
// configuration (its effective DDR bandwidth and GEMV peak, so a what-if
// moves the bound with the latency).
void collect_ddr_and_bound(decode_report& rep, const llm::model_config& m, const decode_plan& p,
                           const std::map<std::string, uint64_t>& before_decode) {
  const decode_options& o = p.o;
  const vp::run_result& r = rep.run;
  // With a prompt, the tokens' figures are the run's after the prompt's
  // end marker (its counters in before_decode).
  double decode_bytes = 0;
  for (const auto& [cls, j] : r.memory["ddr"]["bandwidth"]["classes"].items()) {
    const uint64_t bytes = j.value("bytes", uint64_t{0});
    rep.ddr_bytes[cls] = bytes;
    const auto prompt = before_decode.find(cls);
    const uint64_t tokens_bytes = bytes - (prompt != before_decode.end() ? prompt->second : 0);
    if (cls != "host" && o.tokens != 0) {
      rep.ddr_bytes_per_token[cls] = double(tokens_bytes) / o.tokens;
      decode_bytes += double(tokens_bytes);
    }
  }
  double lat = 0, bound = 0;
  llm::roofline_inputs in;
  in.ddr_bytes_per_second = mem::derive_capacity(p.cfg.ddr).effective_bytes_per_s;
  in.macs_per_second = gemv_peak_per_cycle(p.cfg) * p.cfg.clocks.core_mhz * 1e6;
  for (uint32_t t = 0; t < o.tokens; ++t) {
    // A capped ring attends at most ring_cap tokens.
    const uint32_t span = std::min(o.context + 1 + t, o.ring_cap);
    rep.bound.push_back(llm::decode_roofline(m, p.kvf, span, in));
    bound += rep.bound.back().bound_seconds * 1e9;
    lat += rep.latency_ns[t];
  }
  if (lat > 0) rep.achieved_gbps = decode_bytes / lat;
  if (bound > 0) rep.bound_ratio = lat / bound;
  // DRAM energy: a class's own activates and bursts plus its share of
  // background and refresh (memory-ddr.md, Energy).
  const auto& ddr = r.memory["ddr"];
  if (ddr.contains("dram")) {
    double total_mj = 0;
    for (const auto& [cls, j] : ddr["dram"]["classes"].items()) {
      if (cls == "host") continue;
      const double mj = j.value("energy_mj", 0.0);
      if (o.prompt_tokens == 0) rep.dram_mj_per_token[cls] = mj / o.tokens;
      total_mj += mj;
    }
    // The energy is the whole run's: per bit only without a prompt.
    if (decode_bytes > 0 && o.prompt_tokens == 0)
      rep.dram_pj_per_bit = total_mj * 1e9 / (decode_bytes * 8);
  }
}

}  // namespace

void check_decode(const config::platform_config& cfg, const llm::model_config& m,
                  const decode_options& o) {
  (void)place_in_scratch(m, plan_decode(cfg, m, o));
}

decode_report run_decode(const config::platform_config& base, const llm::model_config& m,
                         const decode_options& opt) {
  const decode_plan p = plan_decode(base, m, opt);
  const decode_options& o = p.o;
  const block_addresses at = place_in_scratch(m, p);
  g_block = decode_param_block(m, p.plan, o, at, p.kvf);
  g_block_addr = p.plan.find("activations").base;

  g_blobs.clear();
  g_logits = {};
  const std::vector<uint32_t> ids =
      o.token_ids.empty() ? default_token_ids(m, o.prompt_tokens + o.tokens) : o.token_ids;
  reference_inputs ref;
  if (o.reference_seed != 0) ref = stage_reference(m, p, at, ids);

  decode_report rep;
  rep.model = m.name;
  rep.context = o.context;
  rep.tokens = o.tokens;
  rep.ring_cap = o.ring_cap;
  std::vector<double> done_ns;
  prefill_marks marks;
  rep.run = simulate(p.cfg, o, done_ns, marks);
  rep.wall_time_s = rep.run.wall_time_s;
  if (rep.run.exit_code != 0) return rep;
  collect_tokens(rep, o.tokens);
  if (o.prompt_tokens != 0)
    rep.ttft_ns = marker_span_ns(rep.run, "decode: prefill", "decode: prefill end");
  for (uint64_t n : rep.cpu_instructions)
    rep.cpu_busy_ns.push_back(static_cast<double>(n) * p.cfg.cpu.cycles_per_instruction * 1e3 /
                              p.cfg.cpu.clock_mhz);
  if (o.per_layer) rep.parts = part_times(rep.run, done_ns, o.tokens);
  if (o.reference_seed != 0) {
    compare_with_reference(rep, m, p, ref, ids);
    rep.logits = g_logits.bf16;
    rep.kv_rings = g_logits.rings;
  }
  collect_engines(rep, p.cfg);
  collect_ddr_and_bound(rep, m, p, marks.end.ddr_bytes);
  if (o.prompt_tokens != 0) collect_prefill(rep, m, p, marks);
  return rep;
}

std::string decode_report::text() const {
  std::ostringstream s;
  s << "decode: " << model << ", L = " << context << ", N = " << tokens << ", ring cap " << ring_cap
    << "\n";
  for (size_t t = 0; t < latency_ns.size(); ++t)
    s << "  token " << t << ": " << std::fixed << std::setprecision(1) << latency_ns[t] / 1e3
      << " us, " << (t < instructions.size() ? instructions[t] : 0) << " instructions, bound "
      << std::setprecision(1) << (t < bound.size() ? bound[t].bound_seconds * 1e6 : 0) << " us\n";
  for (const auto& p : parts)
    s << "  " << std::left << std::setw(9) << p.name << std::right << std::fixed
      << std::setprecision(1) << std::setw(10) << p.ns / 1e3 << " us " << std::setprecision(0)
      << std::setw(6) << p.instructions << " instructions\n";
  if (ttft_ns > 0) {
    const prefill_report& f = prefill;
    s << "  prefill: " << f.prompt << " prompt tokens in chunks of " << f.chunk
      << ", time to first token " << std::fixed << std::setprecision(3) << ttft_ns / 1e6
      << " ms, " << std::setprecision(1) << f.tokens_per_s << " tokens/s\n";
    s << std::setprecision(2) << "  prefill: GEMM MAC utilisation " << 100 * f.gemm_utilisation
      << " %, NPU " << 100 * f.npu_utilisation << " %, " << f.instructions
      << " instructions, bound " << std::setprecision(3) << f.bound.bound_seconds * 1e3
      << " ms (" << (f.bound.memory_bound ? "memory" : "compute") << "-bound), ttft / bound "
      << std::setprecision(2) << f.bound_ratio << "\n";
    for (const auto& [c, v] : f.ddr_bytes)
      if (v != 0) s << "  prefill: DDR " << c << " " << v << " bytes\n";
  }
  if (prompt_cosine != 0)
    s << "  last prompt token's logits against the reference: cosine " << std::setprecision(6)
      << prompt_cosine << " (KV formats as the platform's), " << prompt_cosine_exact
      << " (exact K/V)\n";
  if (kv_records_compared != 0)
    s << "  KV records against the reference's: " << kv_records_compared
      << " compared, lowest cosine " << std::setprecision(6) << kv_record_min_cosine << "\n";
  for (size_t t = 0; t < reference_cosine.size(); ++t)
    s << "  token " << t << " logits against the reference: cosine " << std::setprecision(6)
      << reference_cosine[t] << " (KV formats as the platform's), "
      << (t < reference_cosine_exact.size() ? reference_cosine_exact[t] : 0.0) << " (exact K/V)\n";
  double mean = 0;
  for (double l : latency_ns) mean += l / double(latency_ns.size());
  if (mean > 0)
    s << std::setprecision(3) << "  mean of the " << latency_ns.size() << " tokens: " << mean / 1e6
      << " ms/token, " << 1e9 / mean << " tokens/s\n";
  for (size_t t = 0; t < cpu_instructions.size(); ++t)
    s << "  token " << t << " firmware CPU (AArch64 ELF): " << cpu_instructions[t]
      << " instructions, " << std::setprecision(1) << cpu_busy_ns[t] / 1e3
      << " us at the A53 clock\n";
  s << std::setprecision(2) << "  GEMV MAC utilisation " << 100 * gemv_utilisation << " %, NPU "
    << 100 * npu_utilisation << " %\n";
  for (const auto& [e, v] : engines)
    s << "  " << e << ": busy " << v.busy << ", stall " << v.stall << ", idle " << v.idle
      << " clocks\n";
  for (const auto& [c, v] : ddr_bytes_per_token)
    s << "  DDR " << c << ": " << std::setprecision(0) << v << " bytes/token\n";
  if (!dram_mj_per_token.empty()) {
    double mj = 0;
    for (const auto& [c, v] : dram_mj_per_token) mj += v;
    s << std::setprecision(3) << "  DRAM energy " << mj << " mJ/token (";
    const char* sep = "";
    for (const auto& [c, v] : dram_mj_per_token) s << sep << c << " " << v, sep = ", ";
    s << "), " << std::setprecision(1) << dram_pj_per_bit << " pJ/bit\n";
  }
  s << std::setprecision(2);
  if (achieved_gbps > 0)
    s << "  achieved " << achieved_gbps << " GB/s, latency / bound ";
  else
    s << "  latency / bound ";
  s << bound_ratio << ", wall " << wall_time_s << " s\n";
  return s.str();
}

}  // namespace pccx::workload
