/* AltUp: the other streams at entry, the prediction and the correction of
 * every layer, the mean of the streams at exit; and the per-layer inputs
 * (docs/models/decode-model.md). */
#include "gemma_decode_internal.h"

static uint32_t xs_vec(uint32_t s) {
  return gd_a.xs + s * gd_a.xs_stride + 1u;
}

static uint32_t xs_slot(uint32_t s) {
  return gd_a.xs + s * gd_a.xs_stride;
}

/* Entry 2 and 3: the other AltUp streams and the per-layer inputs. */
int gd_entry(void) {
  const uint32_t H = gd_m.hidden, A = gd_m.active;
  if (gd_m.streams > 1u) {
    if (pccx_rms_value(&gd_ws_h, xs_vec(A), gd_a.me, H) != PCCX_OPS_OK)
      return gd_fail_msg("RMS value failed", GD_EXIT_DMA);
    uint32_t j = 0;
    for (uint32_t s = 0; s < gd_m.streams; ++s) {
      if (s == A) continue;
      if (gd_gemv_matrix(&gd_m.altup_proj[j++], gd_a.t, xs_vec(A), F_D, W_HH) != 0) return -1;
      pccx_rmsnorm_ex(&gd_ws_h, gd_a.t, PCCX_OPS_NONE, xs_vec(s), H, gd_a.me);
    }
  }
  if (gd_m.ple_dim != 0u) {
    const uint32_t P = gd_m.ple_dim;
    if (gd_gemv_matrix(&gd_m.ple_model_proj, gd_a.pp, xs_vec(A), F_D, W_PLEM) != 0) return -1;
    if (gd_load(gd_m.ple_proj_norm, 2u * P, gd_a.gamma_p, F_P, PCCX_DMA_CLASS_WEIGHTS) != 0)
      return -1;
    for (uint32_t i = 0; i < gd_m.layers; ++i)
      pccx_rmsnorm_ex(&gd_ws_p, gd_a.pp + i * (P / 8u), gd_a.gamma_p, gd_a.pp + i * (P / 8u), P,
                      kw(K_INV_SQRT2));
    pccx_cvo_long(PCCX_CVO_ADD, gd_a.pp, gd_a.pli, gd_m.layers * P, 0, 0);
  }
  return 0;
}

/* r_k of the router (1-row GEMVs: r_k in element 0 of word slot k), then
 * coefficient column k after it, then tanh. */
static int router(const gd_block_layer* ly, uint32_t x, uint32_t base, uint32_t stride,
                  uint64_t coefs, uint32_t col_words, uint8_t col_shape) {
  if (gd_norm_h(ly->vectors[GD_V_ROUTER_NORM], x, gd_a.rn) != 0) return -1;
  for (uint32_t k = 0; k < gd_m.streams; ++k) {
    if (gd_load(coefs + (uint64_t)k * col_words * 16u, col_words * 16u, base + k * stride + 1u,
                col_shape, PCCX_DMA_CLASS_WEIGHTS) != 0 ||
        gd_stream_row(&ly->matrices[GD_ROUTER], k) != 0)
      return -1;
    uca_gemv(base + k * stride, gd_a.rn, UCA_FLAG_W_SCALE, F_D, W_ROW, 0);
    uca_cvo(PCCX_CVO_TANH, base + k * stride, base + k * stride, 1u, 0, 0);
  }
  return 0;
}

/* coefs (n words) = sum_k r_k x column k. */
static void combine(uint32_t base, uint32_t stride, uint32_t n_words, uint32_t dst) {
  for (uint32_t k = 0; k < gd_m.streams; ++k) {
    scale_after(base + k * stride, k == 0u ? dst : gd_a.tw, 8u * n_words);
    if (k != 0u) uca_cvo(PCCX_CVO_ADD, gd_a.tw, dst, (uint16_t)(8u * n_words), 0, 0);
  }
}

/* Layer step 1: pred[s] = xs[s] + sum_j c[s][j] xs[j]. */
int gd_predict(const gd_block_layer* ly) {
  const uint32_t S = gd_m.streams, H = gd_m.hidden;
  for (uint32_t s = 0; s < S; ++s)
    uca_memcpy(PCCX_ROUTE_L2_TO_L2, gd_a.pred + s * gd_a.wh, xs_vec(s), F_D, 0);
  if (S == 1u) return 0;
  if (router(ly, xs_vec(gd_m.active), gd_a.pr, gd_a.pr_stride, ly->vectors[GD_V_PRED_COEFS], S * S,
             F_PRED) != 0)
    return -1;
  combine(gd_a.pr, gd_a.pr_stride, S * S, gd_a.cc);
  for (uint32_t s = 0; s < S; ++s)
    for (uint32_t j = 0; j < S; ++j) {
      copy_word(xs_slot(j), gd_a.cc + s * S + j);
      scale_after(xs_slot(j), gd_a.t, H);
      uca_cvo(PCCX_CVO_ADD, gd_a.t, gd_a.pred + s * gd_a.wh, (uint16_t)H, 0, 0);
    }
  return 0;
}

/* Layer step 8: xs[s] = pred[s] + (1 + sum_k Wc[s][k] r'_k) (y - pred[A]). */
int gd_correct(const gd_block_layer* ly, uint32_t y) {
  const uint32_t S = gd_m.streams, H = gd_m.hidden, A = gd_m.active;
  if (S == 1u) {
    uca_memcpy(PCCX_ROUTE_L2_TO_L2, xs_vec(0), y, F_D, 0);
    return 0;
  }
  if (router(ly, y, gd_a.cr, gd_a.cr_stride, ly->vectors[GD_V_CORR_COEFS], S, F_CORR) != 0)
    return -1;
  combine(gd_a.cr, gd_a.cr_stride, S, gd_a.cc2);
  uca_cvo(PCCX_CVO_ADD, gd_a.ones_w, gd_a.cc2, (uint16_t)(8u * S), 0, 0);
  /* delta = y - pred[A] in the vector after slot dl. */
  uca_memcpy(PCCX_ROUTE_L2_TO_L2, gd_a.dl + 1u, gd_a.pred + A * gd_a.wh, F_D, 0);
  copy_word(gd_a.dl, kw(K_NEG1));
  scale_after(gd_a.dl, gd_a.t, H);
  uca_cvo(PCCX_CVO_ADD, y, gd_a.t, (uint16_t)H, 0, 0);
  uca_memcpy(PCCX_ROUTE_L2_TO_L2, gd_a.dl + 1u, gd_a.t, F_D, 0);
  for (uint32_t s = 0; s < S; ++s) {
    copy_word(gd_a.dl, gd_a.cc2 + s);
    scale_after(gd_a.dl, xs_vec(s), H);
    uca_cvo(PCCX_CVO_ADD, gd_a.pred + s * gd_a.wh, xs_vec(s), (uint16_t)H, 0, 0);
  }
  return 0;
}

/* Layer step 9: the per-layer input into every stream but the active one. */
int gd_per_layer_input(const gd_block_layer* ly, uint32_t li) {
  const uint32_t S = gd_m.streams, H = gd_m.hidden, A = gd_m.active, P = gd_m.ple_dim;
  if (P == 0u) return 0;
  uca_memcpy(PCCX_ROUTE_L2_TO_L2, gd_a.t, xs_vec(A), F_D, 0);
  if (S > 1u) {
    if (gd_load_gamma(ly->vectors[GD_V_OUTPUT_SCALE]) != 0) return -1;
    uca_cvo(PCCX_CVO_MUL, gd_a.gamma, gd_a.t, (uint16_t)H, 0, 0);
  }
  if (gd_gemv_matrix(&ly->matrices[GD_PLE_GATE], gd_a.gp, gd_a.t, F_D, W_PG) != 0) return -1;
  uca_cvo(UCA_CVO_GELU, gd_a.gp, gd_a.gp, (uint16_t)P, 0, 0);
  uca_cvo(PCCX_CVO_MUL, gd_a.pli + li * (P / 8u), gd_a.gp, (uint16_t)P, 0, 0);
  if (gd_gemv_matrix(&ly->matrices[GD_PLE_PROJ], gd_a.t2, gd_a.gp, F_P, W_PP) != 0) return -1;
  if (gd_norm_h(ly->vectors[GD_V_PLE_POST_NORM], gd_a.t2, gd_a.t2) != 0) return -1;
  for (uint32_t s = 0; s < S; ++s)
    if (s != A || S == 1u) uca_cvo(PCCX_CVO_ADD, gd_a.t2, xs_vec(s), (uint16_t)H, 0, 0);
  return 0;
}

/* Exit 1 and 2 up to the final norm: xn = norm(mean of the streams). */
int gd_exit_streams(void) {
  const uint32_t S = gd_m.streams, H = gd_m.hidden, A = gd_m.active;
  uint32_t y = xs_vec(0);
  if (S > 1u) {
    pccx_rms_value(&gd_ws_h, xs_vec(A), gd_a.me, H);
    uca_memcpy(PCCX_ROUTE_L2_TO_L2, gd_a.acc + 1u, xs_vec(A), F_D, 0);
    uint32_t j = 0;
    for (uint32_t s = 0; s < S; ++s) {
      if (s == A) continue;
      if (gd_gemv_matrix(&gd_m.altup_unproj[j++], gd_a.t, xs_vec(s), F_D, W_HH) != 0) return -1;
      pccx_rmsnorm_ex(&gd_ws_h, gd_a.t, PCCX_OPS_NONE, gd_a.t, H, gd_a.me);
      uca_cvo(PCCX_CVO_ADD, gd_a.t, gd_a.acc + 1u, (uint16_t)H, 0, 0);
    }
    copy_word(gd_a.acc, kw(K_INV_S));
    scale_after(gd_a.acc, gd_a.yb, H);
    y = gd_a.yb;
  }
  return gd_norm_h(gd_m.final_norm, y, gd_a.xn);
}
