// `pccx-vp sweep` and `pccx-vp merge` (docs/guides/sweeps.md). sweep runs the
// Cartesian product of configuration axes, each point a child process of
// this executable running the command after "--" (decode, replay or a
// firmware run), and writes one JSON line per point in point order; a
// shard runs every N-th point. merge reads the points files of a sweep's
// runs and shards and writes sweep.csv and sweep.md.
#pragma once

#include "platform/app/cli_options.h"

namespace pccx::app {

// 0 when every point ran (a decode that does not fit in DDR counts as
// run), 1 when any failed; bad input throws.
int run_sweep(const cli_options& opts);
// 0 when every point is there, 1 when some are missing (the tables are
// still written); mixed sweeps and repeated points throw.
int run_merge(const cli_options& opts);

}  // namespace pccx::app
