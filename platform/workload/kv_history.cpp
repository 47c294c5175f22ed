#include "platform/workload/kv_history.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "models/kv/kv_codec.h"

namespace pccx::workload {

namespace {

std::string driver_error(const std::string& what, int code) {
  return "kv_history: " + what + ": " + pccx_kv_strerror(code);
}

}  // namespace

kv_history::kv_history(const llm::model_config& m, const llm::ddr_plan& plan,
                       const llm::kv_formats& formats, uint32_t context, uint32_t sinks,
                       uint64_t seed)
    : m_(m), plan_(plan), formats_(formats), context_(context), sinks_(sinks), seed_(seed) {
  const std::string problem = llm::check_kv_formats(m, formats);
  if (!problem.empty()) throw std::invalid_argument("kv_history: " + problem);
  for (const auto* f : {&formats.key, &formats.value})
    if ((f->kind == kv::kv_kind::int8 || f->kind == kv::kv_kind::int4) && f->group == 0)
      throw std::invalid_argument(
          "kv_history: " + f->name() +
          " has no stored scale (the driver's static scales are not modelled); use a grouped "
          "format");
  for (size_t g = 0; g < plan.kv_rings.size(); ++g) {
    const auto& grp = plan.kv_rings[g];
    if (grp.k_record_bytes != formats.key.record_bytes() ||
        grp.v_record_bytes != formats.value.record_bytes())
      throw std::invalid_argument("kv_history: ring " + grp.name + " holds records of " +
                                  std::to_string(grp.k_record_bytes) + " + " +
                                  std::to_string(grp.v_record_bytes) + " bytes, the formats " +
                                  formats.key.name() + " / " + formats.value.name() + " need " +
                                  std::to_string(formats.key.record_bytes()) + " + " +
                                  std::to_string(formats.value.record_bytes()));
    const llm::ring_view r =
        llm::ring_of(m, grp.layers.front(), plan.max_tokens, sinks, plan.window_extra);
    if (r.cap != grp.max_tokens || r.window != grp.window)
      throw std::invalid_argument(
          "kv_history: ring " + grp.name + " has " + std::to_string(grp.max_tokens) +
          " records (window " + std::to_string(grp.window) + "), the model's rule " +
          std::to_string(r.cap) + " (window " + std::to_string(r.window) + ")");
    handle(g);  // the driver's checks
  }
}

void kv_history::vector(uint32_t layer, uint32_t head, uint32_t pos, bool is_value,
                        float* out) const {
  const uint32_t d = m_.attention.head_dim;
  llm::synthetic_rng rng(
      llm::synthetic_key(seed_, is_value ? "kv:value" : "kv:key", layer, head, pos));
  std::vector<double> x(d);
  double sum = 0;
  for (double& v : x) {
    v = rng.normal();
    sum += v * v;
  }
  const double inv = is_value ? 1.0 / std::sqrt(sum / d + m_.rms_norm_eps) : 1.0;
  for (uint32_t i = 0; i < d; ++i) out[i] = static_cast<float>(x[i] * inv);
}

std::vector<float> kv_history::vector(uint32_t layer, uint32_t head, uint32_t pos,
                                      bool is_value) const {
  std::vector<float> out(m_.attention.head_dim);
  vector(layer, head, pos, is_value, out.data());
  return out;
}

llm::kv_history_fn kv_history::history() const {
  return [this](uint32_t layer, uint32_t head, uint32_t pos, bool is_value, float* out) {
    vector(layer, head, pos, is_value, out);
  };
}

uint32_t kv_history::sinks_of(size_t group) const {
  const auto& grp = plan_.kv_rings.at(group);
  return llm::ring_of(m_, grp.layers.front(), plan_.max_tokens, sinks_, plan_.window_extra).sinks;
}

pccx_kv_handle kv_history::handle(size_t group) const {
  const auto& grp = plan_.kv_rings.at(group);
  pccx_kv_handle h;
  pccx_kv_configure(&h, static_cast<uint32_t>(grp.layers.size()), grp.kv_heads, grp.k_record_bytes,
                    grp.v_record_bytes, grp.base, grp.bytes);
  int r = pccx_kv_set_sinks(&h, sinks_of(group));
  if (r != PCCX_KV_OK) throw std::invalid_argument(driver_error(grp.name + " sinks", r));
  r = pccx_kv_set_window(&h, grp.window);
  if (r != PCCX_KV_OK) throw std::invalid_argument(driver_error(grp.name + " window", r));
  r = pccx_kv_init(&h, grp.max_tokens);
  if (r != PCCX_KV_OK) throw std::invalid_argument(driver_error(grp.name + " init", r));
  // As the decode program (gemma_decode/block.c): the ring already holds the context.
  h.appended = context_;
  return h;
}

std::vector<uint32_t> kv_history::valid_positions(size_t group, uint32_t n) const {
  const auto& grp = plan_.kv_rings.at(group);
  return llm::ring_valid_positions(n, {grp.max_tokens, sinks_of(group), grp.window});
}

std::vector<llm::blob> kv_history::blobs() const {
  const kv::kv_codec kc(formats_.key), vc(formats_.value);
  std::vector<float> x(m_.attention.head_dim);
  std::vector<llm::blob> out;
  for (size_t g = 0; g < plan_.kv_rings.size(); ++g) {
    const auto& grp = plan_.kv_rings[g];
    const pccx_kv_handle h = handle(g);
    std::vector<std::pair<uint64_t, std::vector<uint8_t>>> records;
    for (uint32_t pos : valid_positions(g, context_))
      for (uint32_t index = 0; index < grp.layers.size(); ++index)
        for (uint32_t head = 0; head < grp.kv_heads; ++head)
          for (int is_value = 0; is_value < 2; ++is_value) {
            uint64_t addr = 0;
            const int r = pccx_kv_slot_addr(&h, index, head, is_value, pos, &addr);
            if (r != PCCX_KV_OK)
              throw std::logic_error(driver_error(grp.name + " position " + std::to_string(pos) +
                                                      " is not in the driver's valid set",
                                                  r));
            const kv::kv_codec& c = is_value ? vc : kc;
            vector(grp.layers[index], head, pos, is_value != 0, x.data());
            std::vector<uint8_t> rec(c.format().record_bytes());
            c.encode(x.data(), rec.data());
            records.emplace_back(addr, std::move(rec));
          }
    // Adjacent records of one ring group become one blob (never across
    // groups, so each blob lies in one ring region).
    std::sort(records.begin(), records.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    const size_t first = out.size();
    for (auto& [addr, bytes] : records) {
      if (out.size() > first && out.back().addr + out.back().bytes.size() == addr) {
        out.back().bytes.insert(out.back().bytes.end(), bytes.begin(), bytes.end());
      } else {
        out.push_back({addr, std::move(bytes)});
      }
    }
  }
  return out;
}

}  // namespace pccx::workload
