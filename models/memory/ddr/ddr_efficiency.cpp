#include "models/memory/ddr/ddr_efficiency.h"

#include <algorithm>
#include <stdexcept>

namespace pccx::mem {

ddr_efficiency derive_efficiency(const config::ddr_config& p) {
  if (p.data_rate_mtps == 0 || p.bus_bits < 8 || p.burst_length < 2 || p.page_bytes == 0)
    throw std::invalid_argument("DDR efficiency: data rate, bus width, burst and page must be > 0");
  if (!(p.timing.trefi_ns > p.timing.trfc_ns))
    throw std::invalid_argument("DDR efficiency: tREFI must be longer than tRFC");

  ddr_efficiency e;
  e.model = p.model;
  e.tck_ns = 2000.0 / p.data_rate_mtps;  // two transfers per clock
  const double bus_bytes = p.bus_bits / 8.0;
  e.peak_bytes_per_s = p.data_rate_mtps * 1e6 * bus_bytes;

  // A burst occupies BL/2 clocks of data bus; back-to-back bursts to
  // alternating bank groups can start every tCCD_S clocks.
  const double burst_tck = p.burst_length / 2.0;
  const double burst_factor = burst_tck / std::max(burst_tck, static_cast<double>(p.timing.tccd_s));
  const double stream_bytes_per_ns = e.peak_bytes_per_s * 1e-9 * burst_factor;

  e.page_transfer_ns = p.page_bytes / stream_bytes_per_ns;
  e.row_switch_ns = p.row_switch_exposed * (p.timing.trp + p.timing.trcd) * e.tck_ns;

  // Mixed traffic: a read batch and a write batch, then back.
  e.batch_ns = 2.0 * p.rw_batch_bytes / stream_bytes_per_ns;
  e.write_to_read_tck = p.timing.cwl + p.burst_length / 2 + p.timing.twtr_l;
  const int64_t r2w = static_cast<int64_t>(p.timing.cl) - static_cast<int64_t>(p.timing.cwl) +
                      static_cast<int64_t>(p.burst_length / 2) + 2;
  e.read_to_write_tck = static_cast<uint32_t>(std::max<int64_t>(0, r2w));
  e.turnaround_ns = (e.write_to_read_tck + e.read_to_write_tck) * e.tck_ns;
  e.mixed_factor = e.batch_ns / (e.batch_ns + e.turnaround_ns);

  if (e.model == efficiency_model::fixed) {
    e.fixed_factor = p.fixed_efficiency;
  } else {
    e.refresh_factor = 1.0 - p.timing.trfc_ns / p.timing.trefi_ns;
    e.burst_factor = burst_factor;
    e.row_switch_factor = e.page_transfer_ns / (e.page_transfer_ns + e.row_switch_ns);
    e.controller_factor = p.controller_efficiency;
    e.interconnect_factor = p.interconnect_efficiency;
  }
  e.effective_bytes_per_s = e.peak_bytes_per_s * e.refresh_factor * e.burst_factor *
                            e.row_switch_factor * e.controller_factor * e.interconnect_factor *
                            e.fixed_factor;
  return e;
}

nlohmann::ordered_json to_json(const ddr_efficiency& e) {
  nlohmann::ordered_json j;
  j["model"] = config::enum_name(e.model);
  j["tck_ns"] = e.tck_ns;
  j["peak_gbps"] = e.peak_bytes_per_s / 1e9;
  j["refresh_factor"] = e.refresh_factor;
  j["burst_factor"] = e.burst_factor;
  j["page_transfer_ns"] = e.page_transfer_ns;
  j["row_switch_ns"] = e.row_switch_ns;
  j["row_switch_factor"] = e.row_switch_factor;
  j["controller_factor"] = e.controller_factor;
  j["interconnect_factor"] = e.interconnect_factor;
  j["fixed_factor"] = e.fixed_factor;
  j["efficiency"] = e.efficiency();
  j["effective_gbps"] = e.effective_bytes_per_s / 1e9;
  j["batch_ns"] = e.batch_ns;
  j["write_to_read_tck"] = e.write_to_read_tck;
  j["read_to_write_tck"] = e.read_to_write_tck;
  j["turnaround_ns"] = e.turnaround_ns;
  j["mixed_factor"] = e.mixed_factor;
  j["mixed_gbps"] = e.mixed_bytes_per_s() / 1e9;
  return j;
}

}  // namespace pccx::mem
