// Whether the decode program's activations fit the NPU's L2: the layout of
// pccx_gemma_decode_l2.h (the one the firmware uses) computed from the
// parameter block the firmware will read, so the two cannot disagree.
// A layout that does not fit is bad input, reported before any simulation
// with its parts and their sum against npu.l2.words.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "pccx_gemma_decode_l2.h"

namespace pccx::workload {

struct l2_fit_error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// The layout's inputs, read from a "GDC2" parameter block.
gd_l2_shape l2_shape_of_block(const std::vector<uint8_t>& block);

// The layout's parts as "label words" lines, e.g. for the error message.
std::vector<std::pair<std::string, uint64_t>> l2_layout_parts(const gd_l2_shape& shape);

// Rows of a prefill chunk whose buffers fit L2 after the decode's layout
// (gd_plan_prefill_l2), with FFN slices of ffn_part columns.
uint32_t prefill_rows_fitting(const gd_l2_shape& shape, uint32_t ffn_part, uint32_t l2_words);

// The query tile of the prefill's attention (gd_prefill_attention_tile) in
// a chunk of `chunk` rows, starting at a row whose append made n_first
// tokens with `rows` rows left, on a ring of `cap` records, `sinks` and
// `window`.
gd_attention_tile prefill_attention_tile(const gd_l2_shape& shape, uint32_t ffn_part,
                                         uint32_t chunk, uint32_t n_first, uint32_t rows,
                                         uint32_t cap, uint32_t sinks, uint32_t window);

// Throws l2_fit_error, with the arithmetic, unless the layout (and, with a
// chunk above 1, the prefill's rows after it) fits
// `l2_words` and every attention span fits a 16-bit shape extent.
void check_l2_fit(const std::vector<uint8_t>& block, uint32_t l2_words);
// The block's header against the decode program's limits (one source:
// pccx_gemma_decode_limits.h); throws vp::input_error naming the field, its
// limit and the model's dimensions.
void check_block_limits(const std::vector<uint8_t>& block);

}  // namespace pccx::workload
