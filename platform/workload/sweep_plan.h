// The plan of a sweep (docs/guides/sweeps.md): axes of configuration values, from
// `--sweep KEY=V1,V2,...` options and sweep files, whose Cartesian product
// is the set of points; the command every point runs; and what identifies
// the sweep (its definition as JSON and a hash of it), so that shards run
// on different machines can be checked to belong together.
//
// Point numbering: the first axis varies slowest, the last fastest, like
// nested loops in the axes' order: point k has value index
// (k / (n_{i+1} x ... x n_last)) mod n_i on axis i. Shard I of N runs the
// points k with k mod N = I.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "platform/config/platform_loader.h"

namespace pccx::workload {

struct sweep_axis {
  std::string key;  // a configuration key a.b.c
  std::vector<nlohmann::json> values;
  // Where the axis was given, for messages: "--sweep KEY=..." or the sweep
  // file, and the JSON pointer of the axis in it ("" for --sweep).
  std::string source, pointer;
};

// "KEY=V1,V2,...": values split at the commas outside brackets, braces and
// quotes; each read as JSON when it parses as JSON, else as a string.
// Throws config::config_error naming the option.
sweep_axis parse_axis_option(const std::string& text);

// The axes of a sweep file ({"axes": [{"key": ..., "values": [...]}, ...]}),
// checked for keys, types and repeats. Throws config::config_error with
// every problem, each as "<file>: <JSON pointer>: <what>".
std::vector<sweep_axis> load_sweep_file(const std::string& path);

// What a point runs: decode (its --json document), replay (its --json
// document) or a firmware run (summary.json in its --out folder).
enum class sweep_kind { decode, replay, run };
const char* kind_name(sweep_kind k);

struct sweep_definition {
  std::vector<sweep_axis> axes;
  std::vector<std::string> command;  // the words after "--", as given
  sweep_kind kind = sweep_kind::run;
  config::config_layers base;  // the sweep's own --config and --set, given to every point
  bool timing_mode = false;    // --set simulation.mode=timing is added to every point

  std::size_t points() const;
  // Value index on each axis of point k.
  std::vector<std::size_t> coordinates(std::size_t k) const;
  // Everything the points' results depend on besides the executable's
  // inputs (model and firmware files): the hash covers exactly this.
  nlohmann::ordered_json to_json() const;
  std::string hash() const;  // definition_hash(to_json())
};

// 16 hex digits of FNV-1a 64 over the definition's JSON text: an identity
// check between shards, not a security measure.
std::string definition_hash(const nlohmann::ordered_json& definition);

// Every axis key and value against the configuration the points start
// from (`layers`: the command's and the sweep's --config and --set), one
// value at a time, and the axes against each other (no key twice, no value
// twice, not more than `max_points` points). Throws config::config_error
// with every problem, addressed to the --sweep option or the sweep file.
void check_axes(const std::vector<sweep_axis>& axes, const config::config_layers& layers,
                std::size_t max_points);

// Whether `layers` (--config files and --set options) choose
// simulation.mode themselves.
bool sets_simulation_mode(const config::config_layers& layers);

// The arguments of point k (without the executable): the command, the
// sweep's --config and --set, the point's axes as --set (last, so they
// win), simulation.mode=timing when the definition asks for it, where the
// result goes (--json RESULT for decode and replay, --out FOLDER for a
// run) and --dump-config CONFIG.
std::vector<std::string> point_args(const sweep_definition& d, std::size_t k,
                                    const std::string& folder, const std::string& result,
                                    const std::string& config);

// The text of an axis value in tables and progress lines: a string as it
// is, anything else as JSON.
std::string value_text(const nlohmann::json& v);

}  // namespace pccx::workload
