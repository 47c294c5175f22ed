#include "models/kv/kv_codec.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>

#include "models/npu/units/bf16.h"

namespace pccx::kv {

namespace {

constexpr float kFloatMax = std::numeric_limits<float>::max();

using npu::bf16::bits_of;
using npu::bf16::float_of;

// ---- BF16 metadata

constexpr uint16_t kBf16One = 0x3F80;
constexpr uint16_t kBf16MaxFinite = 0x7F7F;
constexpr uint16_t kBf16MinSubnormal = 0x0001;

using npu::bf16::from_double;
float bf16_to_float(uint16_t b) {
  return npu::bf16::to_float(b);
}

// As from_double for non-negative metadata, but never inf: a value past
// the largest finite BF16 stores that largest value.
uint16_t bf16_metadata(double d) {
  if (d >= static_cast<double>(bf16_to_float(kBf16MaxFinite))) return kBf16MaxFinite;
  return from_double(d);
}

uint16_t load16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}

void store16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v & 0xFF);
  p[1] = static_cast<uint8_t>(v >> 8);
}

// Input sanitising shared by every format: NaN encodes as 0, +-inf as the
// largest finite float of the same sign. Each format then saturates at its
// own range, so no record the encoder writes decodes to inf or NaN.
float sanitise(float x) {
  if (std::isnan(x)) return 0.0f;
  if (std::isinf(x)) return x > 0 ? kFloatMax : -kFloatMax;
  return x;
}

float to_float_saturating(double v) {
  if (v > static_cast<double>(kFloatMax)) return kFloatMax;
  if (v < -static_cast<double>(kFloatMax)) return -kFloatMax;
  return static_cast<float>(v);
}

// ---- bit streams: value bit k at stream bit (pos + k); stream bit n is bit
// n % 8 of byte n / 8 (LSB first).

void put_bits(uint8_t* out, uint64_t pos, uint32_t value, uint32_t nbits) {
  for (uint32_t k = 0; k < nbits; ++k, ++pos) {
    if ((value >> k) & 1u) out[pos / 8] = static_cast<uint8_t>(out[pos / 8] | (1u << (pos % 8)));
  }
}

uint32_t get_bits(const uint8_t* in, uint64_t pos, uint32_t nbits) {
  uint32_t v = 0;
  for (uint32_t k = 0; k < nbits; ++k, ++pos) v |= ((in[pos / 8] >> (pos % 8)) & 1u) << k;
  return v;
}

// ---- Walsh-Hadamard

template <typename T>
void fwht_unscaled(T* x, uint32_t n) {
  for (uint32_t len = 1; len < n; len <<= 1) {
    for (uint32_t base = 0; base < n; base += 2 * len) {
      for (uint32_t j = base; j < base + len; ++j) {
        const T a = x[j];
        const T b = x[j + len];
        x[j] = a + b;
        x[j + len] = a - b;
      }
    }
  }
}

bool power_of_two(uint32_t n) {
  return n != 0 && (n & (n - 1)) == 0;
}

uint32_t log2_exact(uint32_t n) {
  uint32_t k = 0;
  while ((1u << k) < n) ++k;
  return k;
}

// ---- the standard normal, from + - * / and exact operations only, so the
// codebooks come out bit-identical on every IEEE-754 machine.

// e^z: z = k ln2 + r with |r| <= ln2 / 2, e^r by a Taylor polynomial
// (Horner, 24 terms: the truncation is far below one double ulp).
double exp_portable(double z) {
  constexpr double kLn2Hi = 6.93147180369123816490e-01;  // exact in 32 bits
  constexpr double kLn2Lo = 1.90821492927058770002e-10;  // ln 2 - kLn2Hi
  constexpr double kInvLn2 = 1.44269504088896338700e+00;
  if (z < -745.0) return 0.0;
  const double k = std::nearbyint(z * kInvLn2);
  const double r = (z - k * kLn2Hi) - k * kLn2Lo;
  double s = 1.0;
  for (int n = 24; n >= 1; --n) s = 1.0 + s * r / n;
  return std::ldexp(s, static_cast<int>(k));
}

constexpr double kInvSqrt2Pi = 0.398942280401432677940;  // 1 / sqrt(2 pi)

// Density phi(x).
double normal_pdf(double x) {
  return kInvSqrt2Pi * exp_portable(-0.5 * x * x);
}

// Phi(x) - 1/2 for x >= 0: phi(x) * sum_n x^(2n+1) / (1*3*...*(2n+1)). All
// terms are positive, so there is no cancellation. Past x = 9 the remainder
// 1 - Phi(x) is below 1e-18 and 1/2 is returned.
double normal_half_mass(double x) {
  if (x <= 0.0) return 0.0;
  if (x >= 9.0) return 0.5;
  const double x2 = x * x;
  double term = x;
  double sum = x;
  for (int n = 1; n < 400; ++n) {
    term *= x2 / (2 * n + 1);
    sum += term;
    if (term < sum * 0x1p-60) break;
  }
  const double m = normal_pdf(x) * sum;
  return m < 0.5 ? m : 0.5;
}

// Inverse of normal_half_mass on [0, 9] by bisection (start values only).
double normal_half_quantile(double p) {
  double lo = 0.0, hi = 9.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (normal_half_mass(mid) < p) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return 0.5 * (lo + hi);
}

constexpr int kLloydIterations = 3000;
constexpr uint32_t kMaxCodebookBits = 4;

// Lloyd's algorithm on the exact N(0, 1) density. The optimum is symmetric:
// iterate on the m = 2^(bits-1) positive centroids, cells [t_k, t_k+1) with
// t_0 = 0 and t_m = +inf, starting from the uniform quantiles. A fixed
// iteration count keeps the result independent of any convergence test;
// the 4-bit centroids stop changing at float precision after about 600
// iterations, so 3000 leaves a wide margin.
std::vector<float> lloyd_max_iterate(uint32_t bits) {
  const uint32_t m = 1u << (bits - 1);
  const double levels = 2.0 * m;
  std::vector<double> c(m), t(m + 1);
  for (uint32_t k = 0; k < m; ++k) c[k] = normal_half_quantile((k + 0.5) / levels);
  for (int it = 0; it < kLloydIterations; ++it) {
    t[0] = 0.0;
    for (uint32_t k = 1; k < m; ++k) t[k] = 0.5 * (c[k - 1] + c[k]);
    for (uint32_t k = 0; k < m; ++k) {
      const double lo = t[k];
      const bool last = k + 1 == m;
      const double mass = (last ? 0.5 : normal_half_mass(t[k + 1])) - normal_half_mass(lo);
      const double moment = normal_pdf(lo) - (last ? 0.0 : normal_pdf(t[k + 1]));
      c[k] = moment / mass;  // E[X | lo <= X < hi]
    }
  }
  std::vector<float> out(2 * m);
  for (uint32_t k = 0; k < m; ++k) {
    const float v = static_cast<float>(c[k]);
    out[m + k] = v;
    out[m - 1 - k] = -v;
  }
  return out;
}

}  // namespace

// ---- binary16

uint16_t fp16_from_float(float f) {
  const uint32_t u = bits_of(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u);  // quiet NaN
  // 65520 is halfway between 65504 (odd significand) and 65536: it and
  // everything above round to inf.
  if (a >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);
  if (a >= 0x38800000u) {  // normal binary16 (|f| >= 2^-14): rebias, round 13 bits
    const uint32_t rebased = a - 0x38000000u;
    const uint32_t keep_lsb = (rebased >> 13) & 1u;
    return static_cast<uint16_t>(sign | ((rebased + 0x0FFFu + keep_lsb) >> 13));
  }
  // Subnormal binary16: the result is round(|f| / 2^-24).
  const uint32_t e = a >> 23;
  if (e < 102) return sign;                        // |f| < 2^-25, or a float subnormal: rounds to 0
  const uint32_t m = (a & 0x7FFFFFu) | 0x800000u;  // |f| = m 2^(e - 150)
  const uint32_t shift = 126 - e;                  // 14 .. 24
  uint32_t q = m >> shift;
  const uint32_t rem = m & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1u))) ++q;  // may carry into 2^-14: still right
  return static_cast<uint16_t>(sign | q);
}

float fp16_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1Fu;
  const uint32_t m = h & 0x3FFu;
  if (e == 0) {
    const float mag = static_cast<float>(m) * 0x1p-24f;  // exact
    return (h & 0x8000u) ? -mag : mag;
  }
  if (e == 31) return float_of(sign | 0x7F800000u | (m << 13));
  return float_of(sign | ((e + 112) << 23) | (m << 13));
}

// ---- Walsh-Hadamard

void fwht_orthonormal(float* x, uint32_t n) {
  if (!power_of_two(n)) {
    throw std::invalid_argument("fwht_orthonormal: length " + std::to_string(n) +
                                " is not a power of two");
  }
  fwht_unscaled(x, n);
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(n)));
  for (uint32_t i = 0; i < n; ++i) x[i] *= scale;
}

// ---- Lloyd-Max

std::vector<float> normal_lloyd_max(uint32_t bits) {
  if (bits < 1 || bits > kMaxCodebookBits) {
    throw std::invalid_argument("normal_lloyd_max: bits " + std::to_string(bits) +
                                " is outside 1.." + std::to_string(kMaxCodebookBits));
  }
  // Each width computed once, when first asked for (all four take about
  // 30 ms, the 4-bit one more than half of it), then copied out.
  static std::array<std::once_flag, kMaxCodebookBits> computed;
  static std::array<std::vector<float>, kMaxCodebookBits> table;
  std::call_once(computed[bits - 1], [bits] { table[bits - 1] = lloyd_max_iterate(bits); });
  return table[bits - 1];
}

// ---- codec

kv_codec::kv_codec(const kv_format& f) : f_(f) {
  const std::string err = f.check();
  if (!err.empty()) throw std::invalid_argument("kv_format " + f.name() + ": " + err);
  if (f_.kind == kv_kind::rotated) {
    codebook_ = normal_lloyd_max(f_.bits);
    for (size_t i = 0; i + 1 < codebook_.size(); ++i) {
      // Exact midpoint (the sum of two floats is exact in double).
      thresholds_.push_back(0.5 * (static_cast<double>(codebook_[i]) + codebook_[i + 1]));
    }
  }
}

uint32_t kv_codec::rotation_adds() const {
  if (f_.kind != kv_kind::rotated) return 0;
  return f_.head_dim * log2_exact(f_.head_dim);
}

void kv_codec::encode(const float* x, uint8_t* out) const {
  const uint32_t d = f_.head_dim;
  std::memset(out, 0, f_.record_bytes());
  switch (f_.kind) {
    case kv_kind::fp16: {
      for (uint32_t i = 0; i < d; ++i) {
        uint16_t h = fp16_from_float(sanitise(x[i]));
        if ((h & 0x7FFFu) == 0x7C00u) h = static_cast<uint16_t>((h & 0x8000u) | 0x7BFFu);
        store16(out + 2 * i, h);
      }
      return;
    }
    case kv_kind::int8:
    case kv_kind::int4: {
      const bool is8 = f_.kind == kv_kind::int8;
      const double qmax = is8 ? 127.0 : 7.0;
      const uint32_t g = f_.group == 0 ? d : f_.group;
      const uint32_t groups = f_.group == 0 ? 0 : d / f_.group;
      uint8_t* codes = out + 2 * groups;
      for (uint32_t first = 0; first < d; first += g) {
        double s = 1.0;
        if (f_.group != 0) {
          double maxabs = 0.0;
          for (uint32_t i = first; i < first + g; ++i) {
            maxabs = std::max(maxabs, std::fabs(static_cast<double>(sanitise(x[i]))));
          }
          uint16_t sb = maxabs == 0.0 ? kBf16One : bf16_metadata(maxabs / qmax);
          if (sb == 0) sb = kBf16MinSubnormal;  // max|x| / qmax below half of it
          store16(out + 2 * (first / g), sb);
          s = bf16_to_float(sb);
        }
        for (uint32_t i = first; i < first + g; ++i) {
          // The quotient of a float by a BF16 is never rounded onto a tie in
          // double, so this is round-half-even of the exact x / s.
          const double q = std::clamp(std::nearbyint(sanitise(x[i]) / s), -qmax, qmax);
          const int qi = static_cast<int>(q);
          if (is8) {
            codes[i] = static_cast<uint8_t>(qi & 0xFF);
          } else {
            const uint32_t nib = static_cast<uint32_t>(qi) & 0xFu;
            codes[i / 2] = static_cast<uint8_t>(codes[i / 2] | (nib << (4 * (i % 2))));
          }
        }
      }
      return;
    }
    case kv_kind::rotated: {
      std::vector<double> y(d);
      double sumsq = 0.0;
      for (uint32_t i = 0; i < d; ++i) {
        y[i] = sanitise(x[i]);
        sumsq += y[i] * y[i];
      }
      const uint16_t nb = bf16_metadata(std::sqrt(sumsq));
      if (nb == 0) return;  // zero (or below the smallest BF16) norm: all-zero record
      store16(out, nb);
      fwht_unscaled(y.data(), d);
      // u = (H x / sqrt d) * sqrt d / norm = H x / norm, with the stored norm.
      const double norm = bf16_to_float(nb);
      const uint32_t b = f_.bits;
      const uint64_t sketch_at = 2 + (static_cast<uint64_t>(d) * b + 7) / 8;  // byte of a
      double abs_sum = 0.0;
      for (uint32_t i = 0; i < d; ++i) {
        const double u = y[i] / norm;
        // Nearest centroid; a value exactly on a midpoint takes the upper one.
        const uint32_t idx = static_cast<uint32_t>(
            std::upper_bound(thresholds_.begin(), thresholds_.end(), u) - thresholds_.begin());
        put_bits(out + 2, static_cast<uint64_t>(i) * b, idx, b);
        if (f_.residual_sketch) {
          const double r = u - codebook_[idx];
          abs_sum += std::fabs(r);
          if (r >= 0.0) put_bits(out + sketch_at + 2, i, 1u, 1);
        }
      }
      if (f_.residual_sketch) store16(out + sketch_at, bf16_metadata(abs_sum / d));
      return;
    }
  }
}

void kv_codec::decode_rotated(const uint8_t* record, float* out) const {
  if (f_.kind != kv_kind::rotated) {
    decode(record, out);
    return;
  }
  const uint32_t d = f_.head_dim;
  const uint32_t b = f_.bits;
  // y_hat = u_hat * norm / sqrt(d)
  const double scale = bf16_to_float(load16(record)) / std::sqrt(static_cast<double>(d));
  const uint64_t sketch_at = 2 + (static_cast<uint64_t>(d) * b + 7) / 8;
  const double a = f_.residual_sketch ? bf16_to_float(load16(record + sketch_at)) : 0.0;
  for (uint32_t i = 0; i < d; ++i) {
    double u = codebook_[get_bits(record + 2, static_cast<uint64_t>(i) * b, b)];
    if (f_.residual_sketch) u += get_bits(record + sketch_at + 2, i, 1) ? a : -a;
    out[i] = to_float_saturating(u * scale);
  }
}

void kv_codec::decode(const uint8_t* record, float* out) const {
  const uint32_t d = f_.head_dim;
  switch (f_.kind) {
    case kv_kind::fp16:
      for (uint32_t i = 0; i < d; ++i) out[i] = fp16_to_float(load16(record + 2 * i));
      return;
    case kv_kind::int8:
    case kv_kind::int4: {
      const bool is8 = f_.kind == kv_kind::int8;
      const uint32_t groups = f_.group == 0 ? 0 : d / f_.group;
      const uint8_t* codes = record + 2 * groups;
      for (uint32_t i = 0; i < d; ++i) {
        int q;
        if (is8) {
          q = static_cast<int8_t>(codes[i]);
        } else {
          const int nib = (codes[i / 2] >> (4 * (i % 2))) & 0xF;
          q = nib >= 8 ? nib - 16 : nib;
        }
        const float s = groups == 0 ? 1.0f : bf16_to_float(load16(record + 2 * (i / f_.group)));
        out[i] = static_cast<float>(q) * s;  // exact: 8 x 8 significant bits at most
      }
      return;
    }
    case kv_kind::rotated: {
      // Same arithmetic as decode_rotated, kept in double through the
      // inverse rotation (H is its own inverse up to the 1/sqrt(d) scaling).
      const uint32_t b = f_.bits;
      const double scale = bf16_to_float(load16(record)) / static_cast<double>(d);
      const uint64_t sketch_at = 2 + (static_cast<uint64_t>(d) * b + 7) / 8;
      const double a = f_.residual_sketch ? bf16_to_float(load16(record + sketch_at)) : 0.0;
      std::vector<double> u(d);
      for (uint32_t i = 0; i < d; ++i) {
        u[i] = codebook_[get_bits(record + 2, static_cast<uint64_t>(i) * b, b)];
        if (f_.residual_sketch) u[i] += get_bits(record + sketch_at + 2, i, 1) ? a : -a;
      }
      // x_hat = H^T y_hat / sqrt(d) = H u_hat * norm / d.
      fwht_unscaled(u.data(), d);
      for (uint32_t i = 0; i < d; ++i) out[i] = to_float_saturating(u[i] * scale);
      return;
    }
  }
}

}  // namespace pccx::kv
