#include "platform/config/platform_loader.h"

namespace pccx::config {

platform_config load(const config_layers& layers) {
  return load_as<platform_config>(layers);
}

nlohmann::json to_json(const platform_config& cfg) {
  return to_json_as(cfg);
}

std::string dump_text(const platform_config& cfg) {
  return dump_text_as(cfg);
}

void dump(const platform_config& cfg, const std::string& path) {
  dump_as(cfg, path);
}

std::vector<key_info> describe_keys() {
  return describe_keys_as<platform_config>();
}

}  // namespace pccx::config
