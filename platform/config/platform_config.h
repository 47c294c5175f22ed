// Every parameter of the virtual platform, with its compiled-in default.
//
// Each struct lists its fields once in visit(); that one list drives the
// defaults layer, parsing and checking, dump and the key reference
// (see config_schema.h). Values are in the unit named by the key suffix
// (_mhz, _ns, _ms, _bytes, _kib, _cycles); the platform converts them.
//
// To add a subsystem: write `struct dma_config { ...; template <class V>
// void visit(V& v) {...} };`, add `dma_config dma;` to platform_config and
// one v.field("dma", dma, "...") line to platform_config::visit, then add
// the keys to configs/kv260.json and docs/reference/configuration.md (tests fail
// until both are updated).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "infra/config/config_schema.h"
#include "models/npu/npu_config.h"
#include "platform/config/memory_config.h"

namespace pccx::config {

// Choices shared by log.level and the log.modules values.
const std::vector<std::string>& log_level_names();

// Shared by both PL clocks.
constexpr const char* kPlClockRange =
    "above 0 for a finite period; 2 GHz is a modelling cap over the 400 and 250 MHz PL clocks";

struct clocks_config {
  double core_mhz = 400.0;
  double axi_mhz = 250.0;

  template <class V>
  void visit(V& v) {
    v.field("core_mhz", core_mhz, "NPU core clock", range(1.0, 2000.0, kPlClockRange));
    v.field("axi_mhz", axi_mhz, "AXI/DMA clock", range(1.0, 2000.0, kPlClockRange));
  }
};

// simulation.mode: real data, or timing only.
enum class sim_mode { functional, timing };
inline const enum_table<sim_mode>& names_of(sim_mode) {
  static const enum_table<sim_mode> t = {{sim_mode::functional, "functional"},
                                         {sim_mode::timing, "timing"}};
  return t;
}

// simulation.end_check: what a run that ends with work or errors left behind does.
enum class end_check_policy { fail, warn };
inline const enum_table<end_check_policy>& names_of(end_check_policy) {
  static const enum_table<end_check_policy> t = {{end_check_policy::fail, "fail"},
                                                 {end_check_policy::warn, "warn"}};
  return t;
}

// simulation.lint: what a driver-lint warning does (docs/reference/errors.md).
inline const enum_table<lint_mode>& names_of(lint_mode) {
  static const enum_table<lint_mode> t = {{lint_mode::off, "off"},
                                               {lint_mode::warn, "warn"},
                                               {lint_mode::error, "error"}};
  return t;
}

struct simulation_config {
  std::uint64_t quantum_ns = 1000;
  std::uint64_t gemv_quantum_ns = 10000;
  std::uint64_t max_time_ms = 60000;
  double max_wall_s = 900.0;
  end_check_policy end_check = end_check_policy::fail;
  bool strict = false;
  lint_mode lint = lint_mode::warn;
  sim_mode mode = sim_mode::functional;
  std::uint64_t livelock_reads = 1000000;
  std::int64_t inject_npu_fault_at = -1;

  bool functional() const { return mode == sim_mode::functional; }

  template <class V>
  void visit(V& v) {
    v.field("quantum_ns", quantum_ns,
            "Temporal-decoupling quantum of the firmware CPU, the NPU's units and the DMA "
            "channels (the GEMV has its own, gemv_quantum_ns)",
            range(1, 1000000,
                  "at least 1 ns so the CPU syncs; past 1 ms the firmware runs too far ahead "
                  "(modelling cap)"));
    v.field("gemv_quantum_ns", gemv_quantum_ns,
            "Temporal-decoupling quantum of the GEMV's thread: how far it runs ahead of the "
            "kernel between syncs (docs/results/performance.md). 0 = quantum_ns",
            range<std::uint64_t>(0, 1000000,
                                 "0 follows quantum_ns; past 1 ms the GEMV frees FIFO space too "
                                 "far ahead of the DMA channels (modelling cap)"));
    v.field("max_time_ms", max_time_ms, "Simulated-time limit; reaching it is a failure",
            range(1, 86400000,
                  "at least 1 ms; one day of simulated time stays far inside sc_time's 64-bit ps"));
    v.field(
        "max_wall_s", max_wall_s,
        "Wall-clock limit of one run, seconds; reaching it is a failure. 0 = no limit",
        range(0.0, 1e7, "0 turns the watchdog off; 10^7 s (about 116 days) is a modelling cap"));
    v.field("end_check", end_check,
            "When the firmware ends while the NPU is busy or an NPU or DMA error was never "
            "cleared: fail the run, or only warn");
    v.field("strict", strict,
            "The platform's strict reading: upstream departures (GEMV lanes as a mask, GEMM "
            "lanes, RTL shape slots, long CVOs) are NPU errors, and the first NPU error ends "
            "the run instead of latching");
    v.field("lint", lint,
            "Driver lint (suspicious but legal driver behaviour, upstream departures): off, "
            "warn (log each warning), error (the first warning fails the run)");
    v.field("mode", mode,
            "functional: real bytes in DDR, L2 and FIFOs; timing: timing only, no data is stored");
    v.field("livelock_reads", livelock_reads,
            "MMIO reads in a row that return what they returned before, with nothing in the "
            "platform moving, after which a polling loop is stuck and the run fails naming its "
            "register. 0 = never",
            range<std::uint64_t>(0, 1000000000000,
                                 "0 turns the check off; a driver's own long waits poll tens of "
                                 "thousands of times, and 10^12 reads outlast any time limit"));
    v.field("inject_npu_fault_at", inject_npu_fault_at,
            "Fault injection: the instruction (sequence number, as ERR_SEQ counts from 0) that "
            "latches ERR_UNIT_FAULT instead of executing, to exercise a driver's error path. "
            "-1 = none",
            range<std::int64_t>(-1, 1099511627776,
                                "-1 injects nothing; 2^40 instructions outlast any run"));
  }
};

// The sim-control device is not configurable: firmware finds it at the HAL
// offset PCCX_SIMCTL_OFFSET (0x100000) from the NPU base, 4 KiB long.
struct memory_map_config {
  std::uint64_t npu_base = 0xA0000000;
  std::uint64_t npu_size = 0x10000;
  std::uint64_t ddr_base = 0x0;
  std::uint64_t ddr_size = 0x100000000;

  template <class V>
  void visit(V& v) {
    v.field("npu_base", npu_base, "Base of the NPU window (CPU view); 4 KiB aligned", address(),
            range<std::uint64_t>(0, 0xFFFFE00000,
                                 "ZynqMP 40-bit physical space: the 2 MiB NPU, DMA and sim-control "
                                 "window ends by 2^40"));
    v.field("npu_size", npu_size,
            "Size of the NPU window: registers + DMA pages, bytes (the sim-control device "
            "follows at npu_base + 0x100000)",
            hex(),
            range(0x1000, 0x100000,
                  "holds the 4 KiB register bank; ends by the sim-control device at +0x100000"));
    v.field("ddr_base", ddr_base, "Base of DDR as addressed by the NPU DMA", address(),
            range<std::uint64_t>(0, 0xFFFFFFFFFF, "a ZynqMP physical address: 40 bits"));
    v.field("ddr_size", ddr_size, "Size of DDR, bytes", hex(),
            range<std::uint64_t>(1, 0x10000000000,
                                 "at least a byte; the 40-bit ZynqMP physical space holds 1 TiB"));
  }
  void validate(validator& check) const;
};

// Shared by both AXI-Lite access costs.
constexpr const char* kMmioNsRange =
    "at least 1 ns so a driver loop advances time; 100 us is a modelling cap";

struct cpu_config {
  std::uint64_t mmio_write_ns = 40;
  std::uint64_t mmio_read_ns = 200;
  std::uint32_t stack_kib = 8192;
  double clock_mhz = 1333.0;
  double cycles_per_instruction = 1.0;
  std::uint32_t elf_stack_kib = 64;

  template <class V>
  void visit(V& v) {
    v.field("mmio_write_ns", mmio_write_ns,
            "Cost of a posted AXI-Lite write from the A53; at least 1 ns, so that a driver "
            "writing in a loop lets simulated time advance",
            range(1, 100000, kMmioNsRange));
    v.field("mmio_read_ns", mmio_read_ns,
            "Round trip of an AXI-Lite read from the A53; at least 1 ns, so that a driver "
            "polling STATUS lets the NPU run",
            range(1, 100000, kMmioNsRange));
    v.field(
        "stack_kib", stack_kib, "Stack of the firmware thread",
        range(64, 1048576,
              "64 KiB for the host-compiled firmware's frames; 1 GiB caps the host allocation"));
    v.field(
        "clock_mhz", clock_mhz, "A53 clock of an AArch64 ELF firmware (1333 MHz on the K26)",
        range(1.0, 10000.0, "above 0 for a finite instruction time; 10 GHz is a modelling cap"));
    v.field("cycles_per_instruction", cycles_per_instruction,
            "A53 clocks per instruction an AArch64 ELF firmware retires",
            range(0.01, 1000.0,
                  "above 0 so instructions take time; a modelling span around the A53's ~1"));
    v.field("elf_stack_kib", elf_stack_kib,
            "Stack mapped after an AArch64 ELF's image (SP starts at its top)",
            range(4, 1048576, "at least one 4 KiB page; 1 GiB is a modelling cap inside DDR"));
  }
};

struct trace_config {
  std::string mmio;
  std::string instructions;
  std::string ddr;

  template <class V>
  void visit(V& v) {
    v.field("mmio", mmio, "Path of the MMIO access trace (JSON Lines); empty = off");
    v.field("instructions", instructions, "Path of the instruction trace; empty = off");
    v.field("ddr", ddr, "Path of the per-transaction DDR trace (JSON Lines); empty = off");
  }
};

struct logging_config {
  std::string level = "info";
  std::map<std::string, std::string> modules;

  template <class V>
  void visit(V& v) {
    v.field("level", level, "Default log level", one_of(log_level_names()));
    v.field("modules", modules,
            "Per-module log levels, module name -> level; \"npu\" also covers \"npu.cmd\"",
            one_of(log_level_names()));
  }
  void validate(validator& check) const;
};

struct output_config {
  std::string dir;
  bool perfetto = false;
  bool vcd = false;
  bool pccx = false;
  bool plots = false;
  std::uint32_t plot_columns = 2000;
  std::string run_name;

  template <class V>
  void visit(V& v) {
    v.field("dir", dir, "Folder for run outputs such as summary.json; empty = none");
    v.field("perfetto", perfetto,
            "Write trace.perfetto.json into output.dir: instructions per engine, DMA "
            "descriptors per channel with flows to the instructions they fed, token and layer "
            "slices, markers, DDR bandwidth per class, FIFO levels, engine busy and firmware "
            "counters as Chrome trace events (ui.perfetto.dev)");
    v.field("vcd", vcd,
            "Write signals.vcd into output.dir: engine busy, stream FIFO levels, DDR bytes in "
            "flight and utilisation (GTKWave)");
    v.field("pccx", pccx,
            "Write session.pccx into output.dir: instructions, DMA descriptors, issue stalls and "
            "waits for the NPU as a pccx-lab session");
    v.field("plots", plots,
            "Write ddr_bandwidth.svg into output.dir: GB/s per traffic class over simulated "
            "time, the DDR peak and effective bandwidth, the firmware's markers");
    v.field(
        "plot_columns", plot_columns,
        "Most columns of ddr_bandwidth.svg: longer runs merge whole stats windows per column",
        range(10, 100000, "10 columns for a readable curve; the cap keeps the SVG to a few MB"));
    v.field("run_name", run_name, "Name of the run in plot titles; empty = the firmware's name");
  }
  void validate(validator& check) const;
};

struct platform_config {
  clocks_config clocks;
  simulation_config simulation;
  memory_map_config memory_map;
  cpu_config cpu;
  npu_config npu;
  ddr_config ddr;
  dma_config dma;
  stats_config stats;
  trace_config trace;
  logging_config log;
  output_config output;

  template <class V>
  void visit(V& v) {
    v.field("clocks", clocks, "Clock frequencies");
    v.field("simulation", simulation, "Simulation control");
    v.field("memory_map", memory_map, "Address map");
    v.field("cpu", cpu, "Firmware CPU (A53) timing");
    v.field("npu", npu, "NPU model");
    v.field("ddr", ddr, "DDR4 controller and its ports");
    v.field("dma", dma, "DMA (DataMover) channels");
    v.field("stats", stats, "Bandwidth statistics");
    v.field("trace", trace, "Trace outputs");
    v.field("log", log, "Logging");
    v.field("output", output, "Run outputs");
  }
  void validate(validator& check) const;  // checks that span sections
};

}  // namespace pccx::config
