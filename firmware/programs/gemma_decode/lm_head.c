/* The LM head: the vocabulary in tiles of lm_tile rows, each GEMV'd,
 * softcapped and written to the token's logits. */
#include "gemma_decode_internal.h"

int gd_lm_head(uint32_t token) {
  const uint64_t logits = gd_m.logits + (uint64_t)token * gd_m.logits_stride;
  const int softcap = gd_m.softcap != 0.0f;
  for (uint32_t t = 0; t < gd_a.tiles; ++t) {
    const uint32_t r0 = t * gd_m.lm_tile;
    const uint32_t rows = gd_m.vocab - r0 < gd_m.lm_tile ? gd_m.vocab - r0 : gd_m.lm_tile;
    const int last = rows != gd_m.lm_tile;
    const uint32_t s = gd_a.logits + t * gd_a.tile_stride;
    if (gd_stream_rows(&gd_m.lm, r0, rows) != 0) return -1;
    uca_gemv(s + 1u, gd_a.xn, UCA_FLAG_W_SCALE, F_D, last ? W_TILE_LAST : W_TILE, 0);
    if (softcap) { /* c tanh(x / c); the word s holds c */
      uca_cvo(UCA_CVO_SCALE, s, s + 1u, (uint16_t)rows, UCA_CVO_FLAG_RECIP_SCALE, 0);
      uca_cvo(PCCX_CVO_TANH, s + 1u, s + 1u, (uint16_t)rows, 0, 0);
      uca_cvo(UCA_CVO_SCALE, s, s + 1u, (uint16_t)rows, 0, 0);
    }
    if (gd_submit(PCCX_DMA_ACP_RESULT, logits + 2ull * r0, 2u * rows, PCCX_DMA_CLASS_ACTIVATIONS) !=
        0)
      return -1;
    uca_memcpy(UCA_ROUTE_L2_TO_HOST, 0, s + 1u, last ? F_TILE_LAST : F_TILE, 0);
  }
  return 0;
}
