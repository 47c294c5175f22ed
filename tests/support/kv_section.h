// The npu.kv section that configures the given key and value record formats,
// for benches that build a unit with formats other than the defaults.
#pragma once

#include "models/kv/kv_datapath_config.h"
#include "models/kv/kv_format.h"

namespace pccx::test {

inline config::kv_format_config kv_format_section(const kv::kv_format& f) {
  config::kv_format_config c;
  c.kind = kv::kind_name(f.kind);
  c.group = f.group;
  c.bits = f.bits;
  c.residual_sketch = f.residual_sketch;
  return c;
}

// Both formats must have the same head_dim (the section has one).
inline config::kv_datapath_config kv_section(const kv::kv_format& key, const kv::kv_format& value) {
  config::kv_datapath_config s;
  s.head_dim = key.head_dim;
  s.key = kv_format_section(key);
  s.value = kv_format_section(value);
  return s;
}

}  // namespace pccx::test
