// Host references for the FFN example (firmware/programs/ffn_example.c),
// y = W_down · GELU(W_gate · x) for one token, at two levels:
//
//  - ffn_problem::bit_exact(): the platform's numerics step by step, the
//    GEMV reference of docs/models/gemv.md (INT8 activation quantisation per row,
//    exact INT4 x INT8 dot products, FP32 scaling, BF16 results) for both
//    projections and the SFU's GELU as docs/models/sfu.md specifies it (FP32
//    evaluation of the BF16 input, one rounding to BF16). The platform must
//    match it bit for bit.
//  - ffn_problem::fp32(): the mathematical FFN with dequantised weights
//    (INT4 times its BF16 row scale), no activation quantisation and no
//    intermediate BF16 roundings, in FP32 (dot products accumulated in
//    double). The platform is compared with it through error_bounds().
//
// Plus the DDR images the firmware expects (parameter block, row-record
// streams) and deterministic random problems.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gemv_reference.h"
#include "models/npu/units/bf16.h"
#include "models/npu/units/sfu_unit.h"

namespace pccx::test {

// Parameter block of the FFN example (docs/guides/firmware.md, "The FFN example").
constexpr uint64_t kFfnParamAddr = 0x10000000;
constexpr uint32_t kFfnParamBytes = 48;
constexpr uint32_t kFfnMagic = 0x314E4646;  // "FFN1"

struct ffn_addresses {
  uint64_t x = 0, w_gate = 0, w_down = 0, y = 0;
};

// GELU as the SFU evaluates it in FP32 (docs/models/sfu.md, sfu.gelu), for a BF16
// input, rounded once to BF16.
inline uint16_t sfu_gelu_bf16(uint16_t in, npu::sfu_gelu_form form = npu::sfu_gelu_form::tanh) {
  const float x = npu::bf16::to_float(in);
  float r;
  if (std::isinf(x)) {
    r = x > 0 ? x : -0.0f;
  } else if (form == npu::sfu_gelu_form::tanh) {
    const float u = 0.7978845608028654f * (x + 0.044715f * x * x * x);
    r = x / (1.0f + std::exp(-2.0f * u));
  } else {
    r = x / (1.0f + std::exp(-1.702f * x));
  }
  return npu::bf16::from_float(r);
}

// The mathematical GELU (tanh form), in double.
inline double gelu_math(double x) {
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}

struct ffn_trace {
  std::vector<uint16_t> h, g, y;  // BF16: gate outputs, GELU outputs, result
};

struct ffn_math {
  std::vector<float> h, g, y;
};

struct ffn_problem {
  uint32_t D = 0, F = 0;
  std::vector<uint16_t> x;       // D BF16
  std::vector<int> w_gate;       // F x D, row major, in [-8, 7]
  std::vector<uint16_t> s_gate;  // F BF16 row scales
  std::vector<int> w_down;       // D x F
  std::vector<uint16_t> s_down;  // D BF16

  gemv_problem gate() const { return projection(F, D, x, w_gate, s_gate); }
  gemv_problem down(const std::vector<uint16_t>& g) const {
    return projection(D, F, g, w_down, s_down);
  }

  ffn_trace bit_exact(npu::sfu_gelu_form form = npu::sfu_gelu_form::tanh) const {
    ffn_trace t;
    t.h = gate().expected(false);
    for (uint16_t v : t.h) t.g.push_back(sfu_gelu_bf16(v, form));
    t.y = down(t.g).expected(false);
    return t;
  }

  ffn_math fp32() const {
    ffn_math m;
    m.h = matvec(F, D, w_gate, s_gate, to_floats(x));
    for (float v : m.h) m.g.push_back(static_cast<float>(gelu_math(v)));
    m.y = matvec(D, F, w_down, s_down, m.g);
    return m;
  }

  // The stream the firmware reads at w_gate / w_down: the row records of the
  // even rows (HP2), then those of the odd rows (HP3).
  std::vector<uint8_t> gate_stream() const { return stream(gate()); }
  std::vector<uint8_t> down_stream() const { return stream(down(std::vector<uint16_t>(F))); }

  std::vector<uint8_t> param_block(const ffn_addresses& a, uint32_t magic = kFfnMagic) const {
    std::vector<uint8_t> b(kFfnParamBytes, 0);
    auto put = [&](size_t at, uint64_t v, int bytes) {
      for (int i = 0; i < bytes; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
    };
    put(0, magic, 4), put(4, D, 4), put(8, F, 4), put(12, 0, 4);
    put(16, a.x, 8), put(24, a.w_gate, 8), put(32, a.w_down, 8), put(40, a.y, 8);
    return b;
  }

  // x ~ N(0, 1); weights a rounded N(0, 2.5) clamped to INT4; row scales
  // uniform in [0.5, 1.5] / (2.5 sqrt(K)), so both projections keep unit
  // scale and the gate outputs cover GELU's curved part.
  static ffn_problem random(uint32_t D, uint32_t F, uint32_t seed) {
    ffn_problem p;
    p.D = D, p.F = F;
    std::mt19937 rng(seed);
    std::normal_distribution<float> xd(0.0f, 1.0f), wd(0.0f, 2.5f);
    std::uniform_real_distribution<float> sd(0.5f, 1.5f);
    auto weight = [&] {
      return static_cast<int>(std::clamp(std::nearbyint(wd(rng)), -8.0f, 7.0f));
    };
    for (uint32_t i = 0; i < D; ++i) p.x.push_back(npu::bf16::from_float(xd(rng)));
    for (uint32_t i = 0; i < F * D; ++i) p.w_gate.push_back(weight());
    for (uint32_t i = 0; i < F; ++i)
      p.s_gate.push_back(npu::bf16::from_float(sd(rng) / (2.5f * std::sqrt(float(D)))));
    for (uint32_t i = 0; i < D * F; ++i) p.w_down.push_back(weight());
    for (uint32_t i = 0; i < D; ++i)
      p.s_down.push_back(npu::bf16::from_float(sd(rng) / (2.5f * std::sqrt(float(F)))));
    return p;
  }

 private:
  static gemv_problem projection(uint32_t N, uint32_t K, const std::vector<uint16_t>& in,
                                 const std::vector<int>& w, const std::vector<uint16_t>& s) {
    gemv_problem g;
    g.M = 1, g.N = N, g.K = K, g.w_scale = true, g.group = 0;
    g.x = in, g.w = w, g.scales = s;
    return g;
  }

  static std::vector<float> to_floats(const std::vector<uint16_t>& v) {
    std::vector<float> f;
    for (uint16_t b : v) f.push_back(npu::bf16::to_float(b));
    return f;
  }

  static std::vector<float> matvec(uint32_t N, uint32_t K, const std::vector<int>& w,
                                   const std::vector<uint16_t>& s, const std::vector<float>& in) {
    std::vector<float> out(N);
    for (uint32_t n = 0; n < N; ++n) {
      const float scale = npu::bf16::to_float(s[n]);
      double acc = 0;
      for (uint32_t k = 0; k < K; ++k)
        acc += double(static_cast<float>(w[size_t{n} * K + k]) * scale) * in[k];
      out[n] = static_cast<float>(acc);
    }
    return out;
  }

  static std::vector<uint8_t> stream(const gemv_problem& g) {
    std::vector<uint8_t> s;
    for (uint32_t first : {0u, 1u})
      for (uint32_t n = first; n < g.N; n += 2) {
        const auto r = g.record(n);
        s.insert(s.end(), r.begin(), r.end());
      }
    return s;
  }
};

// Relative L2 error and cosine similarity of a BF16 result against the
// FP32 reference.
struct ffn_accuracy {
  double rel_l2 = 0, cosine = 0, max_abs = 0;
};

inline ffn_accuracy compare(const std::vector<uint16_t>& got, const std::vector<float>& want) {
  double err2 = 0, ref2 = 0, got2 = 0, dot = 0;
  ffn_accuracy a;
  for (size_t i = 0; i < want.size(); ++i) {
    const double g = npu::bf16::to_float(got[i]), w = want[i];
    err2 += (g - w) * (g - w), ref2 += w * w, got2 += g * g, dot += g * w;
    a.max_abs = std::max(a.max_abs, std::fabs(g - w));
  }
  a.rel_l2 = std::sqrt(err2 / ref2);
  a.cosine = dot / std::sqrt(ref2 * got2);
  return a;
}

// Bounds on the relative L2 error of the platform's y against fp32(), from
// the INT8 activation quantisation and the BF16 roundings (docs/guides/firmware.md,
// "Accuracy"):
//  - worst_case: guaranteed. Every quantised element within half a step,
//    every rounding at its maximum, errors carried through the weights by
//    their spectral norm and through GELU by its largest slope.
//  - estimate: the expected error under the usual noise model: quantisation
//    and rounding errors independent, uniform over their interval, carried
//    to y to first order.
struct ffn_bounds {
  double worst_case = 0, estimate = 0;
  // Parts of the estimate (relative to |y|): x quantisation, GELU input
  // quantisation, all BF16 roundings.
  double est_quant_x = 0, est_quant_g = 0, est_rounding = 0;
};

namespace ffn_detail {

inline double norm(const std::vector<float>& v) {
  double s = 0;
  for (float f : v) s += double(f) * f;
  return std::sqrt(s);
}

// The N x K dequantised matrix, w[n][k] * scale[n], row major.
inline std::vector<double> dequantised(uint32_t N, uint32_t K, const std::vector<int>& w,
                                       const std::vector<uint16_t>& s) {
  std::vector<double> m(size_t{N} * K);
  for (uint32_t n = 0; n < N; ++n)
    for (uint32_t k = 0; k < K; ++k)
      m[size_t{n} * K + k] = double(w[size_t{n} * K + k]) * npu::bf16::to_float(s[n]);
  return m;
}

// Largest singular value of an N x K matrix, by power iteration on W^T W,
// with 1 % margin for a not fully converged iteration.
inline double spectral_norm(uint32_t N, uint32_t K, const std::vector<double>& w) {
  std::vector<double> v(K, 1.0 / std::sqrt(double(K))), u(N);
  double sigma = 0;
  for (int it = 0; it < 100; ++it) {
    for (uint32_t n = 0; n < N; ++n) {
      double acc = 0;
      for (uint32_t k = 0; k < K; ++k) acc += w[size_t{n} * K + k] * v[k];
      u[n] = acc;
    }
    std::fill(v.begin(), v.end(), 0.0);
    for (uint32_t n = 0; n < N; ++n)
      for (uint32_t k = 0; k < K; ++k) v[k] += w[size_t{n} * K + k] * u[n];
    double nv = 0;
    for (double e : v) nv += e * e;
    nv = std::sqrt(nv);
    sigma = std::sqrt(nv);  // |W^T W v| for |v| = 1 tends to sigma^2
    for (double& e : v) e /= nv;
  }
  return sigma * 1.01;
}

// One BF16 ulp at the magnitude of v (the spacing of BF16 values there).
inline double bf16_ulp(double v) {
  const double a = std::fabs(v);
  if (a < 1e-30) return 0;
  return std::ldexp(1.0, std::ilogb(a) - 7);
}

inline double max_abs(const std::vector<uint16_t>& v) {
  double m = 0;
  for (uint16_t b : v) m = std::max(m, double(std::fabs(npu::bf16::to_float(b))));
  return m;
}

}  // namespace ffn_detail

inline ffn_bounds error_bounds(const ffn_problem& p, const ffn_math& m, const ffn_trace& t) {
  using namespace ffn_detail;
  const uint32_t D = p.D, F = p.F;
  constexpr double u = 1.0 / 256;          // BF16 unit roundoff (RNE, 8-bit significand)
  constexpr double u32 = 4.0 / (1 << 24);  // slack: FP32 products and sums per element
  constexpr double slope = 1.13;           // max |GELU'(x)| of the tanh form: 1.1290 at x = 1.419
  const double sx = max_abs(p.x) / 127.0;  // activation scales the GEMV picks
  const double sg = max_abs(t.g) / 127.0;
  const double ny = norm(m.y), nh = norm(m.h), ng = norm(m.g);
  const std::vector<double> wg = dequantised(F, D, p.w_gate, p.s_gate);
  const std::vector<double> wd = dequantised(D, F, p.w_down, p.s_down);
  const double sig_g = spectral_norm(F, D, wg);
  const double sig_d = spectral_norm(D, F, wd);

  ffn_bounds b;
  {
    const double ex = std::sqrt(double(D)) * sx / 2 * (1 + 1e-5);
    const double eh = sig_g * ex + (u + u32) * (nh + sig_g * ex);
    const double eg = slope * eh + 2 * u * (ng + slope * eh);
    const double eq = std::sqrt(double(F)) * sg / 2 * (1 + 1e-5);
    const double ey = sig_d * (eg + eq) + (u + u32) * (ny + sig_d * (eg + eq));
    b.worst_case = ey / ny;
  }
  {
    // First order: dy = W_d (J (W_g e_x + r_h) + r_g + e_g) + r_y, J = diag(GELU'(h)).
    std::vector<double> col2(F, 0.0);  // |column f of W_d|^2
    for (uint32_t d = 0; d < D; ++d)
      for (uint32_t f = 0; f < F; ++f) col2[f] += wd[size_t{d} * F + f] * wd[size_t{d} * F + f];
    std::vector<double> slope_h(F);
    for (uint32_t f = 0; f < F; ++f) {
      const double h = m.h[f], e = 1e-4;
      slope_h[f] = (gelu_math(h + e) - gelu_math(h - e)) / (2 * e);
    }
    // e_x: variance sx^2/12 per element through W_d J W_g.
    double vx = 0;
    std::vector<double> row(D);
    for (uint32_t d = 0; d < D; ++d) {
      std::fill(row.begin(), row.end(), 0.0);
      for (uint32_t f = 0; f < F; ++f) {
        const double c = wd[size_t{d} * F + f] * slope_h[f];
        for (uint32_t k = 0; k < D; ++k) row[k] += c * wg[size_t{f} * D + k];
      }
      for (double e : row) vx += e * e;
    }
    vx *= sx * sx / 12;
    // e_g: variance sg^2/12 per element through W_d.
    double vg = 0;
    for (uint32_t f = 0; f < F; ++f) vg += col2[f];
    vg *= sg * sg / 12;
    // Roundings: ulp^2/12 per element of h (through W_d J), g (through W_d), y.
    double vr = 0;
    for (uint32_t f = 0; f < F; ++f) {
      vr += col2[f] * std::pow(slope_h[f] * bf16_ulp(m.h[f]), 2) / 12;
      vr += col2[f] * std::pow(bf16_ulp(m.g[f]), 2) / 12;
    }
    for (uint32_t d = 0; d < D; ++d) vr += std::pow(bf16_ulp(m.y[d]), 2) / 12;
    b.est_quant_x = std::sqrt(vx) / ny;
    b.est_quant_g = std::sqrt(vg) / ny;
    b.est_rounding = std::sqrt(vr) / ny;
    b.estimate = std::sqrt(vx + vg + vr) / ny;
  }
  return b;
}

}  // namespace pccx::test
