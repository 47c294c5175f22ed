#include "platform/workload/cell_outputs.h"

#include <filesystem>
#include <nlohmann/json.hpp>

namespace pccx::workload {

namespace {

namespace fs = std::filesystem;

const char* const kTraceOptions[] = {"--trace-mmio", "--trace-instructions", "--trace-ddr"};

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

bool is_trace_option(const std::string& a) {
  for (const char* o : kTraceOptions)
    if (a == o) return true;
  return false;
}

// A --set value naming a shared output: trace.<file>=PATH or output.dir=DIR.
bool shared_set(const std::string& v) {
  return starts_with(v, "trace.") || starts_with(v, "output.dir=");
}

// The file a --set or option value names, as plain text (JSON strings are
// unquoted).
std::string path_of(const std::string& value) {
  const auto j = nlohmann::json::parse(value, nullptr, false);
  return !j.is_discarded() && j.is_string() ? j.get<std::string>() : value;
}

std::string inside(const std::string& folder, const std::string& file) {
  return (fs::path(folder) / fs::path(file).filename()).string();
}

}  // namespace

std::optional<std::string> shared_output(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool next = i + 1 < args.size();
    if ((is_trace_option(a) || a == "--out" || a == "-o") && next) return a + " " + args[i + 1];
    for (const char* o : kTraceOptions)
      if (starts_with(a, std::string(o) + "=")) return a;
    if (starts_with(a, "--out=")) return a;
    if ((a == "--set" || a == "-s") && next && shared_set(args[i + 1]))
      return a + " " + args[i + 1];
    if (starts_with(a, "--set=") && shared_set(a.substr(6))) return a;
  }
  return std::nullopt;
}

std::vector<std::string> outputs_in(const std::vector<std::string>& given,
                                    const std::string& folder) {
  // --opt=VALUE as --opt VALUE, for the options rewritten below.
  std::vector<std::string> args;
  for (const auto& a : given) {
    const auto eq = a.find('=');
    const std::string opt = a.substr(0, eq);
    if (eq != std::string::npos && starts_with(a, "--") &&
        (is_trace_option(opt) || opt == "--out" || opt == "--set"))
      args.insert(args.end(), {opt, a.substr(eq + 1)});
    else
      args.push_back(a);
  }
  // Plots first, so that an output.plots of the arguments still wins.
  std::vector<std::string> out = {"--set", "output.plots=true"};
  bool has_out = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool next = i + 1 < args.size();
    if (is_trace_option(a) && next) {
      out.insert(out.end(), {a, inside(folder, args[++i])});
    } else if ((a == "--out" || a == "-o") && next) {
      out.insert(out.end(), {a, folder});
      ++i;
      has_out = true;
    } else if ((a == "--set" || a == "-s") && next && shared_set(args[i + 1])) {
      const std::string& v = args[++i];
      const auto eq = v.find('=');
      const std::string key = v.substr(0, eq);
      const std::string path =
          key == "output.dir" ? folder : inside(folder, path_of(v.substr(eq + 1)));
      out.insert(out.end(), {a, key + "=" + nlohmann::json(path).dump()});
      has_out |= key == "output.dir";
    } else {
      out.push_back(a);
    }
  }
  if (!has_out) out.insert(out.end(), {"--out", folder});
  return out;
}

}  // namespace pccx::workload
