// pccx-vp ddr-bench: the memory system alone under generated or replayed
// traffic (platform/workload/ddr_bench.h).
#pragma once

#include "platform/app/cli_options.h"
#include "platform/config/platform_config.h"
#include "platform/workload/ddr_bench.h"

namespace pccx::app {

// The --stream specs and the --requests file as the run reads them; bad
// ones throw vp::input_error (--validate-only uses it too).
workload::ddr_bench_options ddr_bench_input(const cli_options& opts);

// Prints the report; --json FILE also writes it. Bad streams or request
// files are input errors (exit code 2).
int run_ddr_bench_command(const config::platform_config& cfg, const cli_options& opts);

}  // namespace pccx::app
