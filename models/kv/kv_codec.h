// Encoder and decoder of KV records (kv_format.h). Deterministic and
// platform-independent (no libm calls whose results vary: rounding uses
// nearbyint with the default mode, the codebooks are computed once from a
// fixed-point iteration). The NPU's append quantizer and read dequantizer
// call these, and the tests and the accuracy harness use them as the
// host-side reference.
//
//   fp16:    element i as binary16 (round to nearest even) at bytes 2i..2i+1.
//   int8/4:  with group G > 0: ceil(head_dim/G) BF16 scales first (scale =
//            max|x| / qmax over the group, qmax 127 or 7; an all-zero group
//            has scale 1), then the codes; G = 0: codes only, scale 1.
//            q = clamp(round_half_even(x / s), -qmax, qmax). INT4: element
//            2j in the low nibble of byte j, 2j+1 in the high nibble.
//   rotated: y = H x / sqrt(d) (H the Sylvester Walsh-Hadamard matrix,
//            orthonormal after the scaling); norm = |x|; each coordinate of
//            y * sqrt(d) / norm is coded with the Lloyd-Max codebook of
//            N(0, 1) at `bits` bits; layout: BF16 norm, then the packed
//            indices (LSB first); with the residual sketch, after them: a
//            BF16 a = mean |r_i| and one sign bit per coordinate (1 =
//            non-negative, LSB first) of the residual r = u - u_hat of the
//            normalised rotated vector u = y sqrt(d) / norm; decoded as
//            u_hat + a * sign (the MSE-optimal magnitude for a sign code).
//   Decoding returns the vector in the original (unrotated) basis;
//   decode_rotated() returns it in the rotated basis (what the NPU's GEMV
//   works on: the driver rotates the query instead of every key).
#pragma once

#include <cstdint>
#include <vector>

#include "kv/kv_format.h"

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
  std::vector<float> thresholds_;  // midpoints between centroids
};

// In-place orthonormal fast Walsh-Hadamard transform (length a power of two):
// x <- H x / sqrt(n). Self-inverse.
void fwht_orthonormal(float* x, uint32_t n);

// Lloyd-Max centroids of the standard normal at `bits` bits (deterministic).
std::vector<float> normal_lloyd_max(uint32_t bits);

// binary16 helpers (round to nearest even; subnormals kept).
uint16_t fp16_from_float(float f);
float fp16_to_float(uint16_t h);

}  // namespace pccx::kv
