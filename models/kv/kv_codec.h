// Encoder and decoder of KV records (kv_format.h). Deterministic and
// platform-independent (no libm calls whose results vary: rounding uses
// nearbyint with the default mode, the codebooks are computed once from a
// fixed-point iteration that uses only + - * / and exact operations). The
// NPU's append quantizer and read dequantizer call these, and the tests and
// the accuracy harness use them as the host-side reference. Multi-byte
// fields are little endian; BF16 values are rounded to nearest even.
//
//   fp16:    element i as binary16 (round to nearest even) at bytes 2i..2i+1.
//   int8/4:  with group G > 0: head_dim/G BF16 scales first (scale =
//            max|x| / qmax over the group rounded once to BF16, qmax 127 or
//            7; an all-zero group has scale 1; a scale that rounds to 0 is
//            stored as the smallest BF16 subnormal), then the codes; G = 0:
//            codes only, scale 1. q = clamp(round_half_even(x / s), -qmax,
//            qmax) with s the stored scale; decoded as q * s (exact).
//            Codes are two's complement. INT4: element 2j in the low nibble
//            of byte j, 2j+1 in the high nibble (the nibble 0x8, -8, is
//            never written but decodes as -8).
//   rotated: y = H x / sqrt(d) (H the Sylvester Walsh-Hadamard matrix,
//            orthonormal after the scaling); norm = |x| rounded to BF16;
//            each coordinate of u = y * sqrt(d) / norm (the stored norm) is
//            coded with the Lloyd-Max codebook of N(0, 1) at `bits` bits:
//            the index of the nearest centroid (index 0 = the most negative;
//            a value exactly between two centroids takes the upper one);
//            layout: BF16 norm, then the packed indices (index i at bits
//            i*bits.. of the stream, stream bit n = bit n%8 of byte n/8);
//            with the residual sketch, after them (at byte 2 +
//            ceil(d*bits/8)): a BF16 a = mean |r_i| and one sign bit per
//            coordinate (1 = non-negative, LSB first) of the residual
//            r = u - u_hat; decoded as u_hat + a * sign (the MSE-optimal
//            magnitude for a sign code). A norm that rounds to 0 gives the
//            all-zero record, which decodes to the zero vector.
//   Decoding returns the vector in the original (unrotated) basis;
//   decode_rotated() returns it in the rotated basis (what the NPU's GEMV
//   works on: the driver rotates the query instead of every key). The
//   rotated decode is computed in double (y_hat = u_hat * norm / sqrt(d),
//   x_hat = H y_hat / sqrt(d)) and rounded to float once.
//
// Non-finite inputs: NaN encodes as 0 and +-inf as +-FLT_MAX, then every
// format saturates at its range: fp16 at +-65504, BF16 scales and norms at
// the largest finite BF16, rotated outputs at +-FLT_MAX. So no encoded
// record decodes to inf or NaN. The decoder does not validate records: a
// record with a non-finite scale or norm decodes to non-finite values.
#pragma once

#include <cstdint>
#include <vector>

#include "models/kv/kv_format.h"

namespace pccx::kv {

class kv_codec {
 public:
  explicit kv_codec(const kv_format& f);  // throws std::invalid_argument if f.check() fails
  const kv_format& format() const { return f_; }

  // x: head_dim values. out: record_bytes() bytes (padding zeroed).
  void encode(const float* x, uint8_t* out) const;
  // record -> head_dim values in the original basis.
  void decode(const uint8_t* record, float* out) const;
  // record -> head_dim values in the rotated basis (= decode for non-rotated
  // formats).
  void decode_rotated(const uint8_t* record, float* out) const;

  // Operation counts for the hardware cost model (per vector).
  uint32_t rotation_adds() const;  // d log2 d for rotated, else 0

  // The rotated format's codebook (2^bits centroids of N(0,1), ascending).
  const std::vector<float>& codebook() const { return codebook_; }

 private:
  kv_format f_;
  std::vector<float> codebook_;
  std::vector<double> thresholds_;  // exact midpoints between centroids
};

// In-place orthonormal fast Walsh-Hadamard transform (length a power of two,
// else std::invalid_argument): x <- H x / sqrt(n) in float. Self-inverse up to
// rounding.
void fwht_orthonormal(float* x, uint32_t n);

// Lloyd-Max centroids of the standard normal at `bits` bits, 1..4 (throws
// std::invalid_argument otherwise), ascending and exactly symmetric:
// Lloyd's algorithm in double on the exact density from the uniform
// quantiles, a fixed 3000 iterations, rounded to float at the end.
std::vector<float> normal_lloyd_max(uint32_t bits);

// binary16 helpers (round to nearest even; subnormals kept; overflow gives
// inf and NaN stays a quiet NaN: the saturation is the encoder's).
uint16_t fp16_from_float(float f);
float fp16_to_float(uint16_t h);

}  // namespace pccx::kv
