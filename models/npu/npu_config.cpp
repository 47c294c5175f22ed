#include "models/npu/npu_config.h"

#include "pccx_isa.h"

namespace pccx::config {

void constant_cache_config::validate(validator& check) const {
  for (std::size_t i = 0; i < banks.size(); ++i) {
    const std::string field = "banks/" + std::to_string(i) + "/name";
    if (banks[i].name.empty()) {
      check.fail(field, "bank name must not be empty");
      continue;
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (banks[j].name == banks[i].name) {
        check.fail({field}, "duplicate bank name \"" + banks[i].name + "\" (also used by " +
                                check.pointer("banks/" + std::to_string(j) + "/name") + ")");
        break;
      }
    }
  }
  // The firmware addresses these two banks by position.
  const char* required[] = {"fmap_shape", "weight_shape"};
  for (std::size_t i = 0; i < 2 && i < banks.size(); ++i) {
    const std::string at = "banks/" + std::to_string(i);
    if (banks[i].name != required[i])
      check.fail(at + "/name", std::string("bank ") + std::to_string(i) + " must be \"" +
                                   required[i] + "\", found \"" + banks[i].name + "\"");
    else if (!banks[i].enabled)
      check.fail(at + "/enabled", std::string("bank \"") + required[i] + "\" must be enabled");
  }
}

isa::decode_limits decode_limits_of(const npu_config& npu, bool strict) {
  isa::decode_limits l;
  l.upstream_readings = !strict;
  l.l2_words = npu.l2.words;
  l.gemv_cores = npu.gemv_cores;
  l.gemv_head_parallel = npu.gemv.head_parallel;
  l.gemv_kv_formats = npu.kv.gemv_formats;
  l.cvo_max_length = npu.sfu.max_length;
  l.cvo_extensions = npu.sfu.extensions;
  l.cache_slots = npu.constant_cache.slots;
  l.kv_append = npu.memcpy.kv_append;
  l.enabled_banks = 0;
  // MEMSET's dest_cache field addresses 1 << PCCX_MS_CACHE_W banks.
  for (size_t b = 0; b < npu.constant_cache.banks.size() && b < (1u << PCCX_MS_CACHE_W); ++b)
    if (npu.constant_cache.banks[b].enabled) l.enabled_banks |= static_cast<uint8_t>(1u << b);
  return l;
}

}  // namespace pccx::config
