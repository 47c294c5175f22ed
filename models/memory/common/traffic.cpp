#include "models/memory/common/traffic.h"

namespace pccx::mem {

namespace {
constexpr const char* kPortNames[] = {"hp0", "hp1", "hp2", "hp3", "acp", "cpu"};
constexpr const char* kClassNames[] = {"weights",     "kv_read",     "kv_write",
                                       "kv_metadata", "activations", "host"};
static_assert(sizeof(kPortNames) / sizeof(*kPortNames) == kDdrPorts);
static_assert(sizeof(kClassNames) / sizeof(*kClassNames) == kTrafficClasses);
}  // namespace

const char* ddr_port_name(ddr_port p) {
  const auto i = static_cast<size_t>(p);
  return i < kDdrPorts ? kPortNames[i] : "?";
}

const char* traffic_class_name(traffic_class c) {
  const auto i = static_cast<size_t>(c);
  return i < kTrafficClasses ? kClassNames[i] : "?";
}

std::optional<traffic_class> parse_traffic_class(std::string_view name) {
  for (size_t i = 0; i < kTrafficClasses; ++i)
    if (name == kClassNames[i]) return static_cast<traffic_class>(i);
  return std::nullopt;
}

}  // namespace pccx::mem
