// Plain C++ reference for the GEMM unit (docs/models/gemm.md) and the weight
// stream builder for the two FIFOs (HP0: tile columns 0..31, HP1: 32..63)
// in the unit's tile order (first N-group K-tile outer, then N-tile by N-tile).
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
  // partial sums: max(1, min(N-tiles, entries / (M * 64))).
  static uint32_t group(uint32_t M, uint32_t N, uint32_t entries) {
    const uint32_t n_tiles = (N + kTileN - 1) / kTileN;
    const uint64_t fit = entries / (uint64_t{M} * kTileN);
    return static_cast<uint32_t>(std::max<uint64_t>(1, std::min<uint64_t>(n_tiles, fit)));
  }

  // Bytes for FIFO f (0 = HP0, 1 = HP1), whole instruction, in tile order:
  // the first `group` N-tiles K-tile outer, N-tile inner, then each later
  // N-tile with its K-tiles in order. With w_scale an N-tile's 32 scales
  // per FIFO precede its first K-tile.
  std::vector<uint8_t> stream(unsigned f, uint32_t group) const {
    std::vector<uint8_t> s;
    auto tile = [&](uint32_t n0, uint32_t k0) {
      const uint32_t c0 = n0 + f * kHalf;
      if (w_scale && k0 == 0)
        for (uint32_t c = 0; c < kHalf; ++c) {
          const uint16_t v = c0 + c < N ? scales[c0 + c] : 0;
          s.push_back(static_cast<uint8_t>(v & 0xFF));
          s.push_back(static_cast<uint8_t>(v >> 8));
        }
      for (uint32_t r = 0; r < kTileK; ++r)
        for (uint32_t c = 0; c < kHalf; c += 2) {
          auto at = [&](uint32_t cc) -> uint8_t {
            const uint32_t n = c0 + cc, k = k0 + r;
            return (n < N && k < K) ? static_cast<uint8_t>(w[size_t{n} * K + k] & 0xF) : 0;
          };
          s.push_back(static_cast<uint8_t>(at(c) | (at(c + 1) << 4)));
        }
    };
    const uint32_t first_end = std::min(N, group * kTileN);
    for (uint32_t k0 = 0; k0 < K; k0 += kTileK)
      for (uint32_t n0 = 0; n0 < first_end; n0 += kTileN) tile(n0, k0);
    for (uint32_t n0 = first_end; n0 < N; n0 += kTileN)
      for (uint32_t k0 = 0; k0 < K; k0 += kTileK) tile(n0, k0);
    return s;
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
