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

struct clocks_config {
  double core_mhz = 400.0;
  double axi_mhz = 250.0;

  template <class V>
  void visit(V& v) {
    v.field("core_mhz", core_mhz, "NPU core clock", range(1.0, 2000.0));
    v.field("axi_mhz", axi_mhz, "AXI/DMA clock", range(1.0, 2000.0));
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
  std::uint64_t max_time_ms = 60000;
  double max_wall_s = 900.0;
  end_check_policy end_check = end_check_policy::fail;
  bool strict = false;
  lint_mode lint = lint_mode::warn;
  sim_mode mode = sim_mode::functional;

  bool functional() const { return mode == sim_mode::functional; }

  template <class V>
  void visit(V& v) {
    v.field("quantum_ns", quantum_ns, "Temporal-decoupling quantum of the firmware CPU",
            range(1, 1000000));
    v.field("max_time_ms", max_time_ms, "Simulated-time limit; reaching it is a failure",
            range(1, 86400000));
    v.field("max_wall_s", max_wall_s,
            "Wall-clock limit of one run, seconds; reaching it is a failure. 0 = no limit",
            range(0.0, 1e7));
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
    v.field("npu_base", npu_base, "Base of the NPU window (CPU view); 4 KiB aligned", address());
    v.field("npu_size", npu_size,
            "Size of the NPU window: registers + DMA pages, bytes (the sim-control device "
            "follows at npu_base + 0x100000)",
            hex(), range(0x1000, 0x100000));
    v.field("ddr_base", ddr_base, "Base of DDR as addressed by the NPU DMA", address());
    v.field("ddr_size", ddr_size, "Size of DDR, bytes", hex(), at_least(1));
  }
  void validate(validator& check) const;
};

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
            range(1, 100000));
    v.field("mmio_read_ns", mmio_read_ns,
            "Round trip of an AXI-Lite read from the A53; at least 1 ns, so that a driver "
            "polling STATUS lets the NPU run",
            range(1, 100000));
    v.field("stack_kib", stack_kib, "Stack of the firmware thread", range(64, 1048576));
    v.field("clock_mhz", clock_mhz,
            "A53 clock of an AArch64 ELF firmware (1333 MHz on the K26)", range(1.0, 10000.0));
    v.field("cycles_per_instruction", cycles_per_instruction,
            "A53 clocks per instruction an AArch64 ELF firmware retires", range(0.01, 1000.0));
    v.field("elf_stack_kib", elf_stack_kib,
            "Stack mapped after an AArch64 ELF's image (SP starts at its top)", range(4, 1048576));
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
            "descriptors per channel, markers, DDR bandwidth and firmware counters as Chrome "
            "trace events (ui.perfetto.dev)");
    v.field("vcd", vcd,
            "Write signals.vcd into output.dir: engine busy, stream FIFO levels, DDR bytes in "
            "flight and utilisation (GTKWave)");
    v.field("pccx", pccx,
            "Write session.pccx into output.dir: instructions, DMA descriptors, issue stalls and "
            "waits for the NPU as a pccx-lab session");
    v.field("plots", plots,
            "Write ddr_bandwidth.svg into output.dir: GB/s per traffic class over simulated "
            "time, the DDR peak and effective bandwidth, the firmware's markers");
    v.field("plot_columns", plot_columns,
            "Most columns of ddr_bandwidth.svg: longer runs merge whole stats windows per column",
            range(10, 100000));
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
