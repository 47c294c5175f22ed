#include "models/memory/ddr/ddr_capacity.h"

#include <algorithm>

#include "models/memory/ddr/dram/dram_timing.h"

namespace pccx::mem {

ddr_capacity derive_capacity(const config::ddr_config& c) {
  const dram_timing t = dram_timing::of(c);
  ddr_capacity k;
  k.model = c.model;
  k.tck_ns = t.tck_ns;
  k.peak_bytes_per_s = t.peak_bytes_per_s();
  k.refresh_factor = 1.0 - c.timing.trfc_ns / c.timing.trefi_ns;
  k.dram_stream_bytes_per_s = k.peak_bytes_per_s * k.refresh_factor;
  k.queue_bytes = uint64_t{c.controller.queue_entries} * t.burst_bytes;
  k.loaded_latency_ns = c.controller.read_latency_ns + t.ns(uint64_t{t.rcd} + t.cl + t.burst);
  k.little_bytes_per_s = static_cast<double>(k.queue_bytes) / (k.loaded_latency_ns * 1e-9);
  if (c.model == config::dram_model::fixed) {
    k.fixed_factor = c.fixed_efficiency;
    k.effective_bytes_per_s = k.peak_bytes_per_s * c.fixed_efficiency;
  } else {
    k.effective_bytes_per_s = std::min(k.little_bytes_per_s, k.dram_stream_bytes_per_s);
  }
  return k;
}

nlohmann::ordered_json to_json(const ddr_capacity& k) {
  nlohmann::ordered_json j;
  j["model"] = config::enum_name(k.model);
  j["tck_ns"] = k.tck_ns;
  j["peak_gbps"] = k.peak_bytes_per_s / 1e9;
  j["refresh_factor"] = k.refresh_factor;
  j["dram_stream_gbps"] = k.dram_stream_bytes_per_s / 1e9;
  j["queue_bytes"] = k.queue_bytes;
  j["loaded_latency_ns"] = k.loaded_latency_ns;
  j["little_gbps"] = k.little_bytes_per_s / 1e9;
  j["fixed_factor"] = k.fixed_factor;
  j["efficiency"] = k.efficiency();
  j["effective_gbps"] = k.effective_bytes_per_s / 1e9;
  return j;
}

}  // namespace pccx::mem
