// The results of a sweep (docs/guides/sweeps.md): one JSON Lines file per run of
// `pccx-vp sweep` (points.jsonl, or points-<I>-of-<N>.jsonl for a shard)
// whose first line is a header with the sweep's definition and hash and
// whose other lines are the points, in point order; and the tables
// (sweep.csv, sweep.md) made from one or more such files. The tables
// depend only on the definition and the points' lines, so the shards of a
// sweep merged give the same bytes as the sweep run whole.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "platform/workload/sweep_plan.h"

namespace pccx::workload {

// What became of one point.
struct sweep_point_result {
  std::size_t index = 0;
  std::string status;     // ok, does_not_fit (decode), bad_input, failed
  int exit_code = -1;     // the child's exit code, -1 when it did not exit
  std::string error;      // one line, unless ok
  nlohmann::json result;  // the child's document without wall-clock figures (null: none)
  // Relative to the sweep folder; "" when the child did not write it.
  std::string result_file, config_file;
};

// The first line of a points file.
nlohmann::ordered_json header_record(const sweep_definition& d, std::size_t shard,
                                     std::size_t shards);
// A point's line: "point", "axes" (key -> value), "status", "exit_code",
// "error" (unless ok), "config" and "result_file" (when written), "result".
nlohmann::ordered_json point_record(const sweep_definition& d, const sweep_point_result& p);

// What of a point's document goes into its line: every "wall_time_s" and
// "speed" (the run's speed against the wall clock) removed at any depth,
// the figures that change from run to run; for a firmware run also the
// summary's "config", which is the point's config.json.
void keep_deterministic(sweep_kind kind, nlohmann::json& j);

// The status, exit code and error of a finished point from its document
// (null when the child wrote none) and how the child ended.
// `abnormal`: why it did not exit ("" when it did), `log_tail`: the last
// line of its output.
void classify_point(sweep_kind kind, const std::string& abnormal, int exit_code,
                    const std::string& log_tail, sweep_point_result& p);

struct sweep_results {
  nlohmann::ordered_json definition;
  std::string hash;
  std::size_t total = 0;
  std::vector<nlohmann::ordered_json> points;  // the points present, in point order
  std::vector<std::size_t> missing;
};

// Reads points files; a folder stands for its points.jsonl and
// points-*-of-*.jsonl. Checks that every file is of the same sweep (the
// same definition and hash) and that no point is there twice; points not
// found are listed in `missing`. Throws config::config_error with every
// problem, each naming the file and line.
sweep_results read_results(const std::vector<std::string>& inputs);

// One row per point in point order (a missing point as a row with status
// "missing"): the axes, the status, the main figures of the command, a note.
std::string results_csv(const sweep_results& r);
std::string results_markdown(const sweep_results& r);

}  // namespace pccx::workload
