#include "models/kv/kv_synthetic.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

namespace pccx::kv {

namespace {

constexpr double kPi = 3.14159265358979323846;

// Uniform in (0, 1) from the engine's bits: the std:: distributions are
// implementation-defined, the engine is not.
class rng {
 public:
  explicit rng(uint64_t seed) : engine_(seed) {}
  double uniform() { return (static_cast<double>(engine_() >> 11) + 0.5) * 0x1.0p-53; }
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double r = std::sqrt(-2.0 * std::log(uniform())), a = 2.0 * kPi * uniform();
    spare_ = r * std::sin(a);
    has_spare_ = true;
    return r * std::cos(a);
  }
  double laplace() {
    const double u = uniform() - 0.5;
    return u < 0 ? std::log(1.0 + 2.0 * u) : -std::log(1.0 - 2.0 * u);
  }

 private:
  std::mt19937_64 engine_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

// x <- x * sqrt(d) / |x|: RMS 1, as RMSNorm leaves a vector.
void rms_normalise(std::vector<double>& x) {
  double ss = 0.0;
  for (double v : x) ss += v * v;
  const double s = ss > 0.0 ? std::sqrt(static_cast<double>(x.size()) / ss) : 0.0;
  for (double& v : x) v *= s;
}

}  // namespace

void apply_rope(float* x, uint32_t d, double position, double theta) {
  const uint32_t half = d / 2;
  for (uint32_t i = 0; i < half; ++i) {
    const double freq = std::pow(theta, -2.0 * i / d);
    const double c = std::cos(position * freq), s = std::sin(position * freq);
    const double a = x[i], b = x[i + half];
    x[i] = static_cast<float>(a * c - b * s);
    x[i + half] = static_cast<float>(b * c + a * s);
  }
}

synthetic_head make_synthetic_head(const synthetic_params& p) {
  if (p.head_dim < 2 || p.head_dim % 2 != 0)
    throw std::invalid_argument("synthetic head: head_dim " + std::to_string(p.head_dim) +
                                " must be even and at least 2");
  if (p.tokens == 0 || p.queries == 0)
    throw std::invalid_argument("synthetic head: tokens and queries must be at least 1");
  if (p.outlier_channels > p.head_dim)
    throw std::invalid_argument("synthetic head: more outlier channels than head_dim");
  const uint32_t d = p.head_dim;
  rng r(p.seed);  // model parameters first, then the draw of tokens
  synthetic_head h;
  h.head_dim = d, h.tokens = p.tokens, h.queries = p.queries;

  // Per-channel key gain: log-normal around 1, a few fixed outliers spread
  // over the channels (every (d / n)-th, offset so they hit both RoPE halves).
  h.key_gain.resize(d);
  for (uint32_t c = 0; c < d; ++c)
    h.key_gain[c] = static_cast<float>(std::exp(p.gain_sigma * r.normal()));
  for (uint32_t i = 0; i < p.outlier_channels; ++i) {
    const uint32_t c = (i * (d / p.outlier_channels) + 3 * i + 1) % d;
    const double t = p.outlier_channels == 1 ? 0.0 : double(i) / (p.outlier_channels - 1);
    h.key_gain[c] = static_cast<float>(p.outlier_min + t * (p.outlier_max - p.outlier_min));
  }

  // The sink key's direction (RMS 1; RoPE at position 0 is the identity).
  std::vector<double> sink(d);
  for (double& v : sink) v = r.normal();
  rms_normalise(sink);

  std::vector<double> x(d);
  if (p.token_seed != 0) r = rng(p.token_seed ^ 0x9E3779B97F4A7C15ull);
  h.k.resize(size_t{p.tokens} * d);
  for (uint32_t t = 0; t < p.tokens; ++t) {
    for (double& v : x) v = r.normal();
    rms_normalise(x);
    float* k = &h.k[size_t{t} * d];
    for (uint32_t c = 0; c < d; ++c)
      k[c] = static_cast<float>(t == 0 ? p.sink_scale * sink[c] * h.key_gain[c]
                                       : x[c] * h.key_gain[c]);
    apply_rope(k, d, t, p.rope_theta);
  }

  h.v.resize(size_t{p.tokens} * d);
  for (uint32_t t = 0; t < p.tokens; ++t) {
    for (double& v : x) v = r.laplace();
    rms_normalise(x);
    for (uint32_t c = 0; c < d; ++c) h.v[size_t{t} * d + c] = static_cast<float>(x[c]);
  }

  // Queries: a fresh direction scaled so that q.k of an ordinary key has
  // about the target standard deviation, RoPE at the current position, plus
  // a component along the sink key giving it a logit of sink_logit std.
  double gain_ss = 0.0;
  for (float g : h.key_gain) gain_ss += double(g) * g;
  const double scale = p.logit_std / std::sqrt(gain_ss);  // q.k ~ N(0, scale^2 sum g^2)
  double sink_norm = 0.0;
  for (uint32_t c = 0; c < d; ++c) sink_norm += double(h.k[c]) * h.k[c];
  sink_norm = std::sqrt(sink_norm);
  const double beta = p.sink_logit * p.logit_std / (sink_norm * sink_norm);
  h.q.resize(size_t{p.queries} * d);
  for (uint32_t i = 0; i < p.queries; ++i) {
    for (double& v : x) v = r.normal();
    float* q = &h.q[size_t{i} * d];
    for (uint32_t c = 0; c < d; ++c) q[c] = static_cast<float>(scale * x[c]);
    apply_rope(q, d, p.tokens, p.rope_theta);
    for (uint32_t c = 0; c < d; ++c) q[c] += static_cast<float>(beta * h.k[c]);
  }
  return h;
}

}  // namespace pccx::kv
