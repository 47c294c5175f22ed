// The prefill table written next to the decode table (docs/guides/
// decode-table.md, "Prefill table"): for every model of the sweep's
// "prefill" key, KV strategy and prompt length P, the time to first token
// of the decode program's chunked prefill, estimated from a few sampled
// chunks (prefill_estimate.h), each one `pccx-vp decode --context p0
// --prompt-tokens rows --tokens 0 --json` run in its own process; its
// tokens/s, MAC utilisation, DDR traffic by class and the roofline bound of
// the whole prompt (llm::prefill_roofline). Like decode_table.h, everything
// but the processes.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "platform/workload/decode_table.h"
#include "platform/workload/prefill_estimate.h"

namespace pccx::workload {

struct prefill_cell {
  std::size_t model = 0, strategy = 0;  // into the sweep's models and strategies
  uint32_t prompt = 0;
  uint32_t chunk = 0;                   // the sweep's, or the most the program takes
  uint32_t window = 0;                  // the model's sliding window
  std::vector<prefill_point> samples;
  std::string id;                       // <model>-<strategy>-prompt<P>
  std::string sample_id(std::size_t i) const;  // <id>-at<p0>
};

// Every cell of the sweep's prefill key, in the table's order (model,
// strategy, prompt), with its chunk (a chunk of 0 resolved on the
// strategy's platform, workload::prefill_chunk_limit) and its samples.
std::vector<prefill_cell> prefill_cells(const decode_sweep& s, const config::config_layers& base);

// A sample's `pccx-vp decode` arguments: the cache of p0 tokens written
// directly, the chunk's rows prefilled, no token decoded; the rings laid
// out for the whole prompt (ring cap P, or the strategy's).
std::vector<std::string> prefill_args(const decode_sweep& s, const prefill_cell& c,
                                      std::size_t sample, const config::config_layers& base,
                                      const std::string& json_path);

struct prefill_row {
  decode_row::status state = decode_row::status::failed;
  std::string model, strategy, label, note;
  uint32_t prompt = 0, chunk = 0, ring_cap = 0, sinks = 0;
  std::vector<uint32_t> sampled_p0;
  double ttft_ms = 0, tokens_per_s = 0, gemm_util_pct = 0, npu_util_pct = 0;
  double bound_ms = 0, ttft_over_bound = 0;
  bool memory_bound = false;
  std::vector<std::pair<std::string, double>> gb;  // DDR class -> GB (1e9 bytes) of the prompt
  double gb_of(const std::string& cls) const;
};

// A row from the cell's sample documents (status ok each), with the bound
// of the whole prompt on the strategy's platform; a does_not_fit or failed
// sample makes the row so.
prefill_row prefill_cell_row(const decode_sweep& s, const config::config_layers& base,
                             const prefill_cell& c, const std::vector<nlohmann::json>& docs);

struct prefill_table {
  decode_sweep sweep;
  config::config_layers base;
  std::vector<prefill_row> rows;
};

std::string prefill_markdown(const prefill_table& t);
std::string prefill_csv(const prefill_table& t);
nlohmann::ordered_json prefill_json(const prefill_table& t);

}  // namespace pccx::workload
