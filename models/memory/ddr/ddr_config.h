// The configuration section of the DDR4 controller model (`ddr.*`), owned by
// the model: its keys, defaults, ranges and checks. Defaults describe the
// KV260 (DDR4-2400 x64, HP ports 128 bit at the AXI clock); where each comes
// from is in docs/models/memory-ddr.md. make_ddr_params() (ddr_params.h)
// converts it once into what the controller consumes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "infra/config/config_schema.h"

namespace pccx::config {

// ddr.model: how the effective bandwidth is found.
enum class efficiency_model { derived, fixed };
inline const enum_table<efficiency_model>& names_of(efficiency_model) {
  static const enum_table<efficiency_model> t = {{efficiency_model::derived, "derived"},
                                                 {efficiency_model::fixed, "fixed"}};
  return t;
}

// JEDEC DDR4 timing in clock cycles (tCK) unless the name says ns.
struct ddr_timing_config {
  std::uint32_t cl = 16;
  std::uint32_t cwl = 16;
  std::uint32_t trcd = 16;
  std::uint32_t trp = 16;
  std::uint32_t tccd_s = 4;
  std::uint32_t twtr_l = 9;
  double trfc_ns = 350.0;
  double trefi_ns = 7800.0;

  template <class V>
  void visit(V& v) {
    v.field("cl", cl, "CAS (read) latency, tCK", range(1, 64));
    v.field("cwl", cwl, "CAS write latency, tCK", range(1, 64));
    v.field("trcd", trcd, "Activate to read/write, tCK", range(1, 64));
    v.field("trp", trp, "Precharge, tCK", range(1, 64));
    v.field("tccd_s", tccd_s, "Burst to burst, different bank group, tCK", range(1, 16));
    v.field("twtr_l", twtr_l, "Write to read turnaround, same bank group, tCK", range(1, 32));
    v.field("trfc_ns", trfc_ns, "All-bank refresh duration (8 Gb device)", range(1.0, 2000.0));
    v.field("trefi_ns", trefi_ns, "Refresh interval", range(100.0, 100000.0));
  }
};

struct ddr_config {
  efficiency_model model = efficiency_model::derived;
  std::uint32_t data_rate_mtps = 2400;
  std::uint32_t bus_bits = 64;
  std::uint32_t burst_length = 8;
  std::uint32_t page_bytes = 8192;
  ddr_timing_config timing;
  double row_switch_exposed = 1.0;
  std::uint32_t rw_batch_bytes = 2048;
  double controller_efficiency = 0.75;
  double interconnect_efficiency = 0.85;
  double fixed_efficiency = 0.57;
  double read_latency_ns = 100.0;
  double write_latency_ns = 40.0;
  std::string arbitration = "round_robin";
  std::vector<double> port_weights = {1, 1, 1, 1, 1, 1};
  std::uint32_t hp_bytes_per_cycle = 16;
  std::uint32_t acp_bytes_per_cycle = 16;
  double cpu_gbps = 2.0;

  template <class V>
  void visit(V& v) {
    v.field("model", model,
            "Efficiency model: derived (from DRAM timing, refresh, row switches, controller "
            "and interconnect efficiency) or fixed (peak x fixed_efficiency)");
    v.field("data_rate_mtps", data_rate_mtps, "Transfer rate, MT/s (2400 per DS987)",
            range(800, 6400));
    v.field("bus_bits", bus_bits, "Data bus width", range(8, 128));
    v.field("burst_length", burst_length, "Burst length (BL8)", range(4, 16));
    v.field("page_bytes", page_bytes, "Rank page size: a sequential stream changes row this often",
            range(256, 65536));
    v.field("timing", timing, "JEDEC timing parameters");
    v.field("row_switch_exposed", row_switch_exposed,
            "Share of a row switch (tRP + tRCD) not hidden by bank interleaving", range(0.0, 1.0));
    v.field("rw_batch_bytes", rw_batch_bytes,
            "Bytes the controller serves in one direction before turning the bus around",
            range(64, 1048576));
    v.field("controller_efficiency", controller_efficiency,
            "Scheduling efficiency of the PS DDR controller", range(0.05, 1.0));
    v.field("interconnect_efficiency", interconnect_efficiency,
            "Efficiency of the PL-to-PS interconnect path (outstanding limits, arbitration)",
            range(0.05, 1.0));
    v.field("fixed_efficiency", fixed_efficiency, "Efficiency of the fixed model: peak x this",
            range(0.01, 1.0));
    v.field("read_latency_ns", read_latency_ns, "Unloaded read latency (request to first data)",
            range(0.0, 10000.0));
    v.field("write_latency_ns", write_latency_ns, "Unloaded write completion latency",
            range(0.0, 10000.0));
    v.field("arbitration", arbitration,
            "Sharing of DDR bandwidth between busy ports: round_robin (equal shares), weighted "
            "(port_weights) or fixed_priority (port order hp0, hp1, hp2, hp3, acp, cpu)",
            one_of({"round_robin", "weighted", "fixed_priority"}));
    v.field("port_weights", port_weights,
            "Weights of hp0, hp1, hp2, hp3, acp, cpu for the weighted policy", items(6));
    v.field("hp_bytes_per_cycle", hp_bytes_per_cycle, "HP port width at the AXI clock (128 bit)",
            range(1, 128));
    v.field("acp_bytes_per_cycle", acp_bytes_per_cycle, "ACP port width at the AXI clock (128 bit)",
            range(1, 128));
    v.field("cpu_gbps", cpu_gbps, "Cap of the CPU's path to DDR, GB/s", range(0.01, 100.0));
  }
  void validate(validator& check) const;
};

}  // namespace pccx::config
