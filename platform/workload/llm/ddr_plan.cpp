#include "platform/workload/llm/ddr_plan.h"

#include <algorithm>
#include <limits>

#include "infra/config/config_visitors.h"
#include "pccx_kv.h"

namespace pccx::llm {

namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
// Largest stream one DMA descriptor carries.
constexpr uint64_t kStreamMax = PCCX_KV_STREAM_MAX;
constexpr uint64_t kBf16Bytes = 2;

uint64_t add_sat(uint64_t a, uint64_t b) {
  return a > kMax - b ? kMax : a + b;
}

uint64_t align_up(uint64_t v, uint64_t a) {
  const uint64_t r = add_sat(v, a - 1);
  return r == kMax ? kMax : r & ~(a - 1);
}

std::string big(uint64_t v) {
  return v == kMax ? "more than 2^64" : grouped(v);
}

std::string matrix_region_name(const matrix_shape& s) {
  return s.layer < 0 ? s.name : "layer." + std::to_string(s.layer) + "." + s.name;
}

class layout {
 public:
  explicit layout(ddr_plan& p) : p_(p), cursor_(align_up(p.ddr_base, p.alignment)) {}

  const region& add(const std::string& name, const std::string& category, uint64_t bytes,
                    const std::string& formula, int32_t layer = -1) {
    region r{name, category, layer, cursor_, bytes, formula};
    cursor_ = align_up(add_sat(cursor_, bytes), p_.alignment);
    p_.regions.push_back(std::move(r));
    return p_.regions.back();
  }
  uint64_t cursor() const { return cursor_; }

 private:
  ddr_plan& p_;
  uint64_t cursor_;
};

void add_matrix(ddr_plan& p, layout& lay, const model_config& m, const matrix_shape& s) {
  planned_matrix pm;
  pm.shape = s;
  pm.record_bytes = weight_record_bytes(m.weights, s.cols);
  pm.bytes = uint64_t(s.rows) * pm.record_bytes;
  const std::string formula = grouped(s.rows) + " x " + grouped(pm.record_bytes);
  pm.base = lay.add(matrix_region_name(s), "weights", pm.bytes, formula, s.layer).base;
  const uint32_t f_count = p.weight_streams;
  uint64_t addr = pm.base;
  for (uint32_t f = 0; f < f_count; ++f) {
    const uint32_t rows =
        f < s.rows ? static_cast<uint32_t>((uint64_t(s.rows) - f + f_count - 1) / f_count) : 0;
    pm.parts.push_back({addr, rows * pm.record_bytes, rows});
    addr += rows * pm.record_bytes;
  }
  p.matrices.push_back(std::move(pm));
}

// Storing layers grouped by ring cap, in order of their first layer.
std::vector<kv_ring_group> ring_groups(const model_config& m, const kv_formats& kv,
                                       uint32_t max_tokens, uint32_t window_extra) {
  std::vector<kv_ring_group> groups;
  for (uint32_t l = 0; l < m.storing_layers(); ++l) {
    const ring_view r = ring_of(m, l, max_tokens, 0, window_extra);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const kv_ring_group& g) {
      return g.max_tokens == r.cap && g.window == r.window;
    });
    if (it == groups.end()) {
      kv_ring_group g;
      g.max_tokens = r.cap;
      g.window = r.window;
      g.kv_heads = m.attention.kv_heads;
      g.k_record_bytes = kv.key.record_bytes();
      g.v_record_bytes = kv.value.record_bytes();
      groups.push_back(g);
      it = groups.end() - 1;
    }
    it->layers.push_back(l);
  }
  for (auto& g : groups) {
    // The driver's size of the rings, so that pccx_kv_init fits them exactly.
    g.bytes = pccx_kv_required_bytes(static_cast<uint32_t>(g.layers.size()), g.kv_heads,
                                     g.k_record_bytes, g.v_record_bytes, g.max_tokens);
    bool all_global = true, all_local = true;
    for (uint32_t l : g.layers) (m.is_global(l) ? all_local : all_global) = false;
    g.name = groups.size() == 1 ? "kv" : all_global ? "kv.global" : all_local ? "kv.local" : "kv";
  }
  return groups;
}

std::string ring_formula(const kv_ring_group& g) {
  return grouped(g.layers.size()) + " x " + grouped(g.kv_heads) + " x " + grouped(g.max_tokens) +
         " x (" + grouped(g.k_record_bytes) + " + " + grouped(g.v_record_bytes) + ")";
}

uint64_t derived_scratch(const model_config& m, uint32_t max_tokens, uint32_t l2_words) {
  const auto& a = m.attention;
  uint32_t widest_ffn = m.ffn;
  for (uint32_t l = 0; l < m.layers; ++l) widest_ffn = std::max(widest_ffn, m.ffn_of(l));
  uint64_t values = uint64_t(m.altup.streams) * m.hidden;
  values += uint64_t(m.layers) * m.per_layer_input.dim;
  values += uint64_t(a.heads) * a.head_dim;
  values += uint64_t(a.heads) * max_tokens;
  values += 2ull * widest_ffn;
  return uint64_t(l2_words) * 16 + kBf16Bytes * values;
}

// "label N" or "label a x b = N", with the footprint when padding grows it.
std::string term(const std::string& label, const std::string& formula, uint64_t bytes,
                 uint64_t footprint) {
  std::string t = label + " ";
  if (!formula.empty()) t += formula + " = ";
  t += big(bytes);
  if (footprint != bytes) t += " (" + big(footprint) + " aligned)";
  return t;
}

[[noreturn]] void fail(const ddr_plan& p, uint64_t total, const std::string& size_key) {
  std::vector<std::string> terms;
  const uint64_t gap = align_up(p.ddr_base, p.alignment) - p.ddr_base;
  if (gap != 0) terms.push_back("alignment of ddr_base " + grouped(gap));

  uint64_t matrices = 0;
  for (const auto& r : p.regions) matrices += r.category == "weights";
  terms.push_back("weights " + big(p.category_bytes("weights")) + " (" + grouped(matrices) +
                  " matrices of row records, each region " + grouped(p.alignment) +
                  "-byte aligned)");
  for (const auto& r : p.regions) {
    if (r.category == "tables")
      terms.push_back(term(r.name == "ple_table" ? "per-layer embedding table" : "embedding table",
                           r.formula, r.bytes, align_up(r.bytes, p.alignment)));
  }
  const region& vec = p.find("parameters");
  terms.push_back(term("BF16 parameters", "", vec.bytes, align_up(vec.bytes, p.alignment)));

  std::string rings, ring_formulas;
  uint64_t ring_bytes = 0;
  for (const auto& g : p.kv_rings) {
    ring_formulas += (ring_formulas.empty() ? "" : " + ") + ring_formula(g);
    ring_bytes = add_sat(ring_bytes, g.bytes);
  }
  terms.push_back(term("KV rings", ring_formulas, ring_bytes, p.category_bytes("kv")));
  const region& scratch = p.find("activations");
  terms.push_back(
      term("activation scratch", "", scratch.bytes, align_up(scratch.bytes, p.alignment)));
  const region& logits = p.find("logits");
  terms.push_back(
      term("logits", logits.formula, logits.bytes, align_up(logits.bytes, p.alignment)));

  std::string msg =
      p.model + " does not fit in DDR with max_tokens " + grouped(p.max_tokens) + ": ";
  for (std::size_t i = 0; i < terms.size(); ++i) msg += (i ? " + " : "") + terms[i];
  msg += " = " + big(total) + " > " + grouped(p.ddr_size) + " (" + size_key + ")";
  throw ddr_plan_error(msg);
}

}  // namespace

uint64_t planned_matrix::row_addr(uint32_t n) const {
  const uint32_t f_count = static_cast<uint32_t>(parts.size());
  if (n >= shape.rows) throw std::out_of_range(shape.name + ": no row " + std::to_string(n));
  return parts[n % f_count].addr + uint64_t(n / f_count) * record_bytes;
}

const region& ddr_plan::find(const std::string& name) const {
  for (const auto& r : regions)
    if (r.name == name) return r;
  throw std::out_of_range("DDR plan has no region \"" + name + "\"");
}

const planned_matrix& ddr_plan::matrix(int32_t layer, const std::string& name) const {
  for (const auto& pm : matrices)
    if (pm.shape.layer == layer && pm.shape.name == name) return pm;
  throw std::out_of_range("DDR plan has no matrix \"" + name + "\" in layer " +
                          std::to_string(layer));
}

ddr_plan::kv_location ddr_plan::kv_of(const model_config& m, uint32_t layer) const {
  if (layer >= m.layers)
    throw std::out_of_range("layer " + std::to_string(layer) + " is beyond the model's " +
                            std::to_string(m.layers));
  const uint32_t source = m.kv_source(layer);
  for (const auto& g : kv_rings)
    for (std::size_t i = 0; i < g.layers.size(); ++i)
      if (g.layers[i] == source) return {&g, static_cast<uint32_t>(i)};
  throw std::out_of_range("layer " + std::to_string(layer) + " has no KV ring");
}

uint64_t ddr_plan::ple_row_addr(const model_config& m, uint32_t token) const {
  if (token >= m.per_layer_input.vocab || !m.has_ple())
    throw std::out_of_range("token " + std::to_string(token) + " has no per-layer embedding row");
  return find("ple_table").base + uint64_t(token) * ple_row_bytes(m);
}

uint64_t ddr_plan::embedding_row_addr(const model_config& m, uint32_t token) const {
  if (token >= m.vocab)
    throw std::out_of_range("token " + std::to_string(token) + " is outside the vocabulary");
  if (m.tie_embeddings) return matrix(-1, "lm_head").row_addr(token);
  return find("embedding").base + uint64_t(token) * embedding_row_bytes(m);
}

uint64_t ddr_plan::category_bytes(const std::string& category) const {
  uint64_t total = 0;
  for (const auto& r : regions)
    if (r.category == category) total = add_sat(total, align_up(r.bytes, alignment));
  return total;
}

ring_view ring_of(const model_config& m, uint32_t layer, uint32_t ring_cap, uint32_t sinks,
                  uint32_t window_extra) {
  const uint32_t window = m.attention.sliding_window;
  if (m.is_global(layer) || window == 0 || window >= ring_cap) return {ring_cap, sinks, 0};
  const uint32_t cap =
      static_cast<uint32_t>(std::min<uint64_t>(uint64_t{window} + window_extra, ring_cap));
  return {cap, 0, cap > window ? window : 0};
}

std::vector<uint32_t> ring_valid_positions(uint32_t n, const ring_view& r) {
  if (r.sinks >= r.cap)
    throw std::invalid_argument("ring of " + std::to_string(r.cap) + " records cannot keep " +
                                std::to_string(r.sinks) + " sinks (sinks must be below the cap)");
  std::vector<uint32_t> out;
  for (uint32_t p = 0; p < std::min(r.sinks, n); ++p) out.push_back(p);
  uint32_t reach = r.cap - r.sinks;
  if (r.window != 0) reach = std::min(reach, r.window);
  const uint32_t first = std::max(r.sinks, n > reach ? n - reach : 0u);
  for (uint32_t p = first; p < n; ++p) out.push_back(p);
  return out;
}

ddr_plan plan_ddr(const model_config& m, const kv_formats& kv, uint32_t max_tokens,
                  uint64_t ddr_base, uint64_t ddr_size, const plan_options& options) {
  const std::string problem = check_kv_formats(m, kv);
  if (!problem.empty()) throw std::invalid_argument(m.name + ": " + problem);
  if (max_tokens == 0) throw std::invalid_argument("max_tokens must be at least 1");
  if (options.weight_streams == 0) throw std::invalid_argument("weight_streams must be at least 1");
  if (options.alignment < 16 || (options.alignment & (options.alignment - 1)) != 0)
    throw std::invalid_argument("alignment must be a power of two of at least 16, found " +
                                std::to_string(options.alignment));

  ddr_plan p;
  p.model = m.name;
  p.ddr_base = ddr_base;
  p.ddr_size = ddr_size;
  p.alignment = options.alignment;
  p.weight_streams = options.weight_streams;
  p.max_tokens = max_tokens;
  layout lay(p);

  for (const auto& s : all_matrices(m)) add_matrix(p, lay, m, s);

  if (!m.tie_embeddings)
    lay.add("embedding", "tables", embedding_table_bytes(m),
            grouped(m.vocab) + " x " + grouped(embedding_row_bytes(m)));
  if (m.has_ple())
    lay.add("ple_table", "tables", ple_table_bytes(m),
            grouped(m.per_layer_input.vocab) + " x " + grouped(ple_row_bytes(m)));

  const uint64_t vectors_base = lay.add("parameters", "parameters", vector_param_bytes(m),
                                        grouped(vector_params(m).size()) + " BF16 vectors")
                                    .base;
  uint64_t at = vectors_base;
  for (const auto& v : vector_params(m)) {
    p.vectors.push_back({v, at});
    at += (kBf16Bytes * v.elements + 15) / 16 * 16;
  }

  p.window_extra = options.window_extra;
  p.kv_rings = ring_groups(m, kv, max_tokens, options.window_extra);
  for (auto& g : p.kv_rings) g.base = lay.add(g.name, "kv", g.bytes, ring_formula(g)).base;

  const uint64_t scratch = options.activation_scratch_bytes != 0
                               ? options.activation_scratch_bytes
                               : derived_scratch(m, max_tokens, options.l2_words);
  lay.add("activations", "scratch", scratch,
          options.activation_scratch_bytes != 0 ? "set by plan_options" : "derived");
  if (options.prefill_staging_bytes != 0)
    lay.add("prefill_staging", "scratch", options.prefill_staging_bytes, "prefill chunk rows");
  lay.add("logits", "host", kBf16Bytes * m.vocab, grouped(m.vocab) + " x 2");

  p.end = lay.cursor();
  const uint64_t total = p.end == kMax ? kMax : p.end - ddr_base;
  if (total > ddr_size) fail(p, total, options.ddr_size_key);
  for (const auto& g : p.kv_rings) {
    const uint64_t stream = uint64_t(g.max_tokens) * std::max(g.k_record_bytes, g.v_record_bytes);
    if (stream > kStreamMax)
      throw ddr_plan_error(
          m.name + ": one KV stream of " + g.name + " is " + grouped(g.max_tokens) + " x " +
          grouped(std::max(g.k_record_bytes, g.v_record_bytes)) + " = " + grouped(stream) +
          " bytes, more than one DMA descriptor carries (" + grouped(kStreamMax) + ")");
  }
  return p;
}

kv_formats kv_formats_of(const model_config& m, const config::platform_config& platform) {
  return {config::to_kv_format(platform.npu.kv.key, m.attention.head_dim),
          config::to_kv_format(platform.npu.kv.value, m.attention.head_dim)};
}

ddr_plan plan_ddr(const model_config& m, const config::platform_config& platform,
                  uint32_t max_tokens, uint32_t window_extra, uint64_t prefill_staging_bytes) {
  const auto& gemv = platform.npu.gemv;
  if (m.weights.scales && gemv.scale_group != m.weights.scale_group)
    throw std::invalid_argument(
        m.name + ": weights.scale_group " + std::to_string(m.weights.scale_group) +
        " differs from the platform's npu.gemv.scale_group " + std::to_string(gemv.scale_group));
  const kv_formats kv = kv_formats_of(m, platform);
  plan_options o;
  o.weight_streams = static_cast<uint32_t>(gemv.weight_fifos.size());
  o.l2_words = platform.npu.l2.words;
  o.window_extra = window_extra;
  o.prefill_staging_bytes = prefill_staging_bytes;
  return plan_ddr(m, kv, max_tokens, platform.memory_map.ddr_base, platform.memory_map.ddr_size, o);
}

uint32_t largest_fitting_cap(const model_config& m, const kv_formats& kv, uint64_t ddr_base,
                             uint64_t ddr_size, const plan_options& options) {
  auto fits = [&](uint32_t cap) {
    try {
      plan_ddr(m, kv, cap, ddr_base, ddr_size, options);
      return true;
    } catch (const ddr_plan_error&) {
      return false;
    }
  };
  // The footprint grows with the cap, so the fitting caps are a prefix.
  uint32_t lo = 0, hi = std::numeric_limits<uint32_t>::max();
  if (fits(hi)) return hi;
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

namespace {

std::string hex(uint64_t v) {
  return config::detail::hex_text(v);
}

std::string row(const std::vector<std::string>& cells) {
  std::string out = "|";
  for (const auto& c : cells) out += " " + c + " |";
  return out + "\n";
}

}  // namespace

std::string plan_summary_markdown(const ddr_plan& p) {
  std::string t =
      "| Region | Base | Bytes | Footprint | Contents |\n"
      "|---|---|---:|---:|---|\n";
  // Matrices in three runs: before the layers, the layers, after them.
  struct run {
    std::string label;
    uint64_t base = 0, bytes = 0, footprint = 0;
    uint32_t count = 0;
  };
  std::vector<run> runs(3);
  runs[0].label = "matrices before the layers";
  runs[1].label = "matrices of the layers";
  runs[2].label = "matrices after the layers";
  bool seen_layer = false;
  for (const auto& r : p.regions) {
    if (r.category != "weights") continue;
    seen_layer = seen_layer || r.layer >= 0;
    run& u = r.layer >= 0 ? runs[1] : seen_layer ? runs[2] : runs[0];
    if (u.count++ == 0) u.base = r.base;
    u.bytes += r.bytes;
    u.footprint += align_up(r.bytes, p.alignment);
  }
  for (const auto& u : runs) {
    if (u.count == 0) continue;
    t += row({u.label, hex(u.base), grouped(u.bytes), grouped(u.footprint),
              grouped(u.count) + " matrices of INT4 row records"});
  }
  for (const auto& r : p.regions) {
    if (r.category == "weights") continue;
    std::string contents = r.category;
    if (!r.formula.empty()) contents += ": " + r.formula;
    t += row({"`" + r.name + "`", hex(r.base), grouped(r.bytes),
              grouped(align_up(r.bytes, p.alignment)), contents});
  }
  const uint64_t used = p.end - p.ddr_base;
  t += row({"**total**", hex(p.ddr_base), "", "**" + grouped(used) + "**",
            "of " + grouped(p.ddr_size) + " (" + grouped(p.ddr_size - used) + " free)"});
  return t;
}

std::string plan_regions_markdown(const ddr_plan& p, const std::vector<int32_t>& layers) {
  std::string t = "| Matrix | N x K | Record B | Base | Bytes |";
  std::string rule = "|---|---|---:|---|---:|";
  for (uint32_t f = 0; f < p.weight_streams; ++f) {
    t += " Part " + std::to_string(f) + " (rows " + std::to_string(f) + " mod " +
         std::to_string(p.weight_streams) + ") |";
    rule += "---|";
  }
  t += "\n" + rule + "\n";
  for (const auto& pm : p.matrices) {
    if (std::find(layers.begin(), layers.end(), pm.shape.layer) == layers.end()) continue;
    std::vector<std::string> cells = {
        "`" + matrix_region_name(pm.shape) + "`" + (pm.shape.by_unit ? " (by unit)" : ""),
        grouped(pm.shape.rows) + " x " + grouped(pm.shape.cols), grouped(pm.record_bytes),
        hex(pm.base), grouped(pm.bytes)};
    for (const auto& part : pm.parts)
      cells.push_back(hex(part.addr) + ", " + grouped(part.rows) + " rows");
    t += row(cells);
  }
  return t;
}

}  // namespace pccx::llm
