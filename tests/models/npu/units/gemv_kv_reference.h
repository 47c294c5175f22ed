// Reference for GEMV over KV records (docs/reference/kv-formats.md, "Read path"):
// records built with the host codec, the engine's part/round-robin order,
// and the expected BF16 results computed from the codec's decoded values.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "gemv_reference.h"
#include "models/kv/kv_codec.h"
#include "models/npu/units/bf16.h"

namespace pccx::test {

struct kv_gemv_problem {
  kv::kv_format format;
  bool values = false;  // false: key rows (N = records, K = head_dim); true: value accumulate
  uint32_t M = 1, R = 0;
  std::vector<uint16_t> x;                   // M x K activations (BF16)
  std::vector<std::vector<uint8_t>> record;  // R records, stream order
  std::vector<std::vector<float>> decoded;   // decode_rotated of each record

  uint32_t K() const { return values ? R : format.head_dim; }
  uint32_t N() const { return values ? format.head_dim : R; }

  // The order the engine takes records from F FIFOs: F contiguous parts,
  // round-robin. Part f is what FIFO f receives, in order.
  static std::vector<uint32_t> engine_order(uint32_t R, uint32_t F) {
    std::vector<uint32_t> order;
    for (uint32_t i = 0; order.size() < R; ++i)
      for (uint32_t f = 0; f < F; ++f) {
        const uint32_t b = uint32_t(uint64_t{f} * R / F), e = uint32_t(uint64_t{f + 1} * R / F);
        if (b + i < e) order.push_back(b + i);
      }
    return order;
  }
  std::vector<uint8_t> part_bytes(uint32_t f, uint32_t F) const {
    std::vector<uint8_t> out;
    for (uint32_t r = uint32_t(uint64_t{f} * R / F); r < uint32_t(uint64_t{f + 1} * R / F); ++r)
      out.insert(out.end(), record[r].begin(), record[r].end());
    return out;
  }

  std::vector<uint16_t> expected(uint32_t F) const {
    const uint32_t K = this->K(), N = this->N();
    std::vector<uint16_t> out(size_t{M} * N);
    const auto order = engine_order(R, F);
    for (uint32_t m = 0; m < M; ++m) {
      std::vector<int> q;
      const float sa = quantise_row(&x[size_t{m} * K], K, q);
      if (!values) {
        for (uint32_t n = 0; n < N; ++n) {
          float sum = 0;
          for (uint32_t k = 0; k < K; ++k) sum += static_cast<float>(q[k]) * decoded[n][k];
          out[size_t{m} * N + n] = npu::bf16::from_float(sum * sa);
        }
      } else {
        std::vector<float> acc(N, 0.0f);
        for (uint32_t t : order)
          for (uint32_t d = 0; d < N; ++d) acc[d] += static_cast<float>(q[t]) * decoded[t][d];
        for (uint32_t d = 0; d < N; ++d)
          out[size_t{m} * N + d] = npu::bf16::from_float(acc[d] * sa);
      }
    }
    return out;
  }

  static kv_gemv_problem random(const kv::kv_format& f, bool values, uint32_t M, uint32_t R,
                                uint32_t seed) {
    kv_gemv_problem p;
    p.format = f, p.values = values, p.M = M, p.R = R;
    std::mt19937 rng(seed);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    const kv::kv_codec codec(f);
    // Static-scaled integer formats take values already in code units.
    const bool unscaled =
        (f.kind == kv::kv_kind::int8 || f.kind == kv::kv_kind::int4) && f.group == 0;
    const float span = f.kind == kv::kv_kind::int8 ? 40.0f : 2.5f;
    std::vector<float> v(f.head_dim);
    for (uint32_t r = 0; r < R; ++r) {
      for (float& e : v) e = unscaled ? span * nd(rng) : nd(rng);
      std::vector<uint8_t> rec(f.record_bytes());
      codec.encode(v.data(), rec.data());
      std::vector<float> dec(f.head_dim);
      codec.decode_rotated(rec.data(), dec.data());
      p.record.push_back(rec);
      p.decoded.push_back(dec);
    }
    const uint32_t K = p.K();
    for (uint32_t i = 0; i < M * K; ++i) p.x.push_back(npu::bf16::from_float(nd(rng)));
    return p;
  }
};

inline kv::kv_format kv_fmt(kv::kv_kind kind, uint32_t group = 0, uint32_t bits = 4,
                            uint32_t head_dim = 64) {
  kv::kv_format f;
  f.kind = kind, f.group = group, f.bits = bits, f.head_dim = head_dim;
  return f;
}

}  // namespace pccx::test
