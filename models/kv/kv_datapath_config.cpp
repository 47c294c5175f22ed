#include "models/kv/kv_datapath_config.h"

#include <utility>

namespace pccx::config {

kv::kv_format to_kv_format(const kv_format_config& c, uint32_t head_dim) {
  kv::kv_format f;
  f.kind = c.kind == "int8"      ? kv::kv_kind::int8
           : c.kind == "int4"    ? kv::kv_kind::int4
           : c.kind == "rotated" ? kv::kv_kind::rotated
                                 : kv::kv_kind::fp16;
  f.head_dim = head_dim;
  f.group = c.group;
  f.bits = c.bits;
  f.residual_sketch = c.residual_sketch;
  return f;
}

kv::kv_format kv_datapath_config::key_format() const { return to_kv_format(key, head_dim); }
kv::kv_format kv_datapath_config::value_format() const { return to_kv_format(value, head_dim); }

void kv_datapath_config::validate(validator& check) const {
  for (const auto& [name, fc] : {std::pair{"key", &key}, std::pair{"value", &value}}) {
    const std::string problem = to_kv_format(*fc, head_dim).check();
    if (!problem.empty()) check.fail({std::string(name), "head_dim"}, problem);
  }
}

}  // namespace pccx::config
