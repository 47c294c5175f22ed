// Loading, dumping and describing the platform configuration: the generic
// engine (infra/config/config_loader.h) applied to platform_config.
#pragma once

#include "infra/config/config_loader.h"
#include "platform/config/platform_config.h"

namespace pccx::config {

platform_config load(const config_layers& layers);   // throws config_error
nlohmann::json to_json(const platform_config& cfg);  // the effective configuration
std::string dump_text(const platform_config& cfg);
// Writes dump_text() to path ("-" = stdout); throws config_error on I/O failure.
void dump(const platform_config& cfg, const std::string& path);
std::vector<key_info> describe_keys();

}  // namespace pccx::config
