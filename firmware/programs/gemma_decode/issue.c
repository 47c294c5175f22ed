/* Loads, norms and GEMVs as the steps issue them. */
#include "gemma_decode_internal.h"

/* n elements from DDR `addr` (BF16) into L2 `dst`, with fmap slot `shape`
 * holding n. */
int gd_load(uint64_t addr, uint32_t bytes, uint32_t dst, uint8_t shape, unsigned cls) {
  if (gd_submit(PCCX_DMA_ACP_FMAP, addr, bytes, cls) != 0) return -1;
  uca_memcpy(UCA_ROUTE_HOST_TO_L2, dst, 0, shape, 0);
  return 0;
}

int gd_load_gamma(uint64_t addr) {
  return gd_load(addr, 2u * gd_m.hidden, gd_a.gamma, F_D, PCCX_DMA_CLASS_WEIGHTS);
}

int gd_norm_h(uint64_t gamma_addr, uint32_t x, uint32_t out) {
  if (gd_load_gamma(gamma_addr) != 0) return -1;
  if (pccx_rmsnorm(&gd_ws_h, x, gd_a.gamma, out, gd_m.hidden) != PCCX_OPS_OK)
    return gd_fail_msg("RMSNorm failed", GD_EXIT_DMA);
  return 0;
}

int gd_gemv_matrix(const gd_block_matrix* m, uint32_t dst, uint32_t src, uint8_t fslot,
                   uint8_t wslot) {
  if (gd_stream_rows(m, 0u, m->rows) != 0) return -1;
  uca_gemv(dst, src, UCA_FLAG_W_SCALE, fslot, wslot, 0);
  return 0;
}
