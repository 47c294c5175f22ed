// `pccx-vp replay FILE.memh [--dma FILE.json] [--keep-going] [--json FILE]`:
// the stream through CMD_IN by the replay program, with the report on
// stdout and, with --json, as a document (workload/replay_runner.h).
#pragma once

#include "platform/app/cli_options.h"
#include "platform/config/platform_config.h"
#include "platform/workload/replay_runner.h"

namespace pccx::app {

// The stream, its DMA file and (--auto-dma) its planned descriptors, as the
// run reads them: a malformed file throws isa::memh_error or
// vp::input_error with the run's own message (--validate-only uses it too).
workload::replay_input load_replay_input(const config::platform_config& cfg,
                                         const cli_options& opts);

// 0 when every word retired without an NPU or DMA error, 1 otherwise; a
// malformed .memh or DMA file throws (bad input) after writing --json.
int run_replay_command(const config::platform_config& cfg, const cli_options& opts);

}  // namespace pccx::app
