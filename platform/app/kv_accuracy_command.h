// `pccx-vp kv-accuracy`: the KV-format accuracy table on synthetic heads
// (models/kv/kv_accuracy.h), printed as Markdown and, with --out DIR,
// written as kv_accuracy.md, kv_formats.csv, kv_rotated.csv,
// kv_windows.csv and kv_accuracy.json.
#pragma once

#include <ostream>

#include "platform/app/cli_options.h"

namespace pccx::app {

int run_kv_accuracy(const cli_options& opts, std::ostream& out);

}  // namespace pccx::app
