/* The FFN: gate and up projections, GELU(gate) x up, the down projection;
 * a sparse layer cuts the gate at mean + z std first. */
#include "gemma_decode_internal.h"

/* dst[0] = src[0] * dst[0], element 0 only. */
static void smul(uint32_t src, uint32_t dst) {
  uca_cvo(PCCX_CVO_MUL, src, dst, 1u, 0, 0);
}

static void sadd(uint32_t src, uint32_t dst) {
  uca_cvo(PCCX_CVO_ADD, src, dst, 1u, 0, 0);
}

/* An element-wise CVO whose source is one vector of at most CVO_MAX
 * elements applied to every CVO_MAX piece of dst (n elements). */
static void repeat_onto(uint8_t func, uint32_t src, uint32_t dst, uint32_t n) {
  for (uint32_t done = 0; done < n; done += CVO_MAX) {
    const uint32_t len = n - done < CVO_MAX ? n - done : CVO_MAX;
    uca_cvo(func, src, dst + done / 8u, (uint16_t)len, 0, 0);
  }
}

/* bc_out = element 0 of word `scalar`, repeated min(n, CVO_MAX) times. */
static void broadcast(uint32_t scalar, uint32_t n) {
  copy_word(gd_a.bc_slot, scalar);
  scale_after(gd_a.bc_slot, gd_a.bc_out, n < CVO_MAX ? n : CVO_MAX);
}

/* Sparse layer: gate = max(gate - (mean + z std), 0) over the layer's FFN
 * width. */
static int gaussian_cutoff(const gd_block_layer* ly) {
  const uint32_t sp = gd_a.sp, n = ly->ffn;
  uint16_t inv[8] = {pccx_bf16_from_float(1.0f / (float)n), 0, 0, 0, 0, 0, 0, 0};
  pccx_host_write(gd_m.scratch + S_INV_N, inv, 16u);
  if (gd_load(gd_m.scratch + S_INV_N, 16u, sp, F_WORD, PCCX_DMA_CLASS_ACTIVATIONS) != 0) return -1;
  pccx_reduce_sum_long(gd_a.gate, n, sp + 1u, 0);
  uca_memcpy(PCCX_ROUTE_L2_TO_L2, gd_a.sq, gd_a.gate, F_FFN, 0);
  pccx_cvo_long(PCCX_CVO_MUL, gd_a.gate, gd_a.sq, n, 0, 0);
  pccx_reduce_sum_long(gd_a.sq, n, sp + 2u, 0);
  smul(sp, sp + 1u);           /* mean */
  smul(sp, sp + 2u);           /* mean of squares */
  copy_word(sp + 3u, sp + 1u); /* variance = E[g^2] - mean^2, at least 0 */
  smul(sp + 1u, sp + 3u);
  smul(kw(K_NEG1), sp + 3u);
  sadd(sp + 2u, sp + 3u);
  uca_cvo(PCCX_CVO_MAX, sp + 3u, sp + 3u, 1u, 0, 0);
  uca_cvo(UCA_CVO_SQRT, sp + 3u, sp + 3u, 1u, 0, 0);
  smul(kw(K_Z), sp + 3u); /* cutoff = mean + z std, negated */
  sadd(sp + 1u, sp + 3u);
  smul(kw(K_NEG1), sp + 3u);
  broadcast(sp + 3u, n);
  repeat_onto(PCCX_CVO_ADD, gd_a.bc_out, gd_a.gate, n);
  pccx_cvo_long(PCCX_CVO_MAX, gd_a.gate, gd_a.gate, n, 0, 0);
  return 0;
}

/* t2 = ffn_in + norm(W_down (GELU(W_gate xn) x W_up xn)), xn = norm(ffn_in). */
int gd_ffn(const gd_block_layer* ly, uint32_t ffn_in) {
  const uint32_t H = gd_m.hidden;
  if (gd_norm_h(ly->vectors[GD_V_PRE_FFN_NORM], ffn_in, gd_a.xn) != 0) return -1;
  uca_memset(0, F_FFN, 1, 1, (uint16_t)ly->ffn);
  uca_memset(1, W_UP, 1, (uint16_t)ly->ffn, (uint16_t)H);
  uca_memset(1, W_DOWN, 1, (uint16_t)H, (uint16_t)ly->ffn);
  if (gd_gemv_matrix(&ly->matrices[GD_GATE], gd_a.gate, gd_a.xn, F_D, W_UP) != 0 ||
      gd_gemv_matrix(&ly->matrices[GD_UP], gd_a.up, gd_a.xn, F_D, W_UP) != 0)
    return -1;
  if (ly->sparse_ffn && gaussian_cutoff(ly) != 0) return -1;
  pccx_cvo_long(UCA_CVO_GELU, gd_a.gate, gd_a.gate, ly->ffn, 0, 0);
  pccx_cvo_long(PCCX_CVO_MUL, gd_a.gate, gd_a.up, ly->ffn, 0, 0);
  if (gd_gemv_matrix(&ly->matrices[GD_DOWN], gd_a.t2, gd_a.up, F_FFN, W_DOWN) != 0 ||
      gd_norm_h(ly->vectors[GD_V_POST_FFN_NORM], gd_a.t2, gd_a.t2) != 0)
    return -1;
  uca_cvo(PCCX_CVO_ADD, ffn_in, gd_a.t2, (uint16_t)H, 0, 0);
  return 0;
}
