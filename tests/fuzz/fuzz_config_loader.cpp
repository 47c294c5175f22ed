// libFuzzer harness: arbitrary bytes as a --config file plus --set
// overrides through the layered JSON loader, binder and validation.
// Input: the file's bytes, then (after the first NUL byte, if any) one
// --set assignment per line. Only config::config_error may escape; a
// configuration that loads must convert to runtime parameters, and its
// dump must load back to the same configuration.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "platform/config/platform_loader.h"
#include "platform/vp/top/runtime_params.h"

namespace {

[[noreturn]] void violated(const char* what) {
  std::fprintf(stderr, "fuzz_config_loader: invariant violated: %s\n", what);
  __builtin_trap();
}

// One scratch file per process: parallel fuzzing jobs must not share it.
std::string scratch(const char* tag) {
  return "/tmp/pccx_fuzz_config_" + std::to_string(::getpid()) + "_" + tag + ".json";
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) violated("cannot write the scratch file");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  pccx::config::config_layers layers;
  const std::string file = scratch("in");
  write_file(file, input.substr(0, nul));
  layers.files.push_back(file);
  if (nul != std::string::npos) {
    size_t pos = nul + 1;
    // A bounded number of overrides keeps each input fast.
    while (pos <= input.size() && layers.sets.size() < 16) {
      const size_t nl = input.find('\n', pos);
      const size_t end = nl == std::string::npos ? input.size() : nl;
      layers.sets.push_back(input.substr(pos, end - pos));
      if (nl == std::string::npos) break;
      pos = nl + 1;
    }
  }

  pccx::config::platform_config cfg;
  try {
    cfg = pccx::config::load(layers);
  } catch (const pccx::config::config_error& e) {
    if (e.messages().empty()) violated("config_error without a message");
    return 0;
  }

  // What validation accepted, the models must be able to take.
  (void)pccx::vp::to_runtime(cfg);

  // The effective configuration, dumped, is a configuration file that loads
  // back to itself (docs/reference/configuration.md: --dump-config).
  const nlohmann::json effective = pccx::config::to_json(cfg);
  std::string text;
  try {
    text = pccx::config::dump_text(cfg);
  } catch (const std::exception&) {
    violated("dump_text threw on a loaded configuration");
  }
  const std::string dumped = scratch("dump");
  write_file(dumped, text);
  pccx::config::platform_config again;
  try {
    again = pccx::config::load({{dumped}, {}});
  } catch (const pccx::config::config_error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    violated("the dumped configuration does not load");
  }
  // Strings that are not UTF-8 are replaced in the dump, so only compare
  // what JSON can carry unchanged.
  try {
    (void)effective.dump();
  } catch (const nlohmann::json::exception&) {
    return 0;
  }
  if (pccx::config::to_json(again) != effective) violated("dump does not load back to itself");
  return 0;
}
