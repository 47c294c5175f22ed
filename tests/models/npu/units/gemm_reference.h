// Plain C++ reference for the GEMM unit (docs/models/gemm.md) and the weight
// stream builder for the two FIFOs (HP0: the even output columns, HP1 the
// odd), cut from the rows' GEMV records as a 2-D DMA cuts them.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "models/npu/units/bf16.h"

namespace pccx::test {

struct gemm_problem {
  uint32_t M = 1, N = 0, K = 0;
  bool w_scale = false;
  std::vector<uint16_t> x;       // M*K BF16, row-major
  std::vector<int> w;            // N*K, w[n*K + k] in [-8, 7]
  std::vector<uint16_t> scales;  // N BF16 (w_scale only)
  std::vector<uint16_t> old;     // M*N BF16 (accm only)

  static constexpr uint32_t kTileK = 32, kTileN = 64, kHalf = 32;

  // N-tiles of the first group for an accumulator buffer of `entries`
  // partial sums: max(1, min(N-tiles, entries / (M * 64), 4)).
  static uint32_t group(uint32_t M, uint32_t N, uint32_t entries) {
    const uint32_t n_tiles = (N + kTileN - 1) / kTileN;
    const uint64_t fit = entries / (uint64_t{M} * kTileN);
    return static_cast<uint32_t>(std::max<uint64_t>(1, std::min<uint64_t>({n_tiles, fit, 4})));
  }

  // Bytes of row n's record as the GEMV and the DDR plan store it: with
  // w_scale its BF16 scale, then ceil(K/2) bytes (k even in the low nibble),
  // zero padded to 16 bytes.
  std::vector<uint8_t> record(uint32_t n) const {
    std::vector<uint8_t> r;
    if (w_scale) {
      r.push_back(static_cast<uint8_t>(scales[n] & 0xFF));
      r.push_back(static_cast<uint8_t>(scales[n] >> 8));
    }
    for (uint32_t k = 0; k < K; k += 2) {
      const uint8_t lo = w[size_t{n} * K + k] & 0xF;
      const uint8_t hi = k + 1 < K ? w[size_t{n} * K + k + 1] & 0xF : 0;
      r.push_back(static_cast<uint8_t>(lo | (hi << 4)));
    }
    r.resize((r.size() + 15) / 16 * 16, 0);
    return r;
  }

  // FIFO f's stream for the GEMM over inputs [k0, k0 + k_len) of these
  // records (k0 a multiple of 32; the whole K by default), as a DMA cuts it
  // from the records: columns n = f, f + 2, ...; with w_scale first each
  // column's 16-byte scale beat (its record's first 16 bytes), then each
  // column's chunk of pad16(lead + ceil(k_len / 2)) bytes from record byte
  // k0 / 2 (lead = 2 with w_scale: the scale, or for k0 > 0 the previous
  // inputs; ignored). Bytes past a record's end: `filler`, which the unit
  // must ignore too.
  std::vector<uint8_t> stream(unsigned f, uint32_t k0 = 0, uint32_t k_len = 0,
                              uint8_t filler = 0xA5) const {
    if (k_len == 0) k_len = K - k0;
    const uint32_t lead = w_scale ? 2 : 0;
    const uint32_t chunk = (lead + (k_len + 1) / 2 + 15) / 16 * 16;
    std::vector<uint8_t> s;
    if (w_scale)
      for (uint32_t n = f; n < N; n += 2) {
        const auto r = record(n);
        s.insert(s.end(), r.begin(), r.begin() + 16);
      }
    for (uint32_t n = f; n < N; n += 2) {
      const auto r = record(n);
      for (uint32_t b = 0; b < chunk; ++b) {
        const size_t at = k0 / 2 + b;
        s.push_back(at < r.size() ? r[at] : filler);
      }
    }
    return s;
  }

  // The same problem restricted to inputs [k0, k0 + k_len).
  gemm_problem window(uint32_t k0, uint32_t k_len) const {
    gemm_problem p = *this;
    p.K = k_len;
    p.x.clear();
    p.w.clear();
    for (uint32_t m = 0; m < M; ++m)
      for (uint32_t k = 0; k < k_len; ++k) p.x.push_back(x[size_t{m} * K + k0 + k]);
    for (uint32_t n = 0; n < N; ++n)
      for (uint32_t k = 0; k < k_len; ++k) p.w.push_back(w[size_t{n} * K + k0 + k]);
    return p;
  }

  // Expected BF16 outputs (M*N): exact integer sums per window of `limit` K
  // values, windows scaled and added in FP32, one BF16 rounding.
  std::vector<uint16_t> expected(bool accm, uint32_t limit = 1024) const {
    std::vector<uint16_t> out(size_t{M} * N);
    for (uint32_t m = 0; m < M; ++m) {
      float amax = 0;
      for (uint32_t k = 0; k < K; ++k)
        amax = std::max(amax, std::fabs(npu::bf16::to_float(x[size_t{m} * K + k])));
      const float sa = amax == 0 ? 1.0f : amax / 127.0f;
      std::vector<int> q(K);
      for (uint32_t k = 0; k < K; ++k) {
        const float v = npu::bf16::to_float(x[size_t{m} * K + k]) / sa;
        float f = std::floor(v);  // round half to even, by hand
        const float frac = v - f;
        if (frac > 0.5f || (frac == 0.5f && std::fmod(f, 2.0f) != 0)) f += 1;
        q[k] = static_cast<int>(std::clamp(f, -127.0f, 127.0f));
      }
      for (uint32_t n = 0; n < N; ++n) {
        const float sw = w_scale ? npu::bf16::to_float(scales[n]) : 1.0f;
        float y = 0;
        for (uint32_t k0 = 0; k0 < K; k0 += limit) {
          long long acc = 0;
          for (uint32_t k = k0; k < std::min(K, k0 + limit); ++k)
            acc += q[k] * w[size_t{n} * K + k];
          y += (static_cast<float>(acc) * sw) * sa;
        }
        if (accm) y += npu::bf16::to_float(old[size_t{m} * N + n]);
        out[size_t{m} * N + n] = npu::bf16::from_float(y);
      }
    }
    return out;
  }

  static gemm_problem random(uint32_t M, uint32_t N, uint32_t K, bool w_scale, uint32_t seed) {
    gemm_problem p;
    p.M = M, p.N = N, p.K = K, p.w_scale = w_scale;
    std::mt19937 rng(seed);
    std::normal_distribution<float> nd(0.0f, 1.5f);
    std::uniform_int_distribution<int> wd(-8, 7);
    std::uniform_real_distribution<float> sd(0.001f, 0.05f);
    for (uint32_t i = 0; i < M * K; ++i) p.x.push_back(npu::bf16::from_float(nd(rng)));
    for (uint32_t i = 0; i < N * K; ++i) p.w.push_back(wd(rng));
    for (uint32_t i = 0; i < N; ++i) p.scales.push_back(npu::bf16::from_float(sd(rng)));
    for (uint32_t i = 0; i < M * N; ++i) p.old.push_back(npu::bf16::from_float(nd(rng) * 10));
    return p;
  }
};

}  // namespace pccx::test
