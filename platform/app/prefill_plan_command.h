// pccx-vp prefill-plan: the tiling, bytes, MACs and bound of a prompt's
// prefill from the configuration alone (platform/workload/prefill_plan_report.h).
#pragma once

#include "platform/app/cli_options.h"
#include "platform/config/platform_config.h"
#include "platform/workload/llm/prefill_plan.h"

namespace pccx::app {

// The command line's prefill options.
llm::prefill_options prefill_options_of(const cli_options& opts);

// Prints the plan; --json FILE also writes it. What the plan refuses (a
// chunk, a prompt, a model) is an input error (exit code 2).
int run_prefill_plan_command(const config::platform_config& cfg, const cli_options& opts);

}  // namespace pccx::app
