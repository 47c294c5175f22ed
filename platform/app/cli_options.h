// The pccx-vp command line. Convenience flags (--strict, --log-level, --log,
// --trace-*, --out) become configuration overrides applied after --set, so
// every behaviour still has exactly one configuration key.
#pragma once

#include <string>
#include <vector>

#include "config/config_loader.h"

namespace pccx::app {

struct cli_options {
  enum class command { run, disasm, help, version, list_firmware } cmd = command::run;
  std::string firmware = "memset_sync";
  std::string disasm_file;
  config::config_layers layers;
  std::string dump_config;
  bool validate_only = false;
  std::string help_text;
};

struct cli_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

cli_options parse_cli(int argc, char** argv);  // throws cli_error

}  // namespace pccx::app
