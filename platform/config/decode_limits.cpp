#include "platform/config/decode_limits.h"

#include "pccx_isa.h"

namespace pccx::config {

isa::decode_limits decode_limits_of(const platform_config& cfg) {
  isa::decode_limits l;
  l.l2_words = cfg.npu.l2.words;
  l.gemv_cores = cfg.npu.gemv_cores;
  l.gemv_head_parallel = cfg.npu.gemv.head_parallel;
  l.gemv_kv_formats = cfg.npu.kv.gemv_formats;
  l.cvo_max_length = cfg.npu.sfu.max_length;
  l.cvo_extensions = cfg.npu.sfu.extensions;
  l.cache_slots = cfg.npu.constant_cache.slots;
  l.kv_append = cfg.npu.memcpy.kv_append;
  l.enabled_banks = 0;
  const auto& banks = cfg.npu.constant_cache.banks;
  // MEMSET's dest_cache field addresses 1 << PCCX_MS_CACHE_W banks.
  for (size_t b = 0; b < banks.size() && b < (1u << PCCX_MS_CACHE_W); ++b)
    if (banks[b].enabled) l.enabled_banks |= static_cast<uint8_t>(1u << b);
  return l;
}

}  // namespace pccx::config
