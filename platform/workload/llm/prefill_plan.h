// How a prompt is prefilled on the GEMM array: the prompt in chunks of C
// rows, every matrix of every layer one pass over its weights per chunk,
// each split along K where an N-tile's columns would not fit the GEMM's
// weight block buffer, and the chunk's rows bounded by the activation
// buffer. From the configuration alone: the tiling, the bytes each traffic
// class must move, the MACs, and the refusals (with their arithmetic) of a
// chunk or prompt the engine or the KV ring cannot take. The prefill
// firmware follows the same rules; docs/models/prefill.md gives them.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/npu/units/gemm_config.h"
#include "platform/workload/llm/model_config.h"
#include "platform/workload/llm/model_shapes.h"
#include "platform/workload/llm/roofline.h"

namespace pccx::llm {

// A prompt, chunk or model the prefill cannot take; what() gives the
// arithmetic and the key or option to change.
class prefill_plan_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct prefill_options {
  uint32_t prompt = 0;     // P tokens
  uint32_t chunk = 0;      // C rows per chunk; 0 = the most the activation buffer holds
  uint32_t generated = 0;  // N tokens decoded after the prompt (ring capacity only)
  uint32_t ring_cap = 0;   // records per KV stream; 0 = P + N
  uint32_t sinks = 0;      // pinned first tokens once the ring wraps
  bool evict = false;      // let the ring drop old tokens when P + N exceeds the cap
};

// One matrix of the chunk loop: `k_parts` GEMMs of at most `k_part` inputs
// (the last part takes the rest), each streaming its inputs of every row
// record once per chunk.
struct prefill_matrix {
  matrix_shape shape;
  uint32_t k_parts = 1;
  uint32_t k_part = 0;
  uint32_t n_part = 0;  // columns per GEMM (0: the 16-bit N field's whole N-tiles)
  uint32_t passes = 1;  // 2 for a sparse layer's gate (statistics, then the cutoff)
  uint32_t group = 1;         // the first N-group's N-tiles at M = chunk rows (widest part)
  uint64_t stream_bytes = 0;  // per chunk, both FIFOs, every part: scale beats and chunks
  uint32_t n_slice() const { return n_part != 0 ? n_part : 65535u / 64u * 64u; }
  uint64_t gemms() const {
    return uint64_t{passes} * k_parts * ((shape.rows + n_slice() - 1) / n_slice());
  }
};

struct prefill_plan {
  prefill_options options;   // as given
  uint32_t chunk = 0;        // C as used
  uint32_t chunks = 0;       // ceil(P / C)
  uint32_t chunk_limit = 0;  // the largest C the activation buffer holds
  uint32_t ring_cap = 0;     // as used
  uint32_t ffn_part = 0;     // FFN columns per GEMM slice: the widest down projection's K-part
  config::gemm_config gemm;  // the limits the tiling follows
  // Per chunk, in order: the entry matrices (AltUp projections, the
  // per-layer projection) then every layer's.
  std::vector<prefill_matrix> matrices;
  // After the prompt, for its last token only (GEMV): AltUp unprojections
  // and the LM head.
  std::vector<matrix_shape> last_token;

  uint64_t gemm_instructions = 0;  // per chunk: the sum of k_parts
  uint64_t weight_bytes = 0;    // every chunk's streams, the rows the CPU reads, the last token's
  uint64_t kv_write_bytes = 0;  // every prompt token into every storing layer
  uint64_t kv_read_bytes = 0;   // per chunk and layer, the union of its rows' spans
  uint64_t gemm_macs = 0;       // P x the chunk matrices
  uint64_t gemv_macs = 0;       // the last token's matrices
  uint64_t attention_macs = 0;  // causal: each token against the keys it attends
  uint64_t macs() const { return gemm_macs + gemv_macs + attention_macs; }
};

// The tiling and its totals. Throws prefill_plan_error for a prompt of 0,
// a chunk the activation buffer or the ring cannot hold, a prompt the ring
// cannot hold without eviction, and a model the GEMM cannot read (per-group
// weight scales, W_down stored by FFN unit).
prefill_plan plan_prefill(const model_config& m, const kv_formats& f, const prefill_options& o,
                          const config::gemm_config& gemm);

// Tokens of the source cache a layer's chunk reads: the union of its rows'
// spans (rows p0 .. p0 + rows - 1, each attending up to and including
// itself), capped by the ring.
uint64_t chunk_attention_span(const model_config& m, uint32_t layer, uint64_t p0, uint32_t rows,
                              uint64_t ring_cap);

// The lower bound of the prefill: the plan's bytes at the effective
// bandwidth against all its MACs at the GEMM array's peak (32 x 32 PEs x
// 2 MACs x 400 MHz = 819.2 GMAC/s by default in `in.macs_per_second`).
roofline prefill_roofline(const prefill_plan& p, const roofline_inputs& in);

// The GEMM array's peak: 2,048 MACs per clock at the core clock.
double gemm_peak_macs_per_second(double core_clock_hz);

}  // namespace pccx::llm
