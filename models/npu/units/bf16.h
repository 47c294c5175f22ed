// BF16 (bfloat16: 1 sign, 8 exponent, 7 fraction bits) conversion helpers
// shared by the NPU units (SFU now, GEMV/GEMM later) and their tests.
//
// Rounding is IEEE round-to-nearest-even on the bit pattern. NaN stays NaN
// (quiet, sign kept); +-inf stay +-inf; values beyond the largest finite
// BF16 round to inf as RNE says; subnormals are kept (no flush to zero).
// L2 layout: 8 BF16 per 128-bit word, element i at bytes 2i..2i+1, little
// endian.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pccx::npu::bf16 {

constexpr unsigned kPerWord = 8;  // BF16 elements per 128-bit L2 word

constexpr uint16_t kPosInf = 0x7F80;
constexpr uint16_t kNegInf = 0xFF80;
constexpr uint16_t kQuietNaN = 0x7FC0;

// The bit pattern of an FP32 value, and the FP32 value of a bit pattern.
// Inline: the conversions here and the KV codec's FP16 ones run per element.
inline uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Exact: every BF16 value is a float.
float to_float(uint16_t b);
// FP32 -> BF16, round to nearest even.
uint16_t from_float(float f);
// FP64 -> BF16 rounded once (no double rounding): for reference models.
uint16_t from_double(double d);
// f rounded to the nearest BF16 value, as a float.
inline float round(float f) {
  return to_float(from_float(f));
}

bool is_nan(uint16_t b);
bool is_inf(uint16_t b);

// Distance in BF16 units in the last place between two non-NaN values,
// counting representable values between them (+0 and -0 are one value).
uint32_t ulp_distance(uint16_t a, uint16_t b);

// Element access in little-endian byte buffers (L2 words).
inline uint16_t load(const uint8_t* bytes, size_t i) {
  return static_cast<uint16_t>(bytes[2 * i] | (bytes[2 * i + 1] << 8));
}
inline void store(uint8_t* bytes, size_t i, uint16_t v) {
  bytes[2 * i] = static_cast<uint8_t>(v & 0xFF);
  bytes[2 * i + 1] = static_cast<uint8_t>(v >> 8);
}

}  // namespace pccx::npu::bf16
