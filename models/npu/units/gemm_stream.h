// The GEMM array's weight stream and tile geometry from the instruction's
// fields alone (docs/models/gemm.md, "Weight stream"): no SystemC, so the
// unit, the replay's DMA planner and the prefill's tiling share one source.
#pragma once

#include <algorithm>
#include <cstdint>

#include "models/npu/units/gemm_config.h"

namespace pccx::npu {

// Fixed by the RTL: a resident tile is 32 K rows x 64 N columns (32 x 32 PEs,
// two W4A8 columns per PE), the two columns of a PE from the two weight
// FIFOs (HP0, HP1).
constexpr uint32_t kGemmTileK = 32;
constexpr uint32_t kGemmTileN = 64;
constexpr unsigned kGemmFifos = 2;
constexpr uint64_t kGemmBeat = 16;      // a scale beat; chunks are whole beats
constexpr uint64_t kGemmScaleLead = 2;  // a scaled record's BF16 scale before its weights

// Output columns FIFO f carries: n = 2s + f, n < N.
inline uint64_t gemm_columns_of_fifo(uint32_t n, unsigned f) {
  return n > f ? (uint64_t{n} - f + kGemmFifos - 1) / kGemmFifos : 0;
}

// A column's chunk: with w_scale the record's scale (2 bytes), then
// ceil(K / 2) weight bytes, padded to 16 bytes.
inline uint64_t gemm_chunk_bytes(uint32_t k, bool w_scale) {
  const uint64_t lead = w_scale ? kGemmScaleLead : 0;
  return (lead + (uint64_t{k} + 1) / 2 + kGemmBeat - 1) / kGemmBeat * kGemmBeat;
}

// All the bytes FIFO f carries: with w_scale a scale beat per column first,
// then every column's chunk.
inline uint64_t gemm_stream_bytes_of_fifo(uint32_t n, uint32_t k, bool w_scale, unsigned f) {
  return gemm_columns_of_fifo(n, f) * ((w_scale ? kGemmBeat : 0) + gemm_chunk_bytes(k, w_scale));
}

// One N-tile's chunks per FIFO, what the weight block buffer holds whole.
inline uint64_t gemm_block_bytes(uint32_t k, bool w_scale) {
  return uint64_t{kGemmTileN / kGemmFifos} * gemm_chunk_bytes(k, w_scale);
}

// N-tiles of the first group without the block buffer's bound:
// max(1, min(N-tiles, acc_buffer_entries / (M x 64), 4)). A slice is 4 L2
// words per row and the group spends G clocks per row on it, so G = 4
// keeps up with the stream; a larger group only delays its results.
inline uint32_t gemm_group_ntiles(const config::gemm_config& c, uint32_t m, uint32_t n) {
  const uint64_t n_tiles = (uint64_t{n} + kGemmTileN - 1) / kGemmTileN;
  const uint64_t per_ntile = std::max<uint64_t>(1, uint64_t{m} * kGemmTileN);
  const uint64_t fit = c.acc_buffer_entries / per_ntile;
  const uint64_t hides = (kGemmTileK + 7) / 8;
  return static_cast<uint32_t>(std::max<uint64_t>(1, std::min({n_tiles, fit, hides})));
}

// With K and w_scale: also at most the blocks the block buffer holds (the
// first group needs all its blocks at once).
inline uint32_t gemm_group_ntiles(const config::gemm_config& c, uint32_t m, uint32_t n, uint32_t k,
                                  bool w_scale) {
  const uint64_t resident = c.weight_block_bytes / gemm_block_bytes(k, w_scale);
  return static_cast<uint32_t>(
      std::max<uint64_t>(1, std::min<uint64_t>(gemm_group_ntiles(c, m, n), resident)));
}

}  // namespace pccx::npu
