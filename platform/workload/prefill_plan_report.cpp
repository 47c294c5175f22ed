#include "platform/workload/prefill_plan_report.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

#include "models/memory/ddr/ddr_capacity.h"
#include "platform/workload/decode_runner.h"

namespace pccx::workload {

namespace {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string layer_name(int32_t layer) {
  return layer < 0 ? "-" : std::to_string(layer);
}

// The layers the text shows: the first of each (storing, global) kind;
// every layer of a kind has the same shapes.
std::set<int32_t> first_of_each_kind(const llm::model_config& m) {
  std::set<std::pair<bool, bool>> kinds;
  std::set<int32_t> first;
  for (uint32_t l = 0; l < m.layers; ++l)
    if (kinds.insert({m.stores_kv(l), m.is_global(l)}).second)
      first.insert(static_cast<int32_t>(l));
  return first;
}

std::string kind_of(const llm::model_config& m, int32_t layer) {
  if (layer < 0) return "entry";
  const auto l = static_cast<uint32_t>(layer);
  return std::string(m.is_global(l) ? "global" : "local") + (m.stores_kv(l) ? "" : " KV-sharing");
}

std::vector<layer_kind_share> by_layer_kind(const llm::model_config& m,
                                            const prefill_plan_report& r) {
  std::vector<layer_kind_share> out;
  std::set<int32_t> seen;
  for (const auto& pm : r.plan.matrices) {
    const std::string kind = kind_of(m, pm.shape.layer);
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& k) { return k.kind == kind; });
    if (it == out.end()) it = out.insert(out.end(), layer_kind_share{kind});
    if (pm.shape.layer >= 0 && seen.insert(pm.shape.layer).second) ++it->layers;
    it->stream_bytes += pm.stream_bytes;
    it->macs += uint64_t{r.plan.chunk} * pm.passes * pm.shape.macs();
  }
  for (auto& k : out) {
    k.memory_s = static_cast<double>(k.stream_bytes) / r.ddr_bytes_per_second;
    k.compute_s = static_cast<double>(k.macs) / r.gemm_macs_per_second;
  }
  return out;
}

}  // namespace

prefill_plan_report plan_prefill_on(const config::platform_config& cfg, const llm::model_config& m,
                                    const llm::prefill_options& o) {
  const llm::kv_formats kvf = llm::kv_formats_of(m, cfg);
  const std::string problem = llm::check_kv_formats(m, kvf);
  if (!problem.empty()) throw std::invalid_argument(problem);
  prefill_plan_report r;
  decode_options d;
  d.context = 0;
  d.prompt_tokens = o.prompt;
  d.tokens = o.generated;
  d.ring_cap = o.ring_cap;
  d.sinks = o.sinks;
  r.program_chunk_limit = prefill_chunk_limit(cfg, m, d);
  llm::prefill_options po = o;
  if (po.chunk == 0) po.chunk = std::min(r.program_chunk_limit, po.prompt);
  r.plan = llm::plan_prefill(m, kvf, po, cfg.npu.gemm);
  // A chunk's rows attend up to chunk - 1 keys older than its last row's
  // window, so the window rings hold them too.
  r.ddr = llm::plan_ddr(m, cfg, r.plan.ring_cap, r.plan.chunk - 1);
  r.query_tiles = prefill_query_tiles(cfg, m, d, r.plan.chunk);
  r.ddr_bytes_per_second = mem::derive_capacity(cfg.ddr).effective_bytes_per_s;
  r.gemm_macs_per_second = llm::gemm_peak_macs_per_second(cfg.clocks.core_mhz * 1e6);
  r.layer_kinds = by_layer_kind(m, r);
  llm::roofline_inputs in;
  in.ddr_bytes_per_second = r.ddr_bytes_per_second;
  in.macs_per_second = r.gemm_macs_per_second;
  r.bound = llm::prefill_roofline(r.plan, in);
  return r;
}

std::string prefill_plan_report::text(const llm::model_config& m) const {
  const llm::prefill_plan& p = plan;
  using llm::grouped;
  std::ostringstream s;
  s << "prefill plan: " << m.name << ", P = " << grouped(p.options.prompt) << " prompt tokens\n";
  s << "  chunk: " << grouped(p.chunk) << " rows of at most " << grouped(p.chunk_limit)
    << " (npu.gemm.act_buffer_bytes " << grouped(p.gemm.act_buffer_bytes)
    << " over the widest K-part; the decode program's L2 and GD_MAX_CHUNK take "
    << grouped(program_chunk_limit) << "), " << grouped(p.chunks)
    << " chunks: every matrix's weights are streamed " << grouped(p.chunks) << " times\n";
  s << "  GEMM instructions: " << grouped(p.gemm_instructions) << " a chunk, "
    << grouped(p.gemm_instructions * p.chunks) << " in all\n";
  s << "  KV rings:";
  for (const auto& g : ddr.kv_rings) {
    s << " " << g.name << " " << grouped(g.max_tokens) << " records";
    if (g.window != 0)
      s << " (window " << grouped(g.window) << " + " << grouped(p.chunk - 1) << ")";
    s << ",";
  }
  s << " " << p.options.sinks << " sinks" << (p.options.evict ? ", eviction allowed" : "")
    << "; DDR " << fixed((ddr.end - ddr.ddr_base) / 1e6, 1) << " of "
    << fixed(ddr.ddr_size / 1e6, 1) << " MB used\n";
  s << "  attention: query tiles of the last whole chunk:";
  for (size_t i = 0; i < query_tiles.size(); ++i)
    s << (i ? "," : "") << " " << query_tiles[i].ring << " " << grouped(query_tiles[i].rows)
      << (query_tiles[i].rows == 1 ? " row" : " rows") << " on a stream of "
      << grouped(query_tiles[i].span) << " records";
  s << "\n";
  s << "  DDR: weights " << fixed(p.weight_bytes / 1e6, 1) << " MB, KV read "
    << fixed(p.kv_read_bytes / 1e6, 1) << " MB (at least), KV write "
    << fixed(p.kv_write_bytes / 1e6, 1) << " MB\n";
  s << "  MACs: " << fixed(p.gemm_macs / 1e9, 1) << " G on the GEMM array, "
    << fixed(p.gemv_macs / 1e9, 2) << " G on the GEMV (the last token's), "
    << fixed(p.attention_macs / 1e9, 1) << " G of attention\n";
  s << "  bound: " << fixed(bound.bound_seconds * 1e3, 1) << " ms, "
    << (bound.memory_bound ? "memory" : "compute") << "-bound (bytes "
    << fixed(bound.memory_seconds * 1e3, 1) << " ms at " << fixed(ddr_bytes_per_second / 1e9, 3)
    << " GB/s, MACs " << fixed(bound.compute_seconds * 1e3, 1) << " ms at "
    << fixed(gemm_macs_per_second / 1e9, 1) << " GMAC/s)\n";
  s << "  a chunk's GEMMs per layer kind (weights at the bandwidth, MACs at the peak):\n";
  for (const auto& k : layer_kinds)
    s << "    " << k.kind << (k.layers ? " (" + grouped(k.layers) + " layers)" : "") << ": "
      << fixed(k.stream_bytes / 1e6, 1) << " MB in " << fixed(k.memory_s * 1e3, 2) << " ms, "
      << fixed(k.macs / 1e9, 1) << " G MACs in " << fixed(k.compute_s * 1e3, 2)
      << " ms: " << (k.memory_s >= k.compute_s ? "weight-bound" : "compute-bound") << "\n";
  s << "  matrix            layer  N x K               K parts        group  stream MB a chunk\n";
  const std::set<int32_t> shown = first_of_each_kind(m);
  for (const auto& pm : p.matrices) {
    if (pm.shape.layer >= 0 && shown.count(pm.shape.layer) == 0) continue;
    char line[200];
    const std::string nk = grouped(pm.shape.rows) + " x " + grouped(pm.shape.cols);
    const std::string parts = std::to_string(pm.k_parts) + " x " + grouped(pm.k_part);
    std::snprintf(line, sizeof line, "  %-17s %-6s %-19s %-14s %-6u %.3f\n", pm.shape.name.c_str(),
                  layer_name(pm.shape.layer).c_str(), nk.c_str(), parts.c_str(), pm.group,
                  pm.stream_bytes / 1e6);
    s << line;
  }
  s << "  (one layer of each kind shown; every layer of a kind alike)\n";
  return s.str();
}

nlohmann::json prefill_plan_report::json(const llm::model_config& m) const {
  const llm::prefill_plan& p = plan;
  nlohmann::json j;
  j["model"] = m.name;
  j["prompt_tokens"] = p.options.prompt;
  j["generated_tokens"] = p.options.generated;
  j["chunk"] = p.chunk;
  j["chunk_limit"] = p.chunk_limit;
  j["program_chunk_limit"] = program_chunk_limit;
  j["chunks"] = p.chunks;
  j["ring_cap"] = p.ring_cap;
  j["sinks"] = p.options.sinks;
  j["evict"] = p.options.evict;
  nlohmann::json rings = nlohmann::json::array();
  for (const auto& g : ddr.kv_rings)
    rings.push_back({{"name", g.name}, {"records", g.max_tokens}, {"window", g.window}});
  j["kv_rings"] = std::move(rings);
  nlohmann::json tiles = nlohmann::json::array();
  for (const auto& t : query_tiles)
    tiles.push_back({{"ring", t.ring}, {"rows", t.rows}, {"span", t.span}});
  j["query_tiles"] = std::move(tiles);
  j["ddr_bytes_used"] = ddr.end - ddr.ddr_base;
  j["gemm_instructions_per_chunk"] = p.gemm_instructions;
  j["bytes"] = {
      {"weights", p.weight_bytes}, {"kv_read", p.kv_read_bytes}, {"kv_write", p.kv_write_bytes}};
  j["macs"] = {{"gemm", p.gemm_macs}, {"gemv", p.gemv_macs}, {"attention", p.attention_macs}};
  j["bound"] = {{"seconds", bound.bound_seconds},
                {"memory_seconds", bound.memory_seconds},
                {"compute_seconds", bound.compute_seconds},
                {"memory_bound", bound.memory_bound},
                {"ddr_bytes_per_second", ddr_bytes_per_second},
                {"gemm_macs_per_second", gemm_macs_per_second}};
  nlohmann::json kinds = nlohmann::json::array();
  for (const auto& k : layer_kinds)
    kinds.push_back({{"kind", k.kind},
                     {"layers", k.layers},
                     {"stream_bytes_per_chunk", k.stream_bytes},
                     {"gemm_macs_per_chunk", k.macs},
                     {"memory_seconds", k.memory_s},
                     {"compute_seconds", k.compute_s},
                     {"weight_bound", k.memory_s >= k.compute_s}});
  j["layer_kinds"] = std::move(kinds);
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& pm : p.matrices)
    rows.push_back({{"name", pm.shape.name},
                    {"layer", pm.shape.layer},
                    {"n", pm.shape.rows},
                    {"k", pm.shape.cols},
                    {"k_parts", pm.k_parts},
                    {"k_part", pm.k_part},
                    {"group", pm.group},
                    {"stream_bytes_per_chunk", pm.stream_bytes},
                    {"weight_passes", p.chunks}});
  j["matrices"] = std::move(rows);
  return j;
}

}  // namespace pccx::workload
