// Firmware-side steps the platform tests repeat: BF16 and INT4 encoding of
// test data, placing it in DDR, the constant-cache shapes, moving vectors
// between DDR and the L2 (an ACP descriptor plus a MEMCPY), and waiting for
// the result to land back in DDR. Each helper is the uCA/DMA calls it names,
// in the order a firmware issues them.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "pccx_dma.h"
#include "pccx_host_mem.h"
#include "uCA_v1_api.h"

namespace pccx::test {

// BF16 as firmware writes it, round to nearest even (finite values only);
// kept apart from the model's converter so test inputs do not rest on it.
inline uint16_t to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
inline float from_bf16(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Two INT4 weights in one byte: `lo` (the even k or column) in the low nibble.
inline uint8_t pack_int4(int lo, int hi) {
  return static_cast<uint8_t>((lo & 0xF) | ((hi & 0xF) << 4));
}

// The weight rows of an N x K GEMV (w[n][k]) as the engine takes them: row
// n from weight FIFO n mod 2, so even rows stream through HP2 ([0]) and odd
// rows through HP3 ([1]), K / 2 bytes a row.
template <class Weights>
std::array<std::vector<uint8_t>, 2> gemv_weight_streams(const Weights& w, unsigned n_rows,
                                                        unsigned k) {
  std::array<std::vector<uint8_t>, 2> s;
  for (unsigned n = 0; n < n_rows; ++n)
    for (unsigned i = 0; i < k; i += 2) s[n % 2].push_back(pack_int4(w[n][i], w[n][i + 1]));
  return s;
}

inline void write_ddr(uint64_t addr, const std::vector<uint8_t>& bytes) {
  if (!bytes.empty()) pccx_host_write(addr, bytes.data(), static_cast<uint32_t>(bytes.size()));
}

// Constant-cache shapes: a vector of n elements (fmap_shape bank, (1, 1, n))
// and an (M, N, K) weight shape (weight_shape bank).
inline void set_vector_shape(uint8_t slot, uint16_t n) {
  uca_memset(0, slot, 1, 1, n);
}
inline void set_weight_shape(uint8_t slot, uint16_t m, uint16_t n, uint16_t k) {
  uca_memset(1, slot, m, n, k);
}

// `bytes` at DDR `ddr` into the L2 at `word`: an ACP_FMAP descriptor (tag
// `tag`) and a MEMCPY host->L2 of the vector shape in `shape_slot`.
inline void ddr_to_l2(uint64_t ddr, uint32_t bytes, uint32_t word, uint8_t shape_slot,
                      unsigned tag) {
  pccx_dma_submit(PCCX_DMA_ACP_FMAP, ddr, bytes, tag);
  uca_memcpy(UCA_ROUTE_HOST_TO_L2, word, 0, shape_slot, 0);
}
// The vector at L2 `word` (shape in `shape_slot`, `bytes` long) to DDR
// `ddr`: an ACP_RESULT descriptor (tag `tag`) and a MEMCPY L2->host.
inline void l2_to_ddr(uint32_t word, uint8_t shape_slot, uint64_t ddr, uint32_t bytes,
                      unsigned tag) {
  pccx_dma_submit(PCCX_DMA_ACP_RESULT, ddr, bytes, tag);
  uca_memcpy(UCA_ROUTE_L2_TO_HOST, 0, word, shape_slot, 0);
}

// Waits for the NPU to drain (uca_sync, `timeout_us`) and for the ACP_RESULT
// descriptor, then reads the result from DDR into `dst`. Returns the
// firmware's exit code: 0, 2 when the NPU did not drain, 3 when no result
// status came.
inline int read_result(uint32_t timeout_us, uint64_t ddr, void* dst, uint32_t bytes) {
  if (uca_sync(timeout_us) != 0) return 2;
  pccx_dma_status st;
  if (pccx_dma_wait_status(PCCX_DMA_ACP_RESULT, &st, 1000) != PCCX_DMA_OK) return 3;
  pccx_host_read(ddr, dst, bytes);
  return 0;
}

}  // namespace pccx::test
