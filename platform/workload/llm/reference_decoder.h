// The host reference of the decode: docs/models/decode-model.md computed in double
// precision from a weight_image (the INT4 matrices dequantised, the BF16
// parameters as stored) and a KV history (the float K and V head vectors of
// the L context tokens). Tokens are decoded teacher forced at positions L,
// L + 1, ...; the K and V of the decoded tokens are kept unquantised in the
// reference's own cache, or, in the codec mode, every K and V vector
// (history and new) passes through the KV formats' encoder and decoder.
// docs/models/decode-reference.md.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "models/kv/kv_codec.h"
#include "platform/workload/llm/model_config.h"
#include "platform/workload/llm/model_shapes.h"
#include "platform/workload/llm/weight_image.h"

namespace pccx::llm {

// ---- the pieces of docs/models/decode-model.md, in double ----

// rms(x; g) = g x / sqrt(mean(x^2) + eps); g nullptr: rms0.
std::vector<double> rms_norm(const std::vector<double>& x, const float* g, double eps);
// mag(x) = sqrt(mean(x^2) + eps).
double magnitude(const std::vector<double>& x, double eps);
// 0.5 x (1 + tanh(0.7978845608 (x + 0.044715 x^3))).
double gelu_tanh(double x);
// exp(s - max) / sum, so large scores do not overflow.
std::vector<double> softmax(const std::vector<double>& scores);
// RoPE on x[0..d) at position p: for m < d/2, a = p theta^(-2m/d),
// (x[m], x[m + d/2]) rotated by a.
void rope(double* x, uint32_t d, double position, double theta);
// Cosine similarity of two vectors (0 when either is zero).
double cosine_similarity(const std::vector<double>& a, const std::vector<double>& b);

// ---- the attention sets: ring_view, ring_of, ring_valid_positions (ddr_plan.h) ----

// ---- the decoder ----

// The float K (is_value false) or V head vector of a context token:
// head_dim values into out. `layer` is a storing layer.
using kv_history_fn =
    std::function<void(uint32_t layer, uint32_t head, uint32_t pos, bool is_value, float* out)>;

struct reference_options {
  uint32_t context = 0;   // L: positions 0..L-1 come from the history
  uint32_t ring_cap = 0;  // records per full-history ring; 0 = the weight image plan's max_tokens
  uint32_t sinks = 0;     // sinks of the full-history rings
  uint32_t window_extra = 0;  // records a sliding-window ring holds beyond its window (ring_of)
  // Every K/V vector through kv::kv_codec encode/decode of these formats
  // (what the platform's cache returns) instead of the exact vectors.
  bool kv_codec = false;
  kv_formats formats;
};

class reference_decoder {
 public:
  // Keeps a reference to `w` (it must outlive the decoder) and copies its
  // values into double. Throws std::invalid_argument for bad options (sinks
  // not below a ring's cap, formats that do not fit the model or have no
  // stored scale, a context without a history).
  reference_decoder(const weight_image& w, kv_history_fn history, const reference_options& o);

  // Decodes `token` at the next position (L, then L + 1, ...) and returns
  // its vocab logits. std::invalid_argument for a token outside the
  // vocabulary.
  std::vector<double> step(uint32_t token);
  // step() for each token in turn.
  std::vector<std::vector<double>> run(const std::vector<uint32_t>& tokens);
  // Position the next step decodes at.
  uint32_t position() const { return pos_; }
  // The K (is_value false) or V head vector the decoder stored for a
  // position it decoded (through the codec when kv_codec is set), or
  // nullptr: a storing layer's record as the platform's cache should hold
  // it.
  const std::vector<double>* stored_kv(uint32_t layer, uint32_t head, uint32_t pos,
                                       bool is_value) const;

 private:
  // A matrix as the image stores it: rows are dequantised one at a time
  // when applied, so no copy of the weights is held (a real-shape model's
  // records are a gigabyte; as doubles they would be sixteen).
  struct matrix_d {
    uint32_t rows = 0, cols = 0;
    bool transposed = false;  // stored by unit: applied as its transpose
    size_t index = 0;         // in the weight image
  };
  const matrix_d& mat(int32_t layer, const std::string& name) const;
  std::vector<double> apply(const matrix_d& a, const std::vector<double>& x) const;
  std::vector<double> apply(int32_t layer, const std::string& name,
                            const std::vector<double>& x) const {
    return apply(mat(layer, name), x);
  }
  const float* vec(int32_t layer, const std::string& name) const;
  std::vector<double> norm(const std::vector<double>& x, int32_t layer,
                           const std::string& name) const {
    return rms_norm(x, vec(layer, name), eps_);
  }
  // Cache access: the vector of (storing layer, head, pos, K|V).
  const std::vector<double>& kv(uint32_t layer, uint32_t head, uint32_t pos, bool is_value);
  void store_kv(uint32_t layer, uint32_t head, uint32_t pos, bool is_value,
                const std::vector<double>& x);
  std::vector<double> through_codec(const std::vector<double>& x, bool is_value) const;
  // AltUp router: tanh(W_router rms(x; g_router_norm)).
  std::vector<double> router(uint32_t layer, const std::vector<double>& x) const;

  const weight_image& w_;
  const model_config& m_;
  kv_history_fn history_;
  reference_options o_;
  double eps_;
  uint32_t ring_cap_;
  std::optional<kv::kv_codec> key_codec_, value_codec_;
  std::map<std::pair<int32_t, std::string>, matrix_d> mats_;
  std::map<std::pair<int32_t, std::string>, std::vector<float>> vecs_;
  // (layer, head, is_value) -> position -> vector
  std::map<std::tuple<uint32_t, uint32_t, bool>, std::map<uint32_t, std::vector<double>>> cache_;
  uint32_t pos_ = 0;
};

}  // namespace pccx::llm
