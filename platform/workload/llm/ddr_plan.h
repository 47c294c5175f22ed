// Where everything a decode needs lives in DDR: the matrices' row records,
// the per-layer embedding table, the BF16 parameters, the KV rings,
// activation scratch and the host buffers. Every region starts on a 4 KiB
// boundary. docs/reference/model-config.md describes the layout and shows the plan
// of Gemma 3n E4B on the KV260.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "platform/config/platform_config.h"
#include "platform/workload/llm/model_config.h"
#include "platform/workload/llm/model_shapes.h"

namespace pccx::llm {

// Thrown when the model does not fit; what() shows every region's size and
// the total against the DDR size.
class ddr_plan_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct plan_options {
  // F: parts each matrix is split into, one per weight FIFO of the GEMV
  // (npu.gemv.weight_fifos; HP2 and HP3 by default). Row n goes to part
  // n mod F.
  uint32_t weight_streams = 2;
  // Region alignment.
  uint64_t alignment = 4096;
  // Activation scratch; 0 = derived: one image of the L2 (l2_words x 16
  // bytes, to spill and restore it) plus one token's activations in BF16
  // (AltUp streams, per-layer inputs, queries, the attention scores of
  // every head over max_tokens, gate and up of the widest FFN).
  uint64_t activation_scratch_bytes = 0;
  uint32_t l2_words = 114688;
  // Named in the failure message (the configuration key of the DDR size).
  std::string ddr_size_key = "memory_map.ddr_size";
  // Records a sliding-window ring holds beyond its window (ring_of): a
  // prefill chunk of C rows attends up to C - 1 keys older than the window
  // of its last row, so its rings hold window + C - 1.
  uint32_t window_extra = 0;
  // A prefill's staging (chunk rows of the firmware's per-row scratch),
  // after the activations; 0: none.
  uint64_t prefill_staging_bytes = 0;
};

// A KV ring as the driver keeps it: cap records per stream, the sinks it
// pins, and the window of non-sink tokens it keeps valid (0: the cap).
struct ring_view {
  uint32_t cap = 0;
  uint32_t sinks = 0;
  uint32_t window = 0;
};
// The ring a storing layer's K/V live in, for rings of `ring_cap` records
// with `sinks` sinks: a local layer with a sliding window W below ring_cap
// has a ring of min(W + window_extra, ring_cap) records, no sinks, and the
// window W when that is more than W; every other layer ring_cap and `sinks`.
ring_view ring_of(const model_config& m, uint32_t layer, uint32_t ring_cap, uint32_t sinks,
                  uint32_t window_extra = 0);
// The driver's valid set after n appended tokens (nothing evicted):
// [0, min(S, n)) and [max(S, n - R), n) with R = C - S, or min(C - S, W)
// with a window, ascending.
std::vector<uint32_t> ring_valid_positions(uint32_t n, const ring_view& r);

// A contiguous run of a matrix's row records: rows f, f + F, f + 2F, ...
struct weight_part {
  uint64_t addr = 0;
  uint64_t bytes = 0;
  uint32_t rows = 0;
};

struct planned_matrix {
  matrix_shape shape;
  uint64_t record_bytes = 0;
  uint64_t base = 0;
  uint64_t bytes = 0;              // rows x record_bytes
  std::vector<weight_part> parts;  // F parts, part f = the rows n with n mod F == f

  // DDR address of row n's record.
  uint64_t row_addr(uint32_t n) const;
};

// The rings of the storing layers that share one cap, laid out as the
// driver does (firmware/include/pccx_kv.h): one ring per layer, per KV
// head a K array of max_tokens records, then a V array. A pccx_kv_handle
// configured with (layers.size(), kv_heads, k_record_bytes,
// v_record_bytes, base, bytes) and initialised with max_tokens covers it.
struct kv_ring_group {
  std::string name;              // "kv", or "kv.global" and "kv.local"
  std::vector<uint32_t> layers;  // model layers; ring index = position here
  uint32_t max_tokens = 0;       // records per stream
  uint32_t window = 0;           // the driver's window (ring_view::window)
  uint32_t kv_heads = 0;
  uint32_t k_record_bytes = 0;
  uint32_t v_record_bytes = 0;
  uint64_t base = 0;
  uint64_t bytes = 0;  // pccx_kv_required_bytes(layers, kv_heads, k, v, max_tokens)
};

struct planned_vector {
  vector_param param;
  uint64_t addr = 0;  // BF16 values, padded to 16 bytes
};

struct region {
  std::string name;
  std::string category;  // weights, tables, parameters, kv, scratch, host
  int32_t layer = -1;    // the layer of a matrix region, else -1
  uint64_t base = 0;
  uint64_t bytes = 0;   // content; the region occupies bytes rounded up to the alignment
  std::string formula;  // how bytes was computed, for tables and messages
};

struct ddr_plan {
  std::string model;
  uint64_t ddr_base = 0;
  uint64_t ddr_size = 0;
  uint64_t alignment = 4096;
  uint32_t weight_streams = 2;
  uint32_t max_tokens = 0;
  uint32_t window_extra = 0;             // plan_options::window_extra
  uint64_t end = 0;                      // first byte after the last region
  std::vector<region> regions;           // in address order
  std::vector<planned_matrix> matrices;  // decode order (all_matrices)
  std::vector<kv_ring_group> kv_rings;
  std::vector<planned_vector> vectors;

  const region& find(const std::string& name) const;  // throws std::out_of_range
  const planned_matrix& matrix(int32_t layer, const std::string& name) const;  // likewise
  // The ring a layer attends to (its source layer's) and the index of
  // that layer in the ring group.
  struct kv_location {
    const kv_ring_group* group = nullptr;
    uint32_t index = 0;
  };
  kv_location kv_of(const model_config& m, uint32_t layer) const;
  // Address of a token's per-layer embedding row and embedding row (with
  // tied embeddings an LM-head record). std::out_of_range for a token
  // without a row: how the decode maps such ids is its own choice.
  uint64_t ple_row_addr(const model_config& m, uint32_t token) const;
  uint64_t embedding_row_addr(const model_config& m, uint32_t token) const;
  // Sum of the footprints of the regions of one category.
  uint64_t category_bytes(const std::string& category) const;
};

// Lays the model out in [ddr_base, ddr_base + ddr_size). Throws
// std::invalid_argument for bad arguments (KV formats that do not fit the
// model, max_tokens 0, weight_streams 0, an alignment that is not a power of
// two) and ddr_plan_error when the regions do not fit.
ddr_plan plan_ddr(const model_config& m, const kv_formats& kv, uint32_t max_tokens,
                  uint64_t ddr_base, uint64_t ddr_size, const plan_options& options = {});
// The K and V record formats of a platform's cache for the model
// (npu.kv.key / value at the model's head_dim).
kv_formats kv_formats_of(const model_config& m, const config::platform_config& platform);

// The same on a platform: memory_map.ddr_base/ddr_size, npu.kv.key/value,
// the count of npu.gemv.weight_fifos and npu.l2.words.
ddr_plan plan_ddr(const model_config& m, const config::platform_config& platform,
                  uint32_t max_tokens, uint32_t window_extra = 0,
                  uint64_t prefill_staging_bytes = 0);

// The largest max_tokens for which plan_ddr succeeds (0 when not even one
// token fits).
uint32_t largest_fitting_cap(const model_config& m, const kv_formats& kv, uint64_t ddr_base,
                             uint64_t ddr_size, const plan_options& options = {});

// Markdown tables for docs/reference/model-config.md: one row per category, and one
// row per region of the given layers (-1: the regions outside layers).
std::string plan_summary_markdown(const ddr_plan& p);
std::string plan_regions_markdown(const ddr_plan& p, const std::vector<int32_t>& layers);

}  // namespace pccx::llm
