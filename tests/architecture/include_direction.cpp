#include "include_direction.h"

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>

namespace fs = std::filesystem;

namespace pccx::arch {

const std::vector<layer>& layers() {
  static const std::vector<layer> table = {
      {"firmware/include/", 0, "firmware headers"},
      {"infra/", 1, "infrastructure"},
      {"traces/", 1, "infrastructure"},
      {"models/", 2, "models"},
      {"platform/config/", 3, "platform"},
      {"platform/vp/", 3, "platform"},
      {"platform/workload/", 4, "workloads"},
      {"platform/report/", 5, "reports"},
      {"platform/app/", 6, "executable"},
  };
  return table;
}

namespace {

// Files the build generates next to their includer's target, not in the tree.
const std::set<std::string> kGenerated = {"builtin_programs.inc"};

const layer* layer_of(const std::string& rel) {
  for (const layer& l : layers())
    if (rel.compare(0, l.folder.size(), l.folder) == 0) return &l;
  return nullptr;
}

bool is_source(const fs::path& p) {
  const std::string e = p.extension().string();
  return e == ".h" || e == ".hpp" || e == ".cpp" || e == ".c" || e == ".inc";
}

std::string repo_path(const fs::path& p, const fs::path& root) {
  return fs::relative(p, root).generic_string();
}

}  // namespace

std::vector<std::string> check_include_direction(const fs::path& root) {
  std::vector<std::string> problems;
  static const std::regex include_re(R"re(^\s*#\s*include\s+"([^"]+)")re");
  std::vector<fs::path> files;
  for (const char* top : {"infra", "traces", "models", "platform", "firmware"}) {
    if (!fs::is_directory(root / top)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root / top))
      if (e.is_regular_file() && is_source(e.path())) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    const std::string rel = repo_path(file, root);
    const bool firmware = rel.rfind("firmware/", 0) == 0 && rel.rfind("firmware/include/", 0) != 0;
    const layer* from = layer_of(rel);
    std::ifstream in(file);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      std::smatch m;
      if (!std::regex_search(line, m, include_re)) continue;
      const std::string name = m[1];
      const std::string where = rel + ":" + std::to_string(n) + ": ";
      std::string target;
      if (fs::is_regular_file(file.parent_path() / name)) {
        target = repo_path(fs::weakly_canonical(file.parent_path() / name), root);
        // Outside firmware, a header of another folder is named by its
        // repository path, so an include says where the file lives.
        if (!firmware && from && rel.rfind("firmware/include/", 0) != 0 &&
            name.find('/') == std::string::npos && target != name &&
            target.rfind(rel.substr(0, rel.rfind('/') + 1), 0) == 0 && from->rank > 0) {
          problems.push_back(where + "includes \"" + name +
                             "\" by its folder-relative name: write its repository path \"" +
                             target + "\"");
          continue;
        }
      } else if (fs::is_regular_file(root / name)) {
        target = name;
      } else if (fs::is_regular_file(root / "firmware/include" / name)) {
        target = "firmware/include/" + name;
      } else if (kGenerated.count(name)) {
        continue;
      } else {
        problems.push_back(where + "includes \"" + name +
                           "\", which is neither a repository path nor a firmware header");
        continue;
      }
      if (firmware) {
        if (target.rfind("firmware/", 0) != 0)
          problems.push_back(where + "firmware includes " + target +
                             ": firmware may include only firmware/include and its own folder");
        continue;
      }
      const layer* to = layer_of(target);
      if (!from || !to) {
        problems.push_back(where + "includes " + target + ", which belongs to no layer");
        continue;
      }
      if (to->rank > from->rank)
        problems.push_back(where + from->name + " (layer " + std::to_string(from->rank) +
                           ") includes " + target + " of a higher layer, " + to->name + " (layer " +
                           std::to_string(to->rank) + ")");
    }
  }
  return problems;
}

}  // namespace pccx::arch
