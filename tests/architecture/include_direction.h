// The include-direction check: every quoted #include in the source tree,
// resolved to the file it names, must point at the same layer or a lower one
// (docs/architecture.md). Firmware (C) may include only firmware/.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace pccx::arch {

struct layer {
  std::string folder;  // repository path prefix
  int rank;            // higher ranks may include lower ones
  std::string name;
};

// The layers, most specific folder first.
const std::vector<layer>& layers();

// One line per offending include, "FILE:LINE: what is wrong"; empty when
// every include points down. `root` is the repository root.
std::vector<std::string> check_include_direction(const std::filesystem::path& root);

}  // namespace pccx::arch
