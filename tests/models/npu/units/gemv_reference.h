// Plain C++ reference for the GEMV unit (docs/models/gemv.md) and row-record
// builders for the weight FIFOs.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "models/npu/units/bf16.h"

namespace pccx::test {

// Per-row symmetric INT8 quantisation as docs/models/gemv.md states it (written
// out by hand, independent of the model): returns the scale, fills q.
inline float quantise_row(const uint16_t* x, uint32_t K, std::vector<int>& q) {
  float amax = 0;
  for (uint32_t k = 0; k < K; ++k) amax = std::max(amax, std::fabs(npu::bf16::to_float(x[k])));
  const float sa = amax == 0 ? 1.0f : amax / 127.0f;
  q.assign(K, 0);
  for (uint32_t k = 0; k < K; ++k) {
    const float v = npu::bf16::to_float(x[k]) / sa;
    // round half to even, written out by hand
    float f = std::floor(v);
    const float frac = v - f;
    if (frac > 0.5f || (frac == 0.5f && std::fmod(f, 2.0f) != 0)) f += 1;
    q[k] = static_cast<int>(std::clamp(f, -127.0f, 127.0f));
  }
  return sa;
}

struct gemv_problem {
  uint32_t M = 1, N = 0, K = 0;
  uint32_t group = 0;  // 0: one scale per row
  bool w_scale = false;
  std::vector<uint16_t> x;       // M*K BF16
  std::vector<int> w;            // N*K, each in [-8, 7]
  std::vector<uint16_t> scales;  // N*S BF16 (w_scale only)
  std::vector<uint16_t> old;     // M*N BF16 (accm only)

  uint32_t S() const { return (!w_scale || group == 0) ? 1 : (K + group - 1) / group; }
  uint32_t G() const { return (!w_scale || group == 0) ? K : group; }

  // Row record n: [S BF16 scales] + ceil(K/2) bytes, zero padded to 16 bytes.
  std::vector<uint8_t> record(uint32_t n) const {
    std::vector<uint8_t> r;
    if (w_scale)
      for (uint32_t g = 0; g < S(); ++g) {
        r.push_back(static_cast<uint8_t>(scales[n * S() + g] & 0xFF));
        r.push_back(static_cast<uint8_t>(scales[n * S() + g] >> 8));
      }
    for (uint32_t k = 0; k < K; k += 2) {
      const uint8_t lo = static_cast<uint8_t>(w[size_t{n} * K + k] & 0xF);
      const uint8_t hi = k + 1 < K ? static_cast<uint8_t>(w[size_t{n} * K + k + 1] & 0xF) : 0;
      r.push_back(static_cast<uint8_t>(lo | (hi << 4)));
    }
    r.resize((r.size() + 15) / 16 * 16, 0);
    return r;
  }

  // Expected BF16 outputs (M*N).
  std::vector<uint16_t> expected(bool accm) const {
    std::vector<uint16_t> out(size_t{M} * N);
    for (uint32_t m = 0; m < M; ++m) {
      std::vector<int> q;
      const float sa = quantise_row(&x[size_t{m} * K], K, q);
      for (uint32_t n = 0; n < N; ++n) {
        float y = 0;
        for (uint32_t g = 0; g < S(); ++g) {
          int32_t acc = 0;
          for (uint32_t k = g * G(); k < std::min(K, (g + 1) * G()); ++k)
            acc += q[k] * w[size_t{n} * K + k];
          const float sw = w_scale ? npu::bf16::to_float(scales[n * S() + g]) : 1.0f;
          y += (static_cast<float>(acc) * sw) * sa;
        }
        if (accm) y += npu::bf16::to_float(old[size_t{m} * N + n]);
        out[size_t{m} * N + n] = npu::bf16::from_float(y);
      }
    }
    return out;
  }

  static gemv_problem random(uint32_t M, uint32_t N, uint32_t K, bool w_scale, uint32_t group,
                             uint32_t seed) {
    gemv_problem p;
    p.M = M, p.N = N, p.K = K, p.w_scale = w_scale, p.group = group;
    std::mt19937 rng(seed);
    std::normal_distribution<float> nd(0.0f, 1.5f);
    std::uniform_int_distribution<int> wd(-8, 7);
    std::uniform_real_distribution<float> sd(0.001f, 0.05f);
    for (uint32_t i = 0; i < M * K; ++i) p.x.push_back(npu::bf16::from_float(nd(rng)));
    for (uint32_t i = 0; i < N * K; ++i) p.w.push_back(wd(rng));
    for (uint32_t i = 0; i < N * p.S(); ++i) p.scales.push_back(npu::bf16::from_float(sd(rng)));
    for (uint32_t i = 0; i < M * N; ++i) p.old.push_back(npu::bf16::from_float(nd(rng) * 10));
    return p;
  }
};

}  // namespace pccx::test
