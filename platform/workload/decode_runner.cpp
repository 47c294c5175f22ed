#include "workload/decode_runner.h"

#include <algorithm>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "npu/units/bf16.h"
#include "pccx_gemma_decode.h"
#include "pccx_host_mem.h"

namespace pccx::workload {

namespace {

void put32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

void put64(std::vector<uint8_t>& b, size_t at, uint64_t v) {
  put32(b, at, static_cast<uint32_t>(v));
  put32(b, at + 4, static_cast<uint32_t>(v >> 32));
}

uint32_t narrow(uint64_t v, const std::string& what) {
  if (v > UINT32_MAX) throw std::invalid_argument(what + " does not fit 32 bits");
  return static_cast<uint32_t>(v);
}

// A matrix entry: the two halves of llm::plan_ddr (F = 2: even rows, odd rows).
void put_matrix(std::vector<uint8_t>& b, size_t at, const llm::planned_matrix& pm) {
  if (pm.parts.size() != 2)
    throw std::invalid_argument(pm.shape.name + ": the decode needs two weight streams, plan has " +
                                std::to_string(pm.parts.size()));
  put64(b, at, pm.parts[0].addr);
  put64(b, at + 8, pm.parts[1].addr);
  put32(b, at + 16, pm.shape.rows);
  put32(b, at + 20, pm.shape.cols);
  put32(b, at + 24, narrow(pm.record_bytes, pm.shape.name + " record"));
  put32(b, at + 28, narrow(pm.parts[0].bytes, pm.shape.name + " even half"));
  put32(b, at + 32, narrow(pm.parts[1].bytes, pm.shape.name + " odd half"));
}

uint64_t vector_addr(const llm::ddr_plan& p, int32_t layer, const std::string& name) {
  for (const auto& v : p.vectors)
    if (v.param.layer == layer && v.param.name == name) return v.addr;
  throw std::out_of_range("no vector " + name + " of layer " + std::to_string(layer));
}

// The program and its block, for the firmware entry below.
std::vector<uint8_t> g_block;
uint64_t g_block_addr = 0;

int host_then_decode(void) {
  // The block goes to DDR like any host data (in timing mode the DDR keeps
  // no bytes, so the program takes the same bytes from the host's memory).
  pccx_host_write(g_block_addr, g_block.data(), static_cast<uint32_t>(g_block.size()));
  return pccx_gemma_decode_run(g_block.data(), static_cast<uint32_t>(g_block.size()));
}

uint64_t counter(const vp::run_result& r, const std::string& name) {
  for (const auto& [n, v] : r.counters)
    if (n == name) return v;
  throw std::out_of_range("no counter " + name);
}

}  // namespace

std::vector<uint8_t> decode_param_block(const llm::model_config& m, const llm::ddr_plan& plan,
                                        const decode_options& o, uint64_t scratch, uint64_t logits,
                                        uint64_t consts) {
  if (plan.kv_rings.empty() || plan.kv_rings.size() > 2)
    throw std::invalid_argument("the decode handles one or two KV ring groups");
  if (o.lm_tile == 0 || o.lm_tile % 8 != 0 || o.lm_tile > 2048)
    throw std::invalid_argument("lm_tile must be a multiple of 8 up to 2048");
  std::vector<uint8_t> b(GD_HEADER_BYTES + size_t(m.layers) * GD_LAYER_BYTES, 0);
  put32(b, 0, GD_MAGIC);
  put32(b, 4, static_cast<uint32_t>(b.size()));
  put32(b, 8, m.layers);
  put32(b, 12, m.hidden);
  put32(b, 16, m.attention.heads);
  put32(b, 20, m.attention.kv_heads);
  put32(b, 24, m.attention.head_dim);
  put32(b, 28, m.vocab);
  put32(b, 32, o.tokens);
  put32(b, 36, o.context);
  put32(b, 40, std::min(o.lm_tile, (m.vocab + 7) / 8 * 8));
  put32(b, 44, static_cast<uint32_t>(plan.kv_rings.size()));
  put32(b, 48, npu::bf16::from_float(static_cast<float>(m.rms_norm_eps)));
  put64(b, 56, scratch);
  put64(b, 64, logits);
  put64(b, 72, consts);
  put64(b, 80, vector_addr(plan, -1, "final_norm"));
  put_matrix(b, GD_OFF_LM_HEAD, plan.matrix(-1, "lm_head"));
  for (size_t r = 0; r < plan.kv_rings.size(); ++r) {
    const auto& g = plan.kv_rings[r];
    const size_t at = GD_OFF_RINGS + r * GD_RING_BYTES;
    put64(b, at, g.base);
    put64(b, at + 8, g.bytes);
    put32(b, at + 16, static_cast<uint32_t>(g.layers.size()));
    put32(b, at + 20, g.max_tokens);
    put32(b, at + 24, g.k_record_bytes);
    put32(b, at + 28, g.v_record_bytes);
    // Sinks on the rings that hold the whole history; a sliding-window
    // ring keeps only the newest tokens, as the model defines it.
    put32(b, at + 32, g.name == "kv.local" ? 0 : o.sinks);
  }
  static const char* const names[7] = {"attn_q",   "attn_k", "attn_v",  "attn_o",
                                       "ffn_gate", "ffn_up", "ffn_down"};
  for (uint32_t l = 0; l < m.layers; ++l) {
    const size_t at = GD_HEADER_BYTES + size_t(l) * GD_LAYER_BYTES;
    const auto loc = plan.kv_of(m, l);
    put32(b, at, m.ffn_of(l));
    put32(b, at + 4, static_cast<uint32_t>(loc.group - plan.kv_rings.data()));
    put32(b, at + 8, loc.index);
    put32(b, at + 12, m.stores_kv(l) ? 1 : 0);
    put64(b, at + 16, vector_addr(plan, int32_t(l), "input_norm"));
    put64(b, at + 24, vector_addr(plan, int32_t(l), "pre_ffn_norm"));
    for (uint32_t k = 0; k < 7; ++k) {
      if ((k == GD_K || k == GD_V) && !m.stores_kv(l)) continue;
      put_matrix(b, at + 32 + k * GD_MATRIX_BYTES, plan.matrix(int32_t(l), names[k]));
    }
  }
  return b;
}

decode_report run_decode(const config::platform_config& base, const llm::model_config& m,
                         const decode_options& opt) {
  decode_options o = opt;
  if (o.ring_cap == 0) o.ring_cap = o.context + o.tokens;
  config::platform_config cfg = base;
  cfg.npu.kv.head_dim = m.attention.head_dim;
  const llm::ddr_plan plan = llm::plan_ddr(m, cfg, o.ring_cap);

  // The block, the RMSNorm constants, the softcap constant and the logits
  // in the activation scratch.
  const llm::region& act = plan.find("activations");
  const uint64_t block_bytes = GD_HEADER_BYTES + uint64_t(m.layers) * GD_LAYER_BYTES;
  const uint64_t scratch = (act.base + block_bytes + 63) & ~uint64_t{63};
  const uint64_t consts = scratch + 32;
  const uint64_t logits = consts + 16;
  if (logits + 2ull * m.vocab > act.base + act.bytes)
    throw std::invalid_argument("the activation scratch is too small for the decode's block");
  g_block = decode_param_block(m, plan, o, scratch, logits, consts);
  g_block_addr = act.base;

  vp::firmware_image fw;
  fw.name = "gemma_decode";
  fw.origin = "decode runner";
  fw.entry = &host_then_decode;
  decode_report rep;
  rep.model = m.name;
  rep.context = o.context;
  rep.tokens = o.tokens;
  rep.ring_cap = o.ring_cap;
  for (const auto& pm : plan.matrices) {
    const std::string& n = pm.shape.name;
    const bool issued = n == "lm_head" || n.rfind("attn_", 0) == 0 || n.rfind("ffn_", 0) == 0;
    if (!issued) {
      rep.omitted_bytes += pm.bytes;
      rep.omitted_macs += pm.shape.macs();
    }
  }
  rep.run = vp::run_simulation(cfg, fw, nullptr);
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
  const llm::kv_formats kvf{config::to_kv_format(cfg.npu.kv.key, m.attention.head_dim),
                            config::to_kv_format(cfg.npu.kv.value, m.attention.head_dim)};
  for (uint32_t t = 0; t < o.tokens; ++t) {
    // A capped ring attends at most ring_cap tokens.
    const uint32_t span = std::min(o.context + 1 + t, o.ring_cap);
    rep.bound.push_back(llm::decode_roofline(m, kvf, span, llm::roofline_inputs{}));
    bound += rep.bound.back().bound_seconds * 1e9;
    lat += rep.latency_ns[t];
  }
  if (lat > 0) rep.achieved_gbps = decode_bytes / lat;
  if (bound > 0) rep.bound_ratio = lat / bound;
  return rep;
}

std::string decode_report::text() const {
  std::ostringstream s;
  s << "decode core (attention + matrices): " << model << ", L = " << context << ", N = " << tokens
    << ", ring cap " << ring_cap << "\n";
  for (size_t t = 0; t < latency_ns.size(); ++t)
    s << "  token " << t << ": " << std::fixed << std::setprecision(1) << latency_ns[t] / 1e3
      << " us, " << (t < instructions.size() ? instructions[t] : 0) << " instructions, bound "
      << std::setprecision(1) << (t < bound.size() ? bound[t].bound_seconds * 1e6 : 0) << " us\n";
  s << std::setprecision(2) << "  GEMV MAC utilisation " << 100 * gemv_utilisation << " %, NPU "
    << 100 * npu_utilisation << " %\n";
  for (const auto& [e, v] : engines)
    s << "  " << e << ": busy " << v.busy << ", stall " << v.stall << ", idle " << v.idle
      << " clocks\n";
  for (const auto& [c, v] : ddr_bytes_per_token)
    s << "  DDR " << c << ": " << std::setprecision(0) << v << " bytes/token\n";
  s << "  not issued: " << omitted_bytes << " matrix bytes, " << omitted_macs
    << " MACs per token\n";
  s << std::setprecision(2) << "  achieved " << achieved_gbps << " GB/s, latency / bound "
    << bound_ratio << ", wall " << wall_time_s << " s\n";
  return s.str();
}

}  // namespace pccx::workload
