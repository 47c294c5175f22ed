// The pccx-vp command line. Convenience flags (--strict, --log-level, --log,
// --trace-*, --out) become configuration overrides applied after --set, so
// every behaviour still has exactly one configuration key.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "platform/config/platform_loader.h"

namespace pccx::app {

struct cli_options {
  enum class command {
    run,
    disasm,
    kv_accuracy,
    decode,
    decode_table,
    sweep,
    merge,
    replay,
    ddr_bench,
    prefill_plan,
    compare,
    help,
    version,
    list_firmware
  } cmd = command::run;
  std::string firmware = "memset_sync";
  bool firmware_given = false;  // --firmware on the command line (decode: an AArch64 ELF)
  uint32_t gdb_port = 0;        // --gdb PORT: a GDB server for an AArch64 ELF firmware
  std::string disasm_file;
  // kv-accuracy: synthetic history length, heads averaged, first seed.
  uint32_t kv_tokens = 2048, kv_heads = 4;
  uint64_t kv_seed = 1;
  std::string out_dir;
  // decode: the model file, context L, tokens N, ring cap (0 = L + N), sinks.
  std::string model;
  uint32_t context = 1024, decode_tokens = 4, ring_cap = 0, sinks = 0;
  bool per_layer = false;
  uint64_t reference_seed = 0;
  // prefill-plan: prompt tokens P, rows per chunk (0 = the most the GEMM
  // takes), eviction allowed; --tokens is then the tokens generated after.
  uint32_t prompt_tokens = 0, chunk = 0;
  bool evict = false;
  std::string json_file;  // decode and replay --json: the report as JSON
  // decode-table: the sweep file and the children run at once (0 = cores).
  std::string sweep;
  uint32_t jobs = 0;
  // sweep: the axes (--sweep KEY=V1,V2,...), a sweep file, this run's
  // shard I of N, a wall-clock limit per point (0 = none) and the command
  // every point runs (the words after "--").
  std::vector<std::string> axes;
  std::string sweep_file;
  uint32_t shard_index = 0, shard_count = 1;
  bool sharded = false;
  double point_timeout_s = 0;
  std::vector<std::string> point_command;
  // merge: folders or points files; compare: the two folders A and B.
  std::vector<std::string> inputs;
  // compare: the HTML report, the threshold in percent (negative: none)
  // and the metrics it applies to (none: every metric).
  std::string html_file;
  double fail_above = -1;
  std::vector<std::string> metrics;
  // replay: the instruction stream, its DMA file, whether to clear NPU
  // errors and go on.
  std::string replay_file, dma_file;
  bool keep_going = false;
  bool keep_outputs = false;   // decode-table, sweep: each cell's outputs in its folder
  bool resume = false;         // decode-table, sweep: skip cells and points already complete
  bool auto_dma = false;       // replay --auto-dma: plan the stream's DMA descriptors
  uint64_t auto_dma_base = 0;  // the first planned buffer (--auto-dma=ADDR)
  // ddr-bench: the traffic streams (--stream SPEC) and a file of requests.
  std::vector<std::string> streams;
  std::string requests_file;
  config::config_layers layers;
  std::string dump_config;
  bool validate_only = false;
  std::string help_text;
};

struct cli_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

cli_options parse_cli(int argc, char** argv);  // throws cli_error

}  // namespace pccx::app
