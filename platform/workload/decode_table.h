// The decode table (docs/guides/decode-table.md): a sweep file names models,
// contexts and KV strategies; every cell (model x strategy x context) is one
// `pccx-vp decode --json` run in its own process (one SystemC simulation per
// process); the cells' documents become one row each of a Markdown, CSV and
// JSON table. This file holds everything but the processes: reading and
// checking the sweep, each cell's command line, a row from a cell's
// document, and the three renderings. They depend only on their inputs, so
// the tables are the same whatever order the cells finished in.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "platform/config/platform_loader.h"

namespace pccx::workload {

// Configuration overrides, each applied as `--set KEY=VALUE` (VALUE the JSON
// text of the value), in the order the sweep file lists them.
using config_sets = std::vector<std::pair<std::string, nlohmann::json>>;

struct decode_strategy {
  std::string name;   // in file names and the tables' strategy column
  std::string label;  // for readers; the name when the file gives none
  config_sets set;
  uint32_t ring_cap = 0;  // 0 = L + N (the whole history)
  uint32_t sinks = 0;
};

struct decode_sweep_model {
  std::string file;  // as the sweep file writes it
  std::string path;  // resolved against the sweep file's folder
  std::string name;  // the model file's "name"
};

// The prefill table's cells: model x strategy x prompt length.
struct prefill_sweep {
  std::vector<std::size_t> models;  // indices into decode_sweep::models
  std::vector<uint32_t> prompts;
  uint32_t chunk = 0;
};

struct decode_sweep {
  std::string file;  // the sweep file, as given
  std::vector<decode_sweep_model> models;
  std::vector<uint32_t> contexts;
  uint32_t tokens = 0;
  config_sets set;  // applied to every cell, before the strategy's
  std::vector<decode_strategy> strategies;
  prefill_sweep prefill;  // empty models: no prefill table
};

// Reads a sweep file and checks it: the keys and their types, the
// strategies' settings against the platform configuration `base` (the
// command line's --config and --set), each KV format against each model's
// head_dim, and every model file. Throws config::config_error with every
// problem found, each as "<file>: <JSON pointer>: <what>".
decode_sweep load_sweep(const std::string& path, const config::config_layers& base);

struct decode_cell {
  std::size_t model = 0, strategy = 0;
  uint32_t context = 0;
  std::string id;  // <model>-<strategy>-<context>, the cell file's name
};

// Every cell, in the tables' order: model, strategy, context as the sweep
// lists them.
std::vector<decode_cell> sweep_cells(const decode_sweep& s);

// The overrides of a strategy's cells, as --set arguments: the sweep's,
// the strategy's, the command line's (base), then simulation.mode=timing.
std::vector<std::string> cell_sets(const decode_sweep& s, const decode_strategy& st,
                                   const std::vector<std::string>& base_sets);

// The arguments of a cell's `pccx-vp decode` (without the executable).
std::vector<std::string> decode_args(const decode_sweep& s, const decode_cell& c,
                                     const config::config_layers& base,
                                     const std::string& json_path);

struct decode_row {
  enum class status { ok, does_not_fit, failed } state = status::failed;
  std::string model, strategy, label, cell;
  uint32_t context = 0, ring_cap = 0, sinks = 0, tokens = 0;
  std::string note;  // why a cell has no figures
  // Means over the N tokens.
  double latency_ms = 0, tokens_per_s = 0, bound_ms = 0, latency_over_bound = 0;
  double gemv_util_pct = 0, npu_util_pct = 0, achieved_gbps = 0, instructions = 0;
  std::vector<std::pair<std::string, double>> mb_per_token;  // DDR class -> MB (1e6 bytes)
  std::vector<std::pair<std::string, double>> mj_per_token;  // DRAM energy per class, mJ
  double dram_pj_per_bit = 0;
  double dram_mj() const;  // every class
  std::vector<double> latency_ms_per_token, bound_ms_per_token;
  bool memory_bound = false;  // the bound of every token is the memory term
  double mb(const std::string& cls) const;
};

// A row from a cell's decode document (status ok or does_not_fit); any
// other document, or one that lacks a field, gives a failed row.
decode_row cell_row(const decode_sweep& s, const decode_cell& c, const nlohmann::json& doc);
// The figures of a decode document whose status is ok (means over its
// tokens) into r, whose state becomes ok. Throws nlohmann::json::exception
// for a missing field, std::runtime_error for per-token arrays that do not
// agree.
void read_decode_figures(const nlohmann::json& doc, decode_row& r);
// The DDR classes the tables show, MB per token each.
const std::vector<std::string>& table_classes();
// A row for a cell whose process failed; `reason` is one line.
decode_row failed_row(const decode_sweep& s, const decode_cell& c, const std::string& reason);

// A name as it may stand in a cell's file name (other characters as '_').
std::string cell_file_name(const std::string& s);

// The short form of a DDR plan error: "does not fit in DDR with max_tokens
// N: TOTAL > SIZE (memory_map.ddr_size)".
std::string short_plan_error(const std::string& what);

struct decode_table {
  decode_sweep sweep;
  config::config_layers base;  // the command line's --config and --set
  std::vector<decode_row> rows;
};

std::string table_markdown(const decode_table& t);
std::string table_csv(const decode_table& t);
nlohmann::ordered_json table_json(const decode_table& t);

}  // namespace pccx::workload
