// The outputs of one cell of a decode table or one point of a sweep. Cells
// run side by side, so an output file named once for all of them (a trace
// file, an output folder) would be written by every cell at once: without
// --keep-outputs that is refused; with it, each cell's arguments are
// rewritten so its outputs land in its own folder.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pccx::workload {

// The first argument of `args` (a pccx-vp command line, without the
// executable) that names an output file or folder every cell would share
// (--trace-*, --out, --set trace.*=, --set output.dir=), as written; nullopt
// when there is none.
std::optional<std::string> shared_output(const std::vector<std::string>& args);

// `args` with its outputs in `folder`: each trace file keeps its file name
// inside the folder, --out and output.dir become the folder (added when
// absent), and output.plots is on unless the arguments turn it off.
std::vector<std::string> outputs_in(const std::vector<std::string>& args,
                                    const std::string& folder);

}  // namespace pccx::workload
