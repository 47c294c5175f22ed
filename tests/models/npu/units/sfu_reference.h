// Double-precision references of the SFU functions (libm), rounded once to
// BF16, and the comparison the tests use.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "models/npu/units/bf16.h"
#include "models/npu/units/sfu_unit.h"
#include "pccx_isa.h"
#include "uCA_v1_api.h"

namespace pccx::test {

namespace bf16 = npu::bf16;

inline double gelu_ref(double x, npu::sfu_gelu_form form) {
  if (std::isinf(x)) return x > 0 ? x : -0.0;
  if (form == npu::sfu_gelu_form::sigmoid) return x / (1.0 + std::exp(-1.702 * x));
  // 0.5 x (1 + tanh(u)) written as x / (1 + exp(-2u)) (same function, no cancellation).
  const double u = std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
  return x / (1.0 + std::exp(-2.0 * u));
}

// f(x) for the element-wise functions; `m` = SCALE multiplier, `d` = dst element.
inline double sfu_ref(uint8_t func, double x, double m = 1.0, double d = 0.0,
                      npu::sfu_gelu_form form = npu::sfu_gelu_form::tanh) {
  switch (func) {
    case UCA_CVO_EXP: return std::exp(x);
    case UCA_CVO_SQRT: return std::sqrt(x);
    case UCA_CVO_GELU: return gelu_ref(x, form);
    case UCA_CVO_SIN: return std::sin(x);
    case UCA_CVO_COS: return std::cos(x);
    case UCA_CVO_SCALE: return x * m;
    case UCA_CVO_RECIP: return 1.0 / x;
    case PCCX_CVO_TANH: return std::tanh(x);
    case PCCX_CVO_MUL: return x * d;
    case PCCX_CVO_ADD: return x + d;
    case PCCX_CVO_MAX: return std::isnan(x) ? x : (x > 0 ? x : 0.0);
    default: return std::nan("");
  }
}

// Every `step`-th BF16 bit pattern from `offset`: all exponents, both
// signs, zeros, subnormals, infinities and NaNs.
inline std::vector<uint16_t> pattern_sweep(uint32_t step, uint32_t offset = 0) {
  std::vector<uint16_t> v;
  for (uint32_t b = offset; b < 0x10000; b += step) v.push_back(static_cast<uint16_t>(b));
  // The edges by name, whatever the step hits.
  for (uint16_t e : {0x0000, 0x8000, 0x0001, 0x8001, 0x7F80, 0xFF80, 0x7FC0, 0x3F80, 0xBF80, 0x7F7F,
                     0xFF7F, 0x0080, 0x8080})
    v.push_back(e);
  return v;
}

// got must be NaN when want is, else within `max_ulp` BF16 ulps.
inline ::testing::AssertionResult within_ulp(uint16_t got, double want, uint32_t max_ulp) {
  const uint16_t w = bf16::from_double(want);
  if (bf16::is_nan(w)) {
    if (bf16::is_nan(got)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "want NaN, got 0x" << std::hex << got;
  }
  if (bf16::is_nan(got) || bf16::ulp_distance(got, w) > max_ulp)
    return ::testing::AssertionFailure()
           << "got 0x" << std::hex << got << " (" << bf16::to_float(got) << "), want 0x" << w
           << " (" << want << "), allowed " << std::dec << max_ulp << " ulp";
  return ::testing::AssertionSuccess();
}

}  // namespace pccx::test
