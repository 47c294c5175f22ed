// Reading the JSON inputs of the workloads (sweep files, the replay's DMA
// file) the way configuration files are read: every problem is reported as
// "<file>: <JSON pointer>: <what>", and configuration overrides a file
// carries are checked against the platform configuration, with the
// configuration's messages re-addressed to the file's keys.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "platform/config/platform_loader.h"

namespace pccx::workload {

std::string pointer(const std::string& base, const std::string& key);
std::string index_pointer(const std::string& base, std::size_t i);

// Reports every key of `keys` that obj lacks as "missing (a required key)";
// a value that is not an object is left to the binder.
void require(const nlohmann::json& obj, const std::string& ptr,
             std::initializer_list<const char*> keys, const std::string& file,
             config::diagnostics& diag);

// Reads a JSON file whose top level must be an object, reporting to diag
// and throwing config::config_error on a problem.
nlohmann::json read_object_file(const std::string& path);

// "" for a key --set accepts (a.b.c), else what is wrong with it.
std::string set_key_problem(const std::string& key);
// The text of `--set KEY=VALUE` for a JSON value: KEY=<the value as JSON>.
std::string set_arg(const std::string& key, const nlohmann::json& value);

// Where one --set of a generated command line comes from, for messages:
// a problem the configuration finds with `--set <arg>` is reported as
// "<source>: <pointer>: <prefix><what>".
struct set_origin {
  std::string arg;  // KEY=VALUE, as passed to --set
  std::string source, pointer, prefix;
};

// Loads a configuration whose --set options include generated ones; every
// problem is reported to diag, re-addressed to the origin of the --set it
// blames, or to `source` and `pointer` when it blames none. Returns the
// configuration when it is valid.
std::optional<config::platform_config> load_blaming(const config::config_layers& layers,
                                                    const std::vector<set_origin>& origins,
                                                    const std::string& source,
                                                    const std::string& pointer,
                                                    config::diagnostics& diag);

}  // namespace pccx::workload
