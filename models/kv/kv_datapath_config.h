// The configuration section of the KV-cache datapath (`npu.kv`), owned by the
// models that implement it: the append quantizer behind MEMCPY from=1,to=1
// and the dequantize stage in front of the GEMV cores. Both units hold this
// section as it is (memcpy_unit_params::kv, gemv_unit_params::kv), so each
// default is written here only.
#pragma once

#include <cstdint>
#include <string>

#include "infra/config/config_schema.h"
#include "models/kv/kv_format.h"

namespace pccx::config {

// One KV-cache record format (models/kv/kv_format.h, docs/reference/kv-formats.md).
struct kv_format_config {
  std::string kind = "fp16";
  std::uint32_t group = 0;
  std::uint32_t bits = 4;
  bool residual_sketch = false;

  template <class V>
  void visit(V& v) {
    v.field("kind", kind, "Record format", one_of({"fp16", "int8", "int4", "rotated"}));
    v.field("group", group,
            "int8/int4: elements per stored BF16 scale (per token); 0 = no stored scale "
            "(static per-channel/per-head scales applied by the driver)",
            range(0, 65535, "0 = static scales; a group divides head_dim, at most 65,535"));
    v.field("bits", bits, "rotated: bits per coordinate",
            range(2, 4, "the rotated formats use 2 to 4 bits; the Lloyd-Max codebook stops at 4"));
    v.field("residual_sketch", residual_sketch, "rotated: add a 1-bit sign sketch of the residual");
  }
};

// Shared by the append quantizer's and the dequantize stage's widths.
constexpr const char* kKvWidthRange =
    "at least 1 (clocks = ceil(head_dim / width)); 4,096 is a modelling cap, 16x head_dim 256";

struct kv_datapath_config {
  bool gemv_formats = true;
  std::uint32_t head_dim = 256;
  kv_format_config key;
  kv_format_config value;
  std::uint32_t append_elements_per_cycle = 16;
  std::uint32_t rotation_adds_per_cycle = 256;
  std::uint32_t dequant_elements_per_cycle = 64;

  template <class V>
  void visit(V& v) {
    v.field("gemv_formats", gemv_formats,
            "Accept GEMV flags[2:0] = 1 (K rows) and 2 (V accumulate): KV records as the weight "
            "stream (platform extension)");
    v.field("head_dim", head_dim, "Elements per K or V head-vector",
            range(1, 65535, "at least one element; a GEMV's K or N shape field is 16 bits"));
    v.field("key", key, "Format of cached K vectors");
    v.field("value", value, "Format of cached V vectors");
    v.field("append_elements_per_cycle", append_elements_per_cycle,
            "Append quantizer width: elements quantized per core clock",
            range(1, 4096, kKvWidthRange));
    v.field("rotation_adds_per_cycle", rotation_adds_per_cycle,
            "Append quantizer: Walsh-Hadamard add/subtracts per core clock (rotated formats)",
            range(1, 1048576,
                  "at least 1; 2^20 adds do a 32,768-point rotation (491,520 adds) in one clock"));
    v.field("dequant_elements_per_cycle", dequant_elements_per_cycle,
            "Dequantize stage width in front of the GEMV cores, elements per core clock",
            range(1, 4096, kKvWidthRange));
  }
  void validate(validator& check) const;

  kv::kv_format key_format() const;
  kv::kv_format value_format() const;
};

// The record format a kv_format_config describes, for vectors of head_dim.
kv::kv_format to_kv_format(const kv_format_config& c, uint32_t head_dim);

}  // namespace pccx::config
