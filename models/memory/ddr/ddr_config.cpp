#include "models/memory/ddr/ddr_config.h"

#include <algorithm>

#include "models/memory/ddr/dram/address_map.h"
#include "models/memory/ddr/dram/dram_timing.h"

namespace pccx::config {

std::uint64_t ddr_config::capacity_bytes() const {
  return std::uint64_t{organisation.bank_groups} * organisation.banks_per_group *
         organisation.rows * organisation.columns * (bus_bits / 8);
}

void ddr_config::validate(validator& check) const {
  if (bus_bits % 8 != 0) check.fail("bus_bits", "must be a whole number of bytes");
  for (std::size_t i = 0; i < port_weights.size(); ++i)
    if (!(port_weights[i] > 0.0))
      check.fail("port_weights/" + std::to_string(i), "port weights must be positive");
  if (bus_bits % 8 == 0) {
    const mem::address_map::problem map = mem::address_map::check(*this);
    if (!map.message.empty()) check.fail(map.key, map.message);
  }
  const std::string timing_error = mem::timing_problem(*this);
  if (!timing_error.empty()) check.fail("timing", timing_error);
  const double piece_ns = 256.0 * std::max(burst_length / 2, timing.tccd_l) * tck_ns();
  if (timing.trefi_ns <= timing.trfc_ns + piece_ns && timing.trfc_ns < timing.trefi_ns)
    check.fail({"timing/trefi_ns", "timing/trfc_ns"},
               "trefi_ns " + std::to_string(timing.trefi_ns) + " leaves less than 256 bursts (" +
                   std::to_string(piece_ns) + " ns) between refresh windows of trfc_ns " +
                   std::to_string(timing.trfc_ns));
  if (write_buffer.high_watermark > write_buffer.entries)
    check.fail({"write_buffer/high_watermark", "write_buffer/entries"},
               "high_watermark " + std::to_string(write_buffer.high_watermark) +
                   " is more than the buffer's " + std::to_string(write_buffer.entries) +
                   " entries");
  if (write_buffer.low_watermark >= write_buffer.high_watermark)
    check.fail({"write_buffer/low_watermark", "write_buffer/high_watermark"},
               "low_watermark " + std::to_string(write_buffer.low_watermark) +
                   " must be below high_watermark " + std::to_string(write_buffer.high_watermark));
}

}  // namespace pccx::config
