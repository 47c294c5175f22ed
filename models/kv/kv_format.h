// KV-cache storage formats: what one cached K or V head-vector (head_dim
// elements of one token, one KV head) looks like in DDR. A format is a pure
// description; kv_codec encodes and decodes records of it. The same
// descriptors configure the NPU's append quantizer and read dequantizer,
// the firmware's ring sizes, and the accuracy harness.
//
// Every record is a whole number of 16-byte AXI beats (metadata included,
// zero padded), so records can be streamed and addressed independently.
// docs/reference/kv-formats.md gives the byte layouts.
#pragma once

#include <cstdint>
#include <string>

namespace pccx::kv {

enum class kv_kind : uint8_t {
  fp16,     // IEEE binary16 per element, no metadata
  int8,     // symmetric INT8, optional BF16 scale per `group` elements
  int4,     // symmetric INT4 (two per byte), optional BF16 scale per group
  rotated,  // Walsh-Hadamard rotation, per-coordinate scalar codebook, norm
};

struct kv_format {
  kv_kind kind = kv_kind::fp16;
  uint32_t head_dim = 256;  // elements per vector, 1..65535; rotated: a power of two
  // int8/int4: elements per stored BF16 scale (dynamic, per token); 0 = no
  // stored scale, the values are already scaled by the driver (static
  // per-channel or per-head scales applied before append and folded into
  // the query on read). Must divide head_dim. Must be 0 for fp16 and
  // rotated.
  uint32_t group = 0;
  // rotated: bits per coordinate (2, 3 or 4) of the codebook index. Ignored
  // by the other kinds.
  uint32_t bits = 4;
  // rotated: add a 1-bit sign sketch of the residual and its BF16 mean
  // magnitude. Only valid for rotated.
  bool residual_sketch = false;

  // Bytes of one record in DDR (multiple of 16).
  uint32_t record_bytes() const;
  // Bytes before padding: payload plus metadata.
  uint32_t payload_bytes() const;
  // Stored metadata bytes (BF16 scales, norm, sketch magnitude) inside
  // payload_bytes(); the sketch's sign bits count as payload.
  uint32_t metadata_bytes() const;
  // Stored bits per element including metadata and padding
  // (8 record_bytes / head_dim).
  double bits_per_element() const;

  // Empty if consistent, else every problem found, joined by "; " ("int4
  // group 48 does not divide head_dim 256"). The size functions above give
  // a value for any descriptor, meaningful only when check() is empty.
  std::string check() const;
  // Short name for tables: "fp16", "int8/static", "int8/g256", "int4/g32",
  // "rot3", "rot3+sketch".
  std::string name() const;
};

// "fp16", "int8", "int4", "rotated" ("unknown" for a value outside the enum).
const char* kind_name(kv_kind k);

}  // namespace pccx::kv
