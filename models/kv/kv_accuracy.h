// What each KV format costs in accuracy, measured on synthetic heads
// (kv_synthetic.h) against FP32: reconstruction error of K and V, error of
// the attention logits, cosine similarity and relative error of the
// attention output; for the rotated formats the measured distortion against
// the 4^-b reference curve; for sink + window eviction the share of softmax
// mass the kept tokens carry. `pccx-vp kv-accuracy` runs it and writes the
// tables (docs/reference/kv-formats.md shows one run).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/kv/kv_format.h"
#include "models/kv/kv_synthetic.h"

namespace pccx::kv {

// A K format and a V format, and how static (group 0) scales are applied:
// keys per channel, values per head, both calibrated on a separate draw.
struct kv_strategy {
  std::string name;
  kv_format key, value;
};

// The strategies of the standard table (FP16, INT8, INT4 K-per-channel /
// V-per-token, rotated 2/3/4 bits, rotated 3 bits + sketch).
std::vector<kv_strategy> standard_strategies(uint32_t head_dim);

struct kv_accuracy_options {
  synthetic_params head;                // tokens, queries, seed of the first head
  uint32_t heads = 4;                   // independent heads averaged (seeds seed..seed+heads-1)
  std::vector<kv_strategy> strategies;  // empty: standard_strategies()
  // Sink + window settings measured on a longer history.
  uint32_t window_tokens = 8192;
  std::vector<std::pair<uint32_t, uint32_t>> sink_window = {
      {4, 512}, {4, 1024}, {4, 4096}, {0, 1024}};
};

struct kv_accuracy_row {
  std::string strategy, key_format, value_format;
  uint32_t bytes_per_token_layer = 0;         // 2 KV heads x (K + V) records (Gemma 3n E4B)
  double key_bits = 0, value_bits = 0;        // stored bits per element, metadata included
  double key_rel_mse = 0, value_rel_mse = 0;  // sum |x - x_hat|^2 / sum |x|^2
  double logit_rmse = 0;                      // RMS error of q.k, in units of the logits' std
  double output_cosine = 0;                   // mean over queries of cos(o, o_hat)
  double output_min_cosine = 0;
  double output_rel_error = 0;  // mean over queries of |o - o_hat| / |o|
};

struct rotated_curve_row {
  uint32_t bits = 0;
  bool sketch = false;
  double measured = 0;   // E|u - u_hat|^2 / |u|^2 on the synthetic keys
  double reference = 0;  // 4^-b
  double upper = 0;      // sqrt(3) pi / 2 * 4^-b (TurboQuant's upper bound)
};

struct window_row {
  uint32_t sink = 0, window = 0, tokens = 0;
  double mass_kept = 0;      // mean over queries and heads of the kept softmax mass
  double min_mass_kept = 0;  // worst query
};

struct kv_accuracy_report {
  kv_accuracy_options options;
  std::vector<kv_accuracy_row> formats;
  std::vector<rotated_curve_row> rotated;
  std::vector<window_row> windows;
};

kv_accuracy_report measure_kv_accuracy(const kv_accuracy_options& options);

std::string to_markdown(const kv_accuracy_report& r);
// Three CSV tables: formats, rotated curve, windows.
std::string formats_csv(const kv_accuracy_report& r);
std::string rotated_csv(const kv_accuracy_report& r);
std::string windows_csv(const kv_accuracy_report& r);

}  // namespace pccx::kv
