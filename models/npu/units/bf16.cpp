#include "models/npu/units/bf16.h"

#include <cmath>
#include <limits>

namespace pccx::npu::bf16 {

float to_float(uint16_t b) {
  return float_of(static_cast<uint32_t>(b) << 16);
}

uint16_t from_float(float f) {
  const uint32_t u = bits_of(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u)  // NaN: keep the sign, force quiet
    return static_cast<uint16_t>(((u >> 16) & 0x8000u) | kQuietNaN);
  // Round to nearest, ties to even, on the 16 dropped bits. Carries walk
  // into the exponent, which is what rounding up to the next binade (or to
  // inf past the largest finite value) needs; subnormals round the same way.
  const uint32_t lsb = (u >> 16) & 1u;
  return static_cast<uint16_t>((u + 0x7FFFu + lsb) >> 16);
}

uint16_t from_double(double d) {
  if (std::isnan(d)) return static_cast<uint16_t>((std::signbit(d) ? 0x8000u : 0u) | kQuietNaN);
  // Round to odd into FP32 (24 bits >= 8 + 2), then to nearest even into
  // BF16: the two steps together round d correctly once.
  float f = static_cast<float>(d);
  if (static_cast<double>(f) != d) {
    if (std::fabs(static_cast<double>(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
    f = float_of(bits_of(f) | 1u);
  }
  return from_float(f);
}

bool is_nan(uint16_t b) {
  return (b & 0x7FFFu) > 0x7F80u;
}

bool is_inf(uint16_t b) {
  return (b & 0x7FFFu) == 0x7F80u;
}

uint32_t ulp_distance(uint16_t a, uint16_t b) {
  // Map to a monotonic integer line: negative values below zero, -0 == +0.
  auto ordinal = [](uint16_t v) -> int32_t {
    const int32_t mag = v & 0x7FFF;
    return (v & 0x8000) ? -mag : mag;
  };
  const int32_t d = ordinal(a) - ordinal(b);
  return static_cast<uint32_t>(d < 0 ? -d : d);
}

}  // namespace pccx::npu::bf16
