// Synthetic K/V/Q for one attention head with the statistics real decoder
// caches show (kv-gemma-ddr-facts.md section 2.2), for measuring what each
// KV format costs in accuracy without model weights:
//   - keys: RMS-normalised Gaussian vectors times a per-channel gain gamma
//     (log-normal, plus a few persistent outlier channels 5-20x the median),
//     then RoPE at their absolute position (theta configurable);
//   - token 0 is a massive "sink" key aligned with the mean query direction;
//   - values: RMS-normalised Laplace vectors (Gemma 3n's v_norm has no
//     learned scale, so |v| = sqrt(head_dim));
//   - queries: Gaussian, scaled so ordinary logits have a standard
//     deviation near `logit_std`, RoPE at the current position, plus a
//     component along the sink key worth `sink_logit` standard deviations.
// Deterministic for a seed (std::mt19937_64 and hand-written
// distributions, not the implementation-defined std:: ones).
#pragma once

#include <cstdint>
#include <vector>

namespace pccx::kv {

struct synthetic_params {
  uint32_t head_dim = 256;
  uint32_t tokens = 2048;         // cached keys/values, positions 0..tokens-1
  uint32_t queries = 16;          // query vectors at position `tokens`
  uint32_t outlier_channels = 4;  // persistent key outlier channels
  double outlier_min = 5.0;       // their gain relative to the median, from..
  double outlier_max = 20.0;      // ..to
  double gain_sigma = 0.3;        // log-normal spread of the other channels
  double sink_scale = 4.0;        // |sink key| / typical |key|
  double sink_logit = 6.0;        // the sink's logit, in units of logit_std
  double logit_std = 3.0;         // target standard deviation of q.k
  double rope_theta = 10000.0;    // 1e4 local, 1e6 global layers
  uint64_t seed = 1;              // the "model": key gains, outlier channels, sink direction
  uint64_t token_seed = 0;        // the tokens and queries drawn from it; 0 = seed
};

struct synthetic_head {
  uint32_t head_dim = 0, tokens = 0, queries = 0;
  std::vector<float> k;         // tokens x head_dim, after RoPE
  std::vector<float> v;         // tokens x head_dim
  std::vector<float> q;         // queries x head_dim, after RoPE
  std::vector<float> key_gain;  // per channel (before RoPE mixing)
};

synthetic_head make_synthetic_head(const synthetic_params& p);

// RoPE on one vector (pairs (i, i + d/2), the "rotate half" convention).
void apply_rope(float* x, uint32_t d, double position, double theta);

}  // namespace pccx::kv
