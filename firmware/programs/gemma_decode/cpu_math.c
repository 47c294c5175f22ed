/* The CPU's arithmetic: BF16, INT4/INT8 records, square root, sin/cos. */
#include "gemma_decode_internal.h"

static float f32_of(uint32_t bits) {
  union {
    uint32_t u;
    float f;
  } v;
  v.u = bits;
  return v.f;
}

static float float_of_bf16(uint16_t b) {
  return f32_of((uint32_t)b << 16);
}

double gd_sqrt(double x) {
  double r = x > 1.0 ? x : 1.0;
  if (x <= 0.0) return 0.0;
  for (int i = 0; i < 60; ++i) r = 0.5 * (r + x / r);
  return r;
}

/* sin and cos of a >= 0: Cody-Waite reduction by pi/2, Taylor on
 * [-pi/4, pi/4] (error below 1e-15 for a < 2^20). */
void gd_sincos(double a, double* s, double* c) {
  const double pio2_hi = 1.5707963267341256e+00, pio2_lo = 6.0771005065061922e-11;
  const double k = (double)(int64_t)(a * 0.63661977236758134 + 0.5);
  const double r = (a - k * pio2_hi) - k * pio2_lo, r2 = r * r;
  double sn = r, cs = 1.0, term_s = r, term_c = 1.0;
  for (int n = 1; n <= 9; ++n) {
    term_s *= -r2 / (double)((2 * n) * (2 * n + 1));
    term_c *= -r2 / (double)((2 * n - 1) * (2 * n));
    sn += term_s;
    cs += term_c;
  }
  switch ((int64_t)k & 3) {
    case 0: *s = sn, *c = cs; break;
    case 1: *s = cs, *c = -sn; break;
    case 2: *s = -sn, *c = -cs; break;
    default: *s = -cs, *c = sn; break;
  }
}

static float int4_at(const uint8_t* values, uint32_t k) {
  const uint8_t b = values[k / 2u];
  int v = k % 2u ? (b >> 4) : (b & 0xF);
  return (float)(v >= 8 ? v - 16 : v);
}

/* Element k of a row: BF16 scales (n of them, one per `group` values, or
 * one for the row when group is 0), then the values. */
float gd_dequant(const uint8_t* row, uint32_t k, uint32_t width, uint32_t format, uint32_t group,
                 int scaled) {
  const uint32_t scales = !scaled ? 0u : group == 0u ? 1u : (width + group - 1u) / group;
  const uint8_t* values = row + 2u * scales;
  float s = 1.0f;
  if (scaled) {
    const uint32_t j = group == 0u ? 0u : k / group;
    s = float_of_bf16((uint16_t)(row[2u * j] | (row[2u * j + 1u] << 8)));
  }
  if (format == 2u) return float_of_bf16((uint16_t)(values[2u * k] | (values[2u * k + 1u] << 8)));
  if (format == 1u) return (float)(int8_t)values[k] * s;
  return int4_at(values, k) * s;
}
