// Comparing two output folders of the same kind (`pccx-vp compare A B`,
// docs/guides/cli.md#compare): two runs (summary.json, with decode.json
// when the run was a decode), two decode tables (decode_table.json) or two
// sweeps (points.jsonl and its shards). Each folder becomes a flat list of
// named numeric metrics, a few texts (outcomes, statuses) and the
// configuration it was made with; two such lists become a comparison:
// every metric with A, B, B - A and the relative change, the metrics and
// the cells or points found on one side only, and the configuration keys
// that differ (as JSON pointers). Everything here is a pure function of
// the files read, so the report is the same bytes for the same folders.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace pccx::workload {

// A folder that cannot be compared (missing, of no known kind, malformed)
// or a choice of metrics that names none: bad input.
struct compare_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class output_kind { run, decode_table, sweep };
// "run", "decode table", "sweep".
const char* output_kind_name(output_kind k);

// The kind of an output folder from the files in it: decode_table.json (a
// decode table), points.jsonl or points-<I>-of-<N>.jsonl (a sweep),
// summary.json (a run). Throws compare_error naming the folder and what
// was expected when it is none of them, or more than one.
output_kind detect_kind(const std::string& dir);

struct metric {
  std::string section;  // the report's heading it is listed under
  std::string name;     // unique in a folder; what --metric chooses
  double value = 0;
};

// A non-numeric field reported when it differs: an outcome, a status.
struct text_field {
  std::string name;
  std::string value;
};

struct folder_metrics {
  std::string dir;
  output_kind kind = output_kind::run;
  std::vector<std::string> files;  // the files read, relative to dir
  std::vector<metric> metrics;     // in the report's order
  std::vector<text_field> texts;
  // What the configuration differences are computed from: the effective
  // configuration (runs), the table's recorded sweep, --config and --set
  // (decode tables), the sweep's definition (sweeps).
  nlohmann::json config = nlohmann::json::object();
  // Decode tables and sweeps: the cells or points, by label, in order.
  std::vector<std::string> entities;
  std::vector<std::string> notes;  // e.g. a sweep's missing points
};

// Reads one output folder (its kind detected as detect_kind does). Throws
// compare_error naming the file and what is wrong with it.
folder_metrics read_folder(const std::string& dir);

// The metrics of documents, as read_folder names them (exposed for tests
// and other reports). `prefix` goes before every name ("" for a run
// folder, "<cell>/" or "<point>/" inside a table or a sweep), `section`
// before every section heading.
void summary_metrics(const nlohmann::json& summary, const std::string& prefix,
                     const std::string& section, std::vector<metric>& out);
void decode_metrics(const nlohmann::json& doc, const std::string& prefix,
                    const std::string& section, std::vector<metric>& out);
void table_row_metrics(const nlohmann::json& row, const std::string& prefix,
                       const std::string& section, std::vector<metric>& out);

struct metric_diff {
  std::string section, name;
  std::optional<double> a, b;  // absent on a side that lacks the metric
  bool both() const { return a && b; }
  // Both present and equal to 12 significant digits (the last bits of a
  // mean may differ when nothing else does).
  bool same() const;
  double delta() const;  // B - A (both present; 0 when same())
  // 100 (B - A) / |A|: 0 when same(), +-infinity when A is 0 and B is
  // not, NaN when a side lacks the metric.
  double relative_pct() const;
  // Whether the metric moved by more than `pct` percent: |relative_pct| >
  // pct, or present on one side only.
  bool moved_above(double pct) const;
};

struct config_diff {
  std::string pointer;  // JSON pointer into the compared configuration
  std::optional<nlohmann::json> a, b;  // absent on a side that lacks the key
};

struct text_diff {
  std::string name;
  std::optional<std::string> a, b;
};

struct comparison {
  output_kind kind = output_kind::run;
  std::string dir_a, dir_b;
  std::vector<std::string> files_a, files_b;
  std::vector<metric_diff> metrics;  // A's order, then the metrics only B has
  std::vector<text_diff> texts;      // the texts that differ
  std::vector<config_diff> config;   // the keys that differ
  std::vector<std::string> only_a, only_b;  // cells or points on one side only
  std::vector<std::string> notes;

  std::size_t differing() const;  // metrics not equal, or on one side only
};

// Throws compare_error when the folders are of different kinds.
comparison compare(const folder_metrics& a, const folder_metrics& b);
// Both folders' kinds first (a mix is refused before either is read),
// then read_folder and compare.
comparison compare_folders(const std::string& a, const std::string& b);

// The leaves where two JSON documents differ, in key order, as JSON
// pointers; arrays are compared element by element. Pointers in `ignore`
// (and everything under them) are skipped.
std::vector<config_diff> json_differences(const nlohmann::json& a, const nlohmann::json& b,
                                          const std::vector<std::string>& ignore = {});

// The metrics chosen by --metric: each name exactly as the report prints
// it, or a pattern with '*' (any run of characters) that matches at least
// one; no names = every metric. Returns indexes into c.metrics. Throws
// compare_error naming an unknown name and suggesting close ones.
std::vector<std::size_t> select_metrics(const comparison& c, const std::vector<std::string>& names);
// Up to three names close to `name` (edit distance, or containing it).
std::vector<std::string> close_names(const std::string& name,
                                     const std::vector<std::string>& names);
// Of `chosen`, the metrics that moved by more than pct percent.
std::vector<std::size_t> moved_above(const comparison& c, const std::vector<std::size_t>& chosen,
                                     double pct);

// Text of the report's numbers: whole values as integers, others with 9
// significant digits; differences with a sign; changes in percent.
std::string figure_text(double v);
std::string delta_text(double v);
std::string percent_text(double pct);  // "+12.345 %", "0 %", "+inf %", "n/a"

// The metrics with the largest absolute relative change (finite or not,
// nonzero, on both sides), largest first, at most n.
std::vector<std::size_t> largest_changes(const comparison& c, std::size_t n);

// The whole report as Markdown.
std::string comparison_markdown(const comparison& c);

}  // namespace pccx::workload
