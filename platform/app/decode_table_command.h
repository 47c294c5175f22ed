// `pccx-vp decode-table`: every cell of a sweep file (model x KV strategy x
// context) as a child `pccx-vp decode --json` process, --jobs at a time,
// gathered into DIR/decode_table.{md,csv,json} with the cells' documents in
// DIR/cells/ and the wall-clock figures in DIR/decode_table_timing.json.
// docs/guides/decode-table.md.
#pragma once

#include "platform/app/cli_options.h"

namespace pccx::app {

// 0 when every cell ran or was reported as not fitting in DDR, 1 when any
// other cell failed (its output goes to stderr); bad input throws.
int run_decode_table(const cli_options& opts);

// Reads and checks the sweep file as the run does (--validate-only too);
// throws vp::input_error with the run's message.
void check_decode_table_sweep(const cli_options& opts);

}  // namespace pccx::app
