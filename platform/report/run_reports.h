// The HTML reports of pccx-vp's outputs, each built from the files a
// command wrote (so a folder can be reported again later):
//   write_run_report      a run's folder: summary.json, ddr_bandwidth.csv
//                          and, for a decode, decode.json
//   write_table_report    a decode table's folder: decode_table.json
//   write_sweep_report    a sweep's points files (its folder, or what
//                          merge reads), into the output folder
// Each writes DIR/report.html and throws std::runtime_error naming what it
// could not read or write.
#pragma once

#include <string>
#include <vector>

namespace pccx::report {

// Where a run's configuration came from, in command-line order.
struct config_sources {
  std::vector<std::string> files;  // --config FILE
  std::vector<std::string> sets;   // --set KEY=VALUE
};

void write_run_report(const std::string& dir, const config_sources& sources);
void write_table_report(const std::string& dir);
void write_sweep_report(const std::vector<std::string>& inputs, const std::string& dir);

}  // namespace pccx::report
