// The configuration section of the DDR4 memory system (`ddr.*`), owned by the
// model: its keys, defaults, ranges and checks. Defaults describe the KV260
// (K26 SOM: four 8 Gb x16 DDR4-2400 devices on a 64-bit bus, one rank, the
// u-boot address map; HP ports 128 bit at the AXI clock); where each comes
// from is in docs/models/memory-ddr.md. make_ddr_params() (ddr_params.h)
// converts it once into what the controller consumes.
//
// Timing is in nanoseconds where JEDEC specifies nanoseconds (so a change of
// data rate keeps it right) and in clocks (nCK) where JEDEC specifies clocks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "infra/config/config_schema.h"

namespace pccx::config {

// ddr.model: the DRAM's banks, rows and timing, or a fixed share of the peak.
enum class dram_model { banks, fixed };
inline const enum_table<dram_model>& names_of(dram_model) {
  static const enum_table<dram_model> t = {{dram_model::banks, "banks"},
                                           {dram_model::fixed, "fixed"}};
  return t;
}

// ddr.page_policy: keep a row open after its accesses, or precharge at once.
enum class page_policy { open, closed };
inline const enum_table<page_policy>& names_of(page_policy) {
  static const enum_table<page_policy> t = {{page_policy::open, "open"},
                                            {page_policy::closed, "closed"}};
  return t;
}

// ddr.write_buffer.order: which buffered write a drain sends next.
// fr_fcfs: the oldest that hits its bank's open row, else the oldest (row
// hits first, bounded by age_limit); fcfs: the oldest.
enum class write_order { fr_fcfs, fcfs };
inline const enum_table<write_order>& names_of(write_order) {
  static const enum_table<write_order> t = {{write_order::fr_fcfs, "fr_fcfs"},
                                            {write_order::fcfs, "fcfs"}};
  return t;
}

// ddr.address_map.preset: which AXI address bits select bank group, bank,
// row and column.
enum class address_map_preset { k26_boot, row_bank_column, bank_row_column, custom };
inline const enum_table<address_map_preset>& names_of(address_map_preset) {
  static const enum_table<address_map_preset> t = {
      {address_map_preset::k26_boot, "k26_boot"},
      {address_map_preset::row_bank_column, "row_bank_column"},
      {address_map_preset::bank_row_column, "bank_row_column"},
      {address_map_preset::custom, "custom"}};
  return t;
}

// One rank of x16 devices: 2 bank groups x 4 banks, 64 K rows of 1 K columns.
struct ddr_organisation_config {
  std::uint32_t bank_groups = 2;
  std::uint32_t banks_per_group = 4;
  std::uint32_t rows = 65536;
  std::uint32_t columns = 1024;
  std::uint32_t devices = 4;

  template <class V>
  void visit(V& v) {
    v.field("bank_groups", bank_groups, "Bank groups per device (x16: 2)",
            range(1, 8, "DDR4 has 2 (x16) or 4 bank groups; 8 is a modelling cap"));
    v.field("banks_per_group", banks_per_group, "Banks per bank group",
            range(1, 8, "DDR4 has 4 banks per group; 8 is a modelling cap"));
    v.field("rows", rows, "Rows per bank",
            range(1u, 1u << 20, "at least one row; 2^20 is past DDR4's 18 row-address bits"));
    v.field("columns", columns, "Columns per row (bus-width words)",
            range(8u, 1u << 16, "a row holds a BL8 burst; 64 K is a modelling cap (DDR4: 1 K)"));
    v.field("devices", devices, "Devices side by side on the bus (DRAM energy counts each)",
            range(1, 32, "at least one device; 32 x4 devices fill the widest, 128-bit bus"));
  }
};

// Bit positions of the AXI byte address, lowest first. Bits below
// log2(bus_bits / 8) select the byte within a bus word and are not listed.
// Shared by the four bit lists of a custom map.
constexpr const char* kAddressBitRange =
    "a bit of the 64-bit byte offset the decoder shifts by (bits in the bus word are refused)";

struct ddr_address_map_config {
  // User-provided, so value-initialising a configuration does not zero the
  // vectors first (GCC 12 then reports them as maybe-uninitialized).
  ddr_address_map_config() {}

  address_map_preset preset = address_map_preset::k26_boot;
  std::vector<std::uint32_t> bank_group_bits;
  std::vector<std::uint32_t> bank_bits;
  std::vector<std::uint32_t> row_bits;
  std::vector<std::uint32_t> column_bits;

  template <class V>
  void visit(V& v) {
    v.field("preset", preset,
            "k26_boot (bank group 6, bank 14-15, row 16-31: the K26 u-boot DDRC map), "
            "row_bank_column (no bank-group interleave), bank_row_column, or custom (the four "
            "bit lists below)");
    v.field("bank_group_bits", bank_group_bits, "custom: address bits of the bank group",
            items(0, 8), range(0, 63, kAddressBitRange));
    v.field("bank_bits", bank_bits, "custom: address bits of the bank within its group",
            items(0, 8), range(0, 63, kAddressBitRange));
    v.field("row_bits", row_bits, "custom: address bits of the row", items(0, 32),
            range(0, 63, kAddressBitRange));
    v.field("column_bits", column_bits, "custom: address bits of the column", items(0, 32),
            range(0, 63, kAddressBitRange));
  }
};

// Shared by the JEDEC timing fields.
constexpr const char* kDdrClocksRange =
    "whole clocks, at least one; the cap is a modelling margin over DDR4's JEDEC values";
constexpr const char* kDdrNsRange =
    "above 0, rounded up to whole clocks; the cap is a modelling margin over DDR4's JEDEC values";

// JEDEC DDR4 timing. nCK fields are clocks of tCK = 2000 / data_rate_mtps ns;
// _ns fields are rounded up to whole clocks.
struct ddr_timing_config {
  std::uint32_t cl = 16;
  std::uint32_t cwl = 16;
  std::uint32_t tccd_s = 4;
  std::uint32_t tccd_l = 6;
  double trcd_ns = 13.32;
  double trp_ns = 13.32;
  double tras_ns = 32.0;
  double trc_ns = 45.32;
  double trrd_s_ns = 5.3;
  double trrd_l_ns = 6.4;
  double tfaw_ns = 30.0;
  double twtr_s_ns = 2.5;
  double twtr_l_ns = 7.5;
  double twr_ns = 15.0;
  double trtp_ns = 10.0;
  double trfc_ns = 350.0;
  double trefi_ns = 7800.0;

  template <class V>
  void visit(V& v) {
    v.field("cl", cl, "CAS (read) latency, nCK", range(1, 64, kDdrClocksRange));
    v.field("cwl", cwl, "CAS write latency, nCK", range(1, 64, kDdrClocksRange));
    v.field("tccd_s", tccd_s, "Column to column, different bank group, nCK",
            range(1, 16, kDdrClocksRange));
    v.field("tccd_l", tccd_l, "Column to column, same bank group, nCK",
            range(1, 16, kDdrClocksRange));
    v.field("trcd_ns", trcd_ns, "Activate to read or write", range(1.0, 100.0, kDdrNsRange));
    v.field("trp_ns", trp_ns, "Precharge to activate", range(1.0, 100.0, kDdrNsRange));
    v.field("tras_ns", tras_ns, "Activate to precharge, at least", range(1.0, 200.0, kDdrNsRange));
    v.field("trc_ns", trc_ns, "Activate to activate, same bank", range(1.0, 300.0, kDdrNsRange));
    v.field("trrd_s_ns", trrd_s_ns, "Activate to activate, different bank group (x16)",
            range(0.5, 100.0, kDdrNsRange));
    v.field("trrd_l_ns", trrd_l_ns, "Activate to activate, same bank group (x16)",
            range(0.5, 100.0, kDdrNsRange));
    v.field("tfaw_ns", tfaw_ns, "Window of at most four activates (x16, 2 KiB page)",
            range(1.0, 200.0, kDdrNsRange));
    v.field("twtr_s_ns", twtr_s_ns, "End of write data to read, different bank group",
            range(0.5, 100.0, kDdrNsRange));
    v.field("twtr_l_ns", twtr_l_ns, "End of write data to read, same bank group",
            range(0.5, 100.0, kDdrNsRange));
    v.field("twr_ns", twr_ns, "End of write data to precharge (write recovery)",
            range(1.0, 100.0, kDdrNsRange));
    v.field("trtp_ns", trtp_ns, "Read to precharge", range(1.0, 100.0, kDdrNsRange));
    v.field(
        "trfc_ns", trfc_ns, "All-bank refresh duration (8 Gb device)",
        range(1.0, 2000.0, "above 0 (8 Gb DDR4: 350 ns, 16 Gb: 550 ns); 2 us is a modelling cap"));
    v.field("trefi_ns", trefi_ns, "Refresh interval",
            range(100.0, 100000.0,
                  "DDR4 refreshes every 7.8 us (3.9 us when hot); 100 ns to 100 us is a margin"));
  }
};

// The controller's write buffer: writes are posted and reach the DRAM in
// batches, so the bus turns around once per batch, not once per write. It
// keeps its writes in age order; a drain takes row hits first.
struct ddr_write_buffer_config {
  std::uint32_t entries = 64;
  std::uint32_t high_watermark = 48;
  std::uint32_t low_watermark = 16;
  write_order order = write_order::fr_fcfs;
  std::uint32_t age_limit = 16;

  template <class V>
  void visit(V& v) {
    v.field("entries", entries, "Bursts the write buffer holds",
            range(1, 4096, "at least one burst; 4,096 bursts is a modelling cap"));
    v.field("high_watermark", high_watermark, "Bursts buffered that start a drain to the DRAM",
            range(1, 4096, "at least one burst, at most entries (checked) and its 4,096 cap"));
    v.field("low_watermark", low_watermark, "Bursts left in the buffer when a drain stops",
            range(0, 4096, "0 drains the buffer empty; below high_watermark (checked)"));
    v.field("order", order,
            "Which buffered write a drain sends next: fr_fcfs (the oldest that hits its bank's "
            "open row, else the oldest) or fcfs (the oldest)");
    v.field("age_limit", age_limit,
            "fr_fcfs: a write that younger row hits have overtaken this many times goes next",
            range(1, 1000000, "at least one overtaking; 10^6 is a modelling cap"));
  }
};

// The path in front of the DRAM: the controller's request queue and the
// latency of the PS interconnect and controller pipeline. Their ratio bounds
// the bandwidth (Little's law).
// Shared by the PS path's read and write latencies.
constexpr const char* kPathLatencyRange =
    "0 = no path latency; 10 us is a modelling cap, far above the PS path's ~100 ns";

struct ddr_controller_config {
  std::uint32_t queue_entries = 24;
  double read_latency_ns = 110.0;
  double write_latency_ns = 40.0;

  template <class V>
  void visit(V& v) {
    v.field("queue_entries", queue_entries,
            "Requests (one burst each) the controller holds in flight; with the read latency "
            "this bounds the bandwidth (Little's law)",
            range(1, 4096, "at least one request in flight; 4,096 is a modelling cap"));
    v.field("read_latency_ns", read_latency_ns,
            "Read latency of the PS path outside the DRAM: interconnect and controller pipeline",
            range(0.0, 10000.0, kPathLatencyRange));
    v.field("write_latency_ns", write_latency_ns,
            "Latency of a posted write's response (the write buffer accepts it)",
            range(0.0, 10000.0, kPathLatencyRange));
  }
};

// IDD currents of one device (data-sheet maxima at the speed bin), for the
// DRAM energy by the IDD method. Defaults: an 8 Gb x16 DDR4-2400 part.
// Shared by the IDD currents.
constexpr const char* kIddRange =
    "0 drops the term; the cap is a margin over DDR4 data-sheet IDD values (tens to 100s of mA)";

struct ddr_energy_config {
  double vdd = 1.2;
  double idd0_ma = 58.0;
  double idd2n_ma = 34.0;
  double idd3n_ma = 47.0;
  double idd4r_ma = 150.0;
  double idd4w_ma = 140.0;
  double idd5b_ma = 250.0;

  template <class V>
  void visit(V& v) {
    v.field(
        "vdd", vdd, "Core supply, V",
        range(0.5, 3.0, "a DRAM core supply (DDR4 1.2 V, DDR3 1.5 V) within a 0.5 to 3 V margin"));
    v.field("idd0_ma", idd0_ma, "IDD0: one bank activate-precharge, per device, mA",
            range(0.0, 2000.0, kIddRange));
    v.field("idd2n_ma", idd2n_ma, "IDD2N: precharge standby, mA", range(0.0, 2000.0, kIddRange));
    v.field("idd3n_ma", idd3n_ma, "IDD3N: active standby, mA", range(0.0, 2000.0, kIddRange));
    v.field("idd4r_ma", idd4r_ma, "IDD4R: burst read, mA", range(0.0, 2000.0, kIddRange));
    v.field("idd4w_ma", idd4w_ma, "IDD4W: burst write, mA", range(0.0, 2000.0, kIddRange));
    v.field("idd5b_ma", idd5b_ma, "IDD5B: burst refresh, mA", range(0.0, 5000.0, kIddRange));
  }
};

// Shared by the HP and ACP port widths.
constexpr const char* kPortBytesRange =
    "at least a byte a clock; 128 B (a 1024-bit port) is a modelling cap (pccx: 16 B)";

struct ddr_config {
  dram_model model = dram_model::banks;
  std::uint32_t data_rate_mtps = 2400;
  std::uint32_t bus_bits = 64;
  std::uint32_t burst_length = 8;
  ddr_organisation_config organisation;
  ddr_address_map_config address_map;
  page_policy page = page_policy::open;
  ddr_timing_config timing;
  ddr_write_buffer_config write_buffer;
  ddr_controller_config controller;
  ddr_energy_config energy;
  double fixed_efficiency = 0.57;
  std::string arbitration = "round_robin";
  std::vector<double> port_weights = {1, 1, 1, 1, 1, 1};
  std::uint32_t hp_bytes_per_cycle = 16;
  std::uint32_t acp_bytes_per_cycle = 16;
  double cpu_gbps = 2.0;

  template <class V>
  void visit(V& v) {
    v.field("model", model,
            "banks: every transaction decoded to bank group, bank and row and timed by the "
            "DRAM's banks, bus, refresh and JEDEC timing; fixed: a constant share of the peak "
            "(fixed_efficiency), no banks");
    v.field("data_rate_mtps", data_rate_mtps, "Transfer rate, MT/s (2400 per DS987)",
            range(800, 6400, "a margin around the DDR4 speed bins, 1600 to 3200 MT/s"));
    v.field("bus_bits", bus_bits, "Data bus width",
            range(8, 128, "at least one byte lane; 128 bits is twice the K26's 64-bit bus"));
    v.field("burst_length", burst_length, "Burst length (BL8)",
            range(4, 16, "from DDR4's 4-beat burst chop to a 16-beat burst (DDR4 itself: BL8)"));
    v.field("organisation", organisation, "Banks, rows and columns of the rank");
    v.field("address_map", address_map, "Which address bits select bank group, bank, row, column");
    v.field("page_policy", page,
            "open: a row stays open for the next hit; closed: precharge after each access");
    v.field("timing", timing, "JEDEC timing parameters");
    v.field("write_buffer", write_buffer, "Posted writes, drained to the DRAM in batches");
    v.field("controller", controller, "Request queue and latency of the PS path");
    v.field("energy", energy, "Device currents for the DRAM energy (IDD method)");
    v.field("fixed_efficiency", fixed_efficiency, "Efficiency of the fixed model: peak x this",
            range(0.01, 1.0, "a share of the peak: above 0 so bytes move, at most all of it"));
    v.field("arbitration", arbitration,
            "Sharing of DDR bandwidth between busy ports: round_robin (equal shares), weighted "
            "(port_weights) or fixed_priority (port order hp0, hp1, hp2, hp3, acp, cpu); what a "
            "port leaves unused goes to the others, up to their caps",
            one_of({"round_robin", "weighted", "fixed_priority"}));
    v.field("port_weights", port_weights,
            "Weights of hp0, hp1, hp2, hp3, acp, cpu for the weighted policy", items(6),
            range(0.0, 1e6, "positive (0 is refused by the check); 10^6 is a modelling cap"));
    v.field("hp_bytes_per_cycle", hp_bytes_per_cycle, "HP port width at the AXI clock (128 bit)",
            range(1, 128, kPortBytesRange));
    v.field("acp_bytes_per_cycle", acp_bytes_per_cycle, "ACP port width at the AXI clock (128 bit)",
            range(1, 128, kPortBytesRange));
    v.field("cpu_gbps", cpu_gbps, "Cap of the CPU's path to DDR, GB/s",
            range(0.01, 100.0,
                  "above 0 so CPU transfers end; 100 GB/s is a modelling cap (KV260 peak: 19.2)"));
  }
  void validate(validator& check) const;

  double tck_ns() const { return 2000.0 / data_rate_mtps; }
  std::uint32_t burst_bytes() const { return bus_bits / 8 * burst_length; }
  // Bytes of the rank: banks x rows x columns x bus width.
  std::uint64_t capacity_bytes() const;
};

}  // namespace pccx::config
