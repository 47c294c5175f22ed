// What bounds the DDR's bandwidth before any traffic is seen, and the figures
// each bound is made of:
//
//   peak            data_rate x bus_bits / 8
//   dram_stream     peak x (1 - tRFC / tREFI): the data bus less refresh,
//                   what a stream that never waits for a row could reach
//   little          queue_entries x burst_bytes / loaded latency, the loaded
//                   latency being the PS path's read latency plus an
//                   unloaded DRAM access (tRCD + CL + BL/2): the requests the
//                   controller can hold in flight, by Little's law
//   effective       banks: min(little, dram_stream); fixed: peak x fixed_efficiency
//
// `effective` is the front end's capacity that the ports share
// (bandwidth_scheduler); with the banks model the DRAM (dram_rank) then
// times every transaction by its address, so a pattern the DRAM serves
// slower than this (random rows: tFAW) gets less. The roofline and the plots
// use `effective` as the streaming bandwidth.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "models/memory/ddr/ddr_config.h"

namespace pccx::mem {

struct ddr_capacity {
  config::dram_model model = config::dram_model::banks;
  double tck_ns = 0;
  double peak_bytes_per_s = 0;
  double refresh_factor = 1;  // 1 - tRFC / tREFI
  double dram_stream_bytes_per_s = 0;
  uint64_t queue_bytes = 0;        // queue_entries x burst_bytes
  double loaded_latency_ns = 0;    // controller.read_latency_ns + (tRCD + CL + BL/2) x tCK
  double little_bytes_per_s = 0;   // queue_bytes / loaded_latency
  double fixed_factor = 1;         // fixed model: fixed_efficiency
  double effective_bytes_per_s = 0;

  double efficiency() const { return effective_bytes_per_s / peak_bytes_per_s; }
};

ddr_capacity derive_capacity(const config::ddr_config& c);

// Every bound and the figures it is made of, GB/s as 1e9 bytes/s.
nlohmann::ordered_json to_json(const ddr_capacity& c);

}  // namespace pccx::mem
