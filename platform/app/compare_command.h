// `pccx-vp compare A B`: two output folders of the same kind (two runs, two
// decode tables or two sweeps) side by side: every metric with A, B, the
// difference and the relative change, and the configuration keys that
// differ, as Markdown on stdout and, with --html FILE, as a self-contained
// HTML page. --fail-above PCT makes it a check: exit 1 when a metric
// (every one, or those chosen by --metric) moved by more than PCT percent.
// The comparison itself is platform/workload/run_compare.h;
// docs/guides/cli.md#compare.
#pragma once

#include <string>
#include <vector>

#include "platform/app/cli_options.h"
#include "platform/workload/run_compare.h"

namespace pccx::app {

// 0, or 1 when --fail-above is given and a chosen metric moved by more
// than it; a folder that cannot be compared, an unknown --metric or an
// HTML file that cannot be written throws vp::input_error (exit code 2).
int run_compare_command(const cli_options& opts);

// The report as an HTML page (report::html_page): the summary, a bar chart
// of the largest changes, one of A against B (per part of a decode, per
// cell of a table, per point of a sweep), every section's table and the
// configuration keys that differ. `moved` are the metrics over the
// threshold (shown when `pct` >= 0).
std::string compare_html(const workload::comparison& c, double pct,
                         const std::vector<std::size_t>& chosen,
                         const std::vector<std::size_t>& moved);

}  // namespace pccx::app
