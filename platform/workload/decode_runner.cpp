#include "platform/workload/decode_runner.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <memory>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "models/memory/ddr/ddr_efficiency.h"
#include "models/npu/units/bf16.h"
#include "pccx_gemma_decode.h"
#include "pccx_host_mem.h"
#include "platform/vp/top/platform_top.h"
#include "platform/workload/decode_l2_fit.h"
#include "platform/workload/kv_history.h"
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
} g_logits;

int host_then_decode(void) {
  for (const auto& b : g_blobs)
    for (size_t at = 0; at < b.bytes.size(); at += 1u << 20) {
      const size_t n = std::min<size_t>(b.bytes.size() - at, 1u << 20);
      pccx_host_write(b.addr + at, b.bytes.data() + at, static_cast<uint32_t>(n));
    }
  // The block goes to DDR like any host data (in timing mode the DDR keeps
  // no bytes, so the program takes the same bytes from the host's memory).
  pccx_host_write(g_block_addr, g_block.data(), static_cast<uint32_t>(g_block.size()));
  const int rc = pccx_gemma_decode_run(g_block.data(), static_cast<uint32_t>(g_block.size()));
  g_logits.bf16.clear();
  if (rc == 0)
    for (uint32_t t = 0; t < g_logits.tokens; ++t) {
      g_logits.bf16.emplace_back(g_logits.vocab);
      pccx_host_read(g_logits.addr + t * g_logits.stride, g_logits.bf16.back().data(),
                     2 * g_logits.vocab);
    }
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

uint64_t vector_or_zero(const llm::ddr_plan& p, int32_t layer, const std::string& name) {
  for (const auto& v : p.vectors)
    if (v.param.layer == layer && v.param.name == name) return v.addr;
  return 0;
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

std::vector<uint8_t> decode_param_block(const llm::model_config& m, const llm::ddr_plan& plan,
                                        const decode_options& o, const block_addresses& at,
                                        const llm::kv_formats& kvf) {
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
  const std::vector<uint32_t> ids =
      o.token_ids.empty() ? default_token_ids(m, o.tokens) : o.token_ids;
  if (ids.size() != o.tokens)
    throw std::invalid_argument("token_ids: " + std::to_string(ids.size()) + " ids for " +
                                std::to_string(o.tokens) + " tokens");
  for (uint32_t id : ids)
    if (id >= m.vocab)
      throw std::invalid_argument("token id " + std::to_string(id) + " >= vocab " +
                                  std::to_string(m.vocab));
  const uint32_t S = m.altup.streams, d = m.attention.head_dim;
  const size_t off_altup = sizeof(gd_block_header);
  const size_t off_layers = off_altup + 2 * size_t(S - 1) * sizeof(gd_block_matrix);
  const size_t off_tokens = off_layers + size_t(m.layers) * sizeof(gd_block_layer);
  const size_t off_rope = off_tokens + sizeof(uint32_t) * size_t(o.tokens);
  const size_t block_bytes = off_rope + sizeof(float) * size_t(d);
  gd_block_header h{};
  h.magic = GD_MAGIC;
  h.bytes = static_cast<uint32_t>(block_bytes);
  h.layers = m.layers;
  h.hidden = m.hidden;
  h.heads = m.attention.heads;
  h.kv_heads = m.attention.kv_heads;
  h.head_dim = d;
  h.vocab = m.vocab;
  h.tokens = o.tokens;
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
  h.scratch = at.scratch;
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
    // Sinks on the rings that hold the whole history; a sliding-window
    // ring keeps only the newest tokens, as the model defines it.
    ring.sinks = g.name == "kv.local" ? 0 : o.sinks;
  }
  h.streams = S;
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
  if ((flags & (GD_F_ROTATED_K | GD_F_ROTATED_V)) && !at.rotation.parts.empty())
    h.rotation = block_matrix(at.rotation);
  h.altup_offset = static_cast<uint32_t>(off_altup);
  h.layers_offset = static_cast<uint32_t>(off_layers);
  h.tokens_offset = static_cast<uint32_t>(off_tokens);
  h.rope_offset = static_cast<uint32_t>(off_rope);
  h.logits_stride = at.logits_stride;
  h.weight_streams = plan.weight_streams;
  if (at.weight_channels.size() != plan.weight_streams)
    throw std::invalid_argument("the plan has " + std::to_string(plan.weight_streams) +
                                " weight streams, the block names " +
                                std::to_string(at.weight_channels.size()) + " channels");
  for (size_t f = 0; f < at.weight_channels.size() && f < GD_MAX_WEIGHT_STREAMS; ++f)
    h.weight_channels[f] = at.weight_channels[f];
  h.l2_words = at.l2_words;
  std::vector<gd_block_matrix> altup(2 * size_t(S - 1), gd_block_matrix{});
  for (uint32_t j = 1; j < S; ++j) {
    altup[j - 1] = named_matrix(plan, -1, "altup_proj." + std::to_string(j));
    altup[S - 1 + j - 1] = named_matrix(plan, -1, "altup_unproj." + std::to_string(j));
  }
  static const char* const vectors[GD_VECTORS] = {"input_norm",
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
  static const char* const matrices[GD_MATRICES] = {
      "attn_q",   "attn_k",       "attn_v",      "attn_o",       "ffn_gate", "ffn_up",
      "ffn_down", "altup_router", "laurel_left", "laurel_right", "ple_gate", "ple_proj"};
  std::vector<gd_block_layer> layers(m.layers, gd_block_layer{});
  for (uint32_t l = 0; l < m.layers; ++l) {
    gd_block_layer& ly = layers[l];
    const int32_t li = static_cast<int32_t>(l);
    const auto loc = plan.kv_of(m, l);
    ly.ffn = m.ffn_of(l);
    ly.ring = static_cast<uint32_t>(loc.group - plan.kv_rings.data());
    ly.ring_index = loc.index;
    ly.stores_kv = m.stores_kv(l) ? 1 : 0;
    ly.global = m.is_global(l) ? 1 : 0;
    ly.sparse_ffn = l < m.sparse_ffn_layers ? 1 : 0;
    for (uint32_t k = 0; k < GD_VECTORS; ++k) ly.vectors[k] = vector_or_zero(plan, li, vectors[k]);
    for (uint32_t k = 0; k < GD_MATRICES; ++k) ly.matrices[k] = named_matrix(plan, li, matrices[k]);
  }
  // RoPE inverse frequencies theta^(-2m/d), local then global.
  std::vector<float> rope(d, 0.0f);
  for (int global = 0; global < 2; ++global) {
    const double theta = global ? m.attention.rope_theta_global : m.attention.rope_theta_local;
    for (uint32_t i = 0; i < d / 2; ++i)
      rope[global * (d / 2) + i] = static_cast<float>(std::pow(theta, -2.0 * i / d));
  }
  std::vector<uint8_t> b(block_bytes, 0);
  put(b, 0, &h);
  put(b, off_altup, altup.data(), altup.size());
  put(b, off_layers, layers.data(), layers.size());
  put(b, off_tokens, ids.data(), ids.size());
  put(b, off_rope, rope.data(), rope.size());
  return b;
}

decode_report run_decode(const config::platform_config& base, const llm::model_config& m,
                         const decode_options& opt) {
  decode_options o = opt;
  if (o.ring_cap == 0) o.ring_cap = o.context + o.tokens;
  config::platform_config cfg = base;
  cfg.npu.kv.head_dim = m.attention.head_dim;
  const llm::ddr_plan plan = llm::plan_ddr(m, cfg, o.ring_cap);

  const llm::kv_formats kvf{config::to_kv_format(cfg.npu.kv.key, m.attention.head_dim),
                            config::to_kv_format(cfg.npu.kv.value, m.attention.head_dim)};
  // In the activation scratch: the block, the firmware's staging area, the
  // rotation matrix of a rotated KV format, then the logits (one buffer per
  // token when N of them fit, else one shared buffer).
  const llm::region& act = plan.find("activations");
  block_addresses at;
  for (uint32_t ch : cfg.npu.gemv.weight_fifos)
    at.weight_channels.push_back(static_cast<uint8_t>(ch));
  at.l2_words = cfg.npu.l2.words;
  const std::vector<uint8_t> first_block = decode_param_block(m, plan, o, at, kvf);
  check_l2_fit(first_block, cfg.npu.l2.words);  // dimensions only: addresses come next
  const uint64_t block_bytes = first_block.size();
  uint64_t next = (act.base + block_bytes + 4095) & ~uint64_t{4095};
  at.scratch = next;
  next += GD_SCRATCH_BYTES;
  if (kvf.key.kind == kv::kv_kind::rotated || kvf.value.kind == kv::kv_kind::rotated) {
    const uint32_t d = m.attention.head_dim;
    auto& r = at.rotation;
    r.shape = {"kv_rotation", -1, d, d};
    r.record_bytes = llm::weight_record_bytes(m.weights, d);
    r.base = next;
    r.bytes = uint64_t(d) * r.record_bytes;
    const uint32_t F = plan.weight_streams;
    for (uint32_t f = 0; f < F; ++f) {
      const uint32_t rows = (d - std::min(f, d) + F - 1) / F;
      r.parts.push_back({next, uint64_t(rows) * r.record_bytes, rows});
      next += uint64_t(rows) * r.record_bytes;
    }
    next -= r.bytes;
    next += r.bytes;
  }
  const uint64_t logit_bytes = (2ull * m.vocab + 63) & ~uint64_t{63};
  at.logits = (next + 63) & ~uint64_t{63};
  if (at.logits + o.tokens * logit_bytes <= act.base + act.bytes)
    at.logits_stride = static_cast<uint32_t>(logit_bytes);
  else if (at.logits + logit_bytes > act.base + act.bytes)
    throw std::invalid_argument(
        "the activation scratch is too small for the decode: parameter block " +
        llm::grouped(block_bytes) + " bytes (" + llm::grouped(at.scratch - act.base) +
        " to a 4 KiB boundary) + staging " + llm::grouped(GD_SCRATCH_BYTES) +
        (at.rotation.parts.empty() ? "" : " + rotation matrix " + llm::grouped(at.rotation.bytes)) +
        " + logits 2 x " + llm::grouped(m.vocab) + " (" + llm::grouped(logit_bytes) +
        " 64-byte aligned) = " + llm::grouped(at.logits + logit_bytes - act.base) + " > " +
        llm::grouped(act.bytes) +
        " bytes of the activations region (its size follows npu.l2.words: " +
        llm::grouped(cfg.npu.l2.words) + " words x 16 + the model's vectors)");
  g_block = decode_param_block(m, plan, o, at, kvf);
  g_block_addr = act.base;
  g_blobs.clear();
  g_logits = {};
  std::unique_ptr<llm::weight_image> image;
  std::unique_ptr<kv_history> history;
  const std::vector<uint32_t> ids =
      o.token_ids.empty() ? default_token_ids(m, o.tokens) : o.token_ids;
  if (o.reference_seed != 0) {
    if (!cfg.simulation.functional())
      throw std::invalid_argument(
          "the reference check needs simulation.mode=functional (values in DDR and L2)");
    image = std::make_unique<llm::weight_image>(m, plan, o.reference_seed);
    history = std::make_unique<kv_history>(m, plan, kvf, o.context, o.sinks, o.reference_seed + 1);
    g_blobs = image->blobs();
    for (auto& b : image->token_blobs(ids)) g_blobs.push_back(std::move(b));
    for (auto& b : history->blobs()) g_blobs.push_back(std::move(b));
    if (!at.rotation.parts.empty())
      for (auto& b : rotation_blobs(m, at.rotation)) g_blobs.push_back(std::move(b));
    if (at.logits_stride == 0 && o.tokens > 1)
      throw std::invalid_argument(
          "the reference check needs every token's logits: " + std::to_string(o.tokens) +
          " x 2 x vocab bytes do not fit the "
          "activation scratch");
    g_logits = {at.logits, at.logits_stride, m.vocab, o.tokens, {}};
  }

  vp::firmware_image fw;
  fw.name = "gemma_decode";
  fw.origin = "decode runner";
  fw.entry = &host_then_decode;
  decode_report rep;
  rep.model = m.name;
  rep.context = o.context;
  rep.tokens = o.tokens;
  rep.ring_cap = o.ring_cap;
  // Completion time of every instruction, for the per-part breakdown.
  std::vector<double> done_ns;
  auto probe = [&](vp::platform_top& top) {
    top.npu.cmd().on_complete = [&](uint64_t seq, const sc_core::sc_time& t) {
      if (seq >= done_ns.size()) done_ns.resize(seq + 1, 0);
      done_ns[seq] = t.to_seconds() * 1e9;
    };
  };
  rep.run = o.per_layer ? vp::run_simulation(cfg, fw, nullptr, probe)
                        : vp::run_simulation(cfg, fw, nullptr);
  const vp::run_result& r = rep.run;
  rep.wall_time_s = r.wall_time_s;
  if (r.exit_code != 0) return rep;

  // Per token: the markers "decode: token t" and "decode: token t end".
  for (uint32_t t = 0; t < o.tokens; ++t) {
    const std::string begin = "decode: token " + std::to_string(t), end = begin + " end";
    double t0 = -1, t1 = -1;
    for (size_t i = 0; i < r.markers.size(); ++i) {
      if (r.markers[i] == begin) t0 = r.marker_times_ns[i];
      if (r.markers[i] == end) t1 = r.marker_times_ns[i];
    }
    rep.latency_ns.push_back(t0 >= 0 && t1 >= t0 ? t1 - t0 : 0);
    const std::string key = begin + " latency_ns ";
    for (const auto& line : r.printed)
      if (line.rfind(key, 0) == 0) {
        const auto at = line.find(" instructions ");
        rep.instructions.push_back(std::stoull(line.substr(at + 14)));
      }
  }

  if (o.per_layer) rep.parts = part_times(r, done_ns, o.tokens);
  if (o.reference_seed != 0) {
    // The platform's logits against the reference through the platform's
    // KV formats (the decode's own error) and against the exact one (plus
    // the KV format's error).
    for (int exact = 0; exact < 2; ++exact) {
      llm::reference_options ro;
      ro.context = o.context;
      ro.ring_cap = o.ring_cap;
      ro.sinks = o.sinks;
      ro.kv_codec = exact == 0;
      ro.formats = kvf;
      llm::reference_decoder ref(*image, history->history(), ro);
      for (uint32_t t = 0; t < o.tokens; ++t) {
        const std::vector<double> want = ref.step(ids[t]);
        std::vector<double> got(m.vocab);
        for (uint32_t v = 0; v < m.vocab; ++v) got[v] = npu::bf16::to_float(g_logits.bf16.at(t)[v]);
        (exact ? rep.reference_cosine_exact : rep.reference_cosine)
            .push_back(llm::cosine_similarity(got, want));
      }
    }
  }

  rep.cycles = counter(r, "cycles");
  rep.gemv_macs = counter(r, "gemv_macs");
  rep.macs = counter(r, "macs");
  const double gemv_peak = double(cfg.npu.gemv_cores) * cfg.npu.gemv.macs_per_core_per_cycle;
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

  double decode_bytes = 0;
  for (const auto& [cls, j] : r.memory["ddr"]["bandwidth"]["classes"].items()) {
    const uint64_t bytes = j.value("bytes", uint64_t{0});
    rep.ddr_bytes[cls] = bytes;
    if (cls != "host") {
      rep.ddr_bytes_per_token[cls] = double(bytes) / o.tokens;
      decode_bytes += double(bytes);
    }
  }
  double lat = 0, bound = 0;
  // The bound of this configuration: its effective DDR bandwidth and GEMV
  // peak, so a what-if moves the bound with the latency.
  llm::roofline_inputs in;
  in.ddr_bytes_per_second = mem::derive_efficiency(cfg.ddr).effective_bytes_per_s;
  in.macs_per_second = gemv_peak * cfg.clocks.core_mhz * 1e6;
  for (uint32_t t = 0; t < o.tokens; ++t) {
    // A capped ring attends at most ring_cap tokens.
    const uint32_t span = std::min(o.context + 1 + t, o.ring_cap);
    rep.bound.push_back(llm::decode_roofline(m, kvf, span, in));
    bound += rep.bound.back().bound_seconds * 1e9;
    lat += rep.latency_ns[t];
  }
  if (lat > 0) rep.achieved_gbps = decode_bytes / lat;
  if (bound > 0) rep.bound_ratio = lat / bound;
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
  for (size_t t = 0; t < reference_cosine.size(); ++t)
    s << "  token " << t << " logits against the reference: cosine " << std::setprecision(6)
      << reference_cosine[t] << " (KV formats as the platform's), "
      << (t < reference_cosine_exact.size() ? reference_cosine_exact[t] : 0.0) << " (exact K/V)\n";
  double mean = 0;
  for (double l : latency_ns) mean += l / double(latency_ns.size());
  if (mean > 0)
    s << std::setprecision(3) << "  mean of the " << latency_ns.size() << " tokens: " << mean / 1e6
      << " ms/token, " << 1e9 / mean << " tokens/s\n";
  s << std::setprecision(2) << "  GEMV MAC utilisation " << 100 * gemv_utilisation << " %, NPU "
    << 100 * npu_utilisation << " %\n";
  for (const auto& [e, v] : engines)
    s << "  " << e << ": busy " << v.busy << ", stall " << v.stall << ", idle " << v.idle
      << " clocks\n";
  for (const auto& [c, v] : ddr_bytes_per_token)
    s << "  DDR " << c << ": " << std::setprecision(0) << v << " bytes/token\n";
  s << std::setprecision(2) << "  achieved " << achieved_gbps << " GB/s, latency / bound "
    << bound_ratio << ", wall " << wall_time_s << " s\n";
  return s.str();
}

}  // namespace pccx::workload
