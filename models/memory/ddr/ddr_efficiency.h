// Effective DDR bandwidth derived from the DRAM timing, and every factor that
// went into it, so a summary can show where the bandwidth goes.
//
// derived: effective = peak x refresh x burst x row_switch x controller x interconnect
// fixed:   effective = peak x fixed_efficiency (the other factors are 1)
// Both: when reads and writes share the DDR, the effective bandwidth is
// further multiplied by mixed_factor (bus turnarounds). docs/models/memory-ddr.md
// states each formula.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "models/memory/ddr/ddr_params.h"

namespace pccx::mem {

struct ddr_efficiency {
  efficiency_model model = efficiency_model::derived;
  double tck_ns = 0;            // 2000 / data_rate_mtps
  double peak_bytes_per_s = 0;  // data_rate x bus_bits / 8

  // Factors; the product of the five below and fixed_factor is effective / peak.
  double refresh_factor = 1;       // 1 - tRFC / tREFI
  double burst_factor = 1;         // (BL/2) / max(BL/2, tCCD_S): gaps between bursts
  double row_switch_factor = 1;    // page time / (page time + exposed (tRP + tRCD))
  double controller_factor = 1;    // controller_efficiency
  double interconnect_factor = 1;  // interconnect_efficiency
  double fixed_factor = 1;         // fixed model: fixed_efficiency
  double effective_bytes_per_s = 0;

  // Intermediate values of the row-switch factor.
  double page_transfer_ns = 0;  // page_bytes at the burst-limited rate
  double row_switch_ns = 0;     // row_switch_exposed x (tRP + tRCD) x tCK

  // Mixed read/write: one read batch plus one write batch of rw_batch_bytes
  // each, and the two bus turnarounds they cost.
  double batch_ns = 0;             // 2 x rw_batch_bytes at the burst-limited rate
  uint32_t write_to_read_tck = 0;  // CWL + BL/2 + tWTR_L
  uint32_t read_to_write_tck = 0;  // CL - CWL + BL/2 + 2 (at least 0)
  double turnaround_ns = 0;        // (write_to_read + read_to_write) x tCK
  double mixed_factor = 1;         // batch / (batch + turnaround)

  double efficiency() const { return effective_bytes_per_s / peak_bytes_per_s; }
  double mixed_bytes_per_s() const { return effective_bytes_per_s * mixed_factor; }
};

// Throws std::invalid_argument for inputs that make no bandwidth (zero rate,
// bus or burst, tREFI <= tRFC).
ddr_efficiency derive_efficiency(const config::ddr_config& p);

// Every factor and intermediate value, GB/s as 1e9 bytes/s.
nlohmann::ordered_json to_json(const ddr_efficiency& e);

}  // namespace pccx::mem
