// Helpers shared by the KV codec tests: format shorthands, a portable
// Gaussian source and the exact distortion of a scalar codebook on N(0, 1).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "models/kv/kv_codec.h"
#include "models/kv/kv_format.h"

namespace kvtest {

using pccx::kv::kv_format;
using pccx::kv::kv_kind;

inline kv_format fp16(uint32_t d = 256) {
  kv_format f;
  f.kind = kv_kind::fp16;
  f.head_dim = d;
  return f;
}

inline kv_format int8(uint32_t group, uint32_t d = 256) {
  kv_format f;
  f.kind = kv_kind::int8;
  f.head_dim = d;
  f.group = group;
  return f;
}

inline kv_format int4(uint32_t group, uint32_t d = 256) {
  kv_format f = int8(group, d);
  f.kind = kv_kind::int4;
  return f;
}

inline kv_format rot(uint32_t bits, bool sketch = false, uint32_t d = 256) {
  kv_format f;
  f.kind = kv_kind::rotated;
  f.head_dim = d;
  f.bits = bits;
  f.residual_sketch = sketch;
  return f;
}

// Standard normal samples from mt19937_64 by Box-Muller (the standard
// library's normal_distribution differs between library implementations).
class gaussian {
 public:
  explicit gaussian(uint64_t seed) : rng_(seed) {}
  double next() {
    if (have_spare_) {
      have_spare_ = false;
      return spare_;
    }
    const double u1 = (static_cast<double>(rng_() >> 11) + 1.0) * 0x1p-53;  // (0, 1]
    const double u2 = static_cast<double>(rng_() >> 11) * 0x1p-53;          // [0, 1)
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double a = 2.0 * 3.14159265358979323846 * u2;
    spare_ = r * std::sin(a);
    have_spare_ = true;
    return r * std::cos(a);
  }
  std::vector<float> vec(uint32_t n, double sigma = 1.0) {
    std::vector<float> v(n);
    for (auto& x : v) x = static_cast<float>(sigma * next());
    return v;
  }
  uint64_t raw() { return rng_(); }

 private:
  std::mt19937_64 rng_;
  double spare_ = 0.0;
  bool have_spare_ = false;
};

// E[(X - Q(X))^2] for X ~ N(0, 1) and Q the nearest-centroid quantizer of
// `c` (ascending), integrated exactly with erfc.
inline double codebook_mse(const std::vector<float>& c) {
  const double kInf = INFINITY;
  auto cdf = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  auto pdf = [](double x) {
    return std::isinf(x) ? 0.0 : std::exp(-0.5 * x * x) / std::sqrt(2.0 * 3.14159265358979323846);
  };
  auto x_pdf = [&](double x) { return std::isinf(x) ? 0.0 : x * pdf(x); };
  double mse = 0.0;
  for (size_t i = 0; i < c.size(); ++i) {
    const double lo = i == 0 ? -kInf : 0.5 * (double(c[i - 1]) + c[i]);
    const double hi = i + 1 == c.size() ? kInf : 0.5 * (double(c[i]) + c[i + 1]);
    const double p = cdf(hi) - cdf(lo);
    const double m1 = pdf(lo) - pdf(hi);          // integral of x phi
    const double m2 = p + x_pdf(lo) - x_pdf(hi);  // integral of x^2 phi
    mse += m2 - 2.0 * c[i] * m1 + double(c[i]) * c[i] * p;
  }
  return mse;
}

inline uint16_t le16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}

inline float bf16_value(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  static_assert(sizeof f == sizeof u);
  std::memcpy(&f, &u, sizeof f);
  return f;
}

}  // namespace kvtest
