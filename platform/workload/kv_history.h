// A KV cache "already holding L tokens" for a functional decode: a
// deterministic float K and V head vector for every (storing layer, KV
// head, position), and their encoded records at the slots the firmware's
// KV driver reads them from after it configured the rings as
// gemma_decode/block.c does (pccx_kv_configure, pccx_kv_set_sinks, pccx_kv_init
// with the group's max_tokens, then appended = L). The host reference
// (llm::reference_decoder) takes vector() as its history.
// docs/models/decode-reference.md.
#pragma once

#include <cstdint>
#include <vector>

#include "pccx_kv.h"
#include "platform/workload/llm/ddr_plan.h"
#include "platform/workload/llm/model_config.h"
#include "platform/workload/llm/model_shapes.h"
#include "platform/workload/llm/reference_decoder.h"
#include "platform/workload/llm/weight_image.h"

namespace pccx::workload {

class kv_history {
 public:
  // `plan` is the model's DDR plan (its kv_rings: groups, layers,
  // max_tokens, record bytes); `formats` the K and V record formats of the
  // rings (config::to_kv_format of npu.kv.key / value); `context` = L;
  // `sinks` those of the full-history rings (a sliding-window ring has
  // none). Throws std::invalid_argument when the formats do not match the
  // plan's records, a format has no stored scale (int8/int4 group 0: the
  // driver's static scales are not modelled), or the driver refuses a
  // ring's configuration.
  kv_history(const llm::model_config& m, const llm::ddr_plan& plan, const llm::kv_formats& formats,
             uint32_t context, uint32_t sinks, uint64_t seed);

  // The vector of (storing layer, head, position, K|V): head_dim floats.
  // Keys: N(0, 1) elements (like normalised keys after RoPE); values:
  // N(0, 1) elements divided by their RMS (rms0). Defined for any position.
  void vector(uint32_t layer, uint32_t head, uint32_t pos, bool is_value, float* out) const;
  std::vector<float> vector(uint32_t layer, uint32_t head, uint32_t pos, bool is_value) const;
  // The history as the reference takes it (it refers to this object).
  llm::kv_history_fn history() const;

  // The encoded records of the valid positions of every ring after L
  // appended tokens, at their slot addresses; contiguous records are joined
  // into one blob.
  std::vector<llm::blob> blobs() const;

  // The driver handle of ring group g (an index into plan.kv_rings) as the
  // firmware holds it before its first token: configured, sinks set,
  // initialised, appended = L.
  pccx_kv_handle handle(size_t group) const;
  // Sinks of a ring group: 0 on a sliding-window ring, else `sinks`.
  uint32_t sinks_of(size_t group) const;
  // Valid positions of ring group g after n appended tokens, ascending
  // (llm::ring_valid_positions with the group's cap and sinks).
  std::vector<uint32_t> valid_positions(size_t group, uint32_t n) const;

  uint32_t context() const { return context_; }
  uint32_t sinks() const { return sinks_; }
  uint64_t seed() const { return seed_; }
  const llm::kv_formats& formats() const { return formats_; }

 private:
  llm::model_config m_;
  llm::ddr_plan plan_;
  llm::kv_formats formats_;
  uint32_t context_;
  uint32_t sinks_;
  uint64_t seed_;
};

}  // namespace pccx::workload
