// A long prompt's prefill from a few of its chunks: each sampled chunk is
// one decode run that prefills those rows after a cache of p0 tokens
// written directly into DDR, so a 32K-token prompt costs a handful of
// chunks of simulation instead of two thousand. Between samples a chunk's
// figures follow its start position linearly: the weights and the per-row
// work are the same for every chunk, and the attention's share grows with
// p0 (global layers) or stops growing once every row sees a full window.
// The samples are the first chunk, the first whose rows all see a full
// window, the last whole chunk and a last partial one; the estimate counts
// the last row's exit and LM head once. docs/models/prefill.md, "Long
// prompts".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pccx::workload {

struct prefill_point {
  uint32_t p0 = 0;    // tokens before the chunk
  uint32_t rows = 0;  // the chunk's rows
  bool operator==(const prefill_point& o) const { return p0 == o.p0 && rows == o.rows; }
};

// The chunks to simulate for a prompt of `prompt` tokens in chunks of
// `chunk` rows under a sliding window of `window` tokens (0: none), in
// order of p0.
std::vector<prefill_point> prefill_samples(uint32_t prompt, uint32_t chunk, uint32_t window);

// One sampled chunk's figures: its time and quantities (any names: DDR
// bytes per class, MACs, cycles) over the whole chunk, and the share of its
// last row's exit and LM head.
struct prefill_measure {
  double ns = 0, exit_ns = 0;
  std::map<std::string, double> q, exit_q;
};

struct prefill_totals {
  double ttft_ns = 0;
  std::map<std::string, double> q;
};

// Every chunk's figures summed (sampled chunks as measured, the others
// interpolated between the whole-chunk samples around them), the exit once.
// `measures[i]` belongs to `samples[i]`; throws std::invalid_argument when
// they do not cover the prompt as prefill_samples gives it.
prefill_totals estimate_prefill(uint32_t prompt, uint32_t chunk,
                                const std::vector<prefill_point>& samples,
                                const std::vector<prefill_measure>& measures);

}  // namespace pccx::workload
