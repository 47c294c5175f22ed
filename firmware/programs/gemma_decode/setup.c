/* Once per run, after the block: the L2 layout, the RMSNorm constants of
 * every norm length, the shape slots, the constants, masks and ones. */
#include "gemma_decode_internal.h"

gd_l2 gd_a;
pccx_rmsnorm_ws gd_ws_h, gd_ws_d, gd_ws_p;

gd_l2_shape gd_l2_shape_of_model(void) {
  uint32_t ffn_max = 0, span_max = 0;
  int any_sparse = 0;
  for (uint32_t l = 0; l < gd_m.layers; ++l) {
    if (gd_layers[l].ffn > ffn_max) ffn_max = gd_layers[l].ffn;
    any_sparse |= gd_layers[l].sparse_ffn != 0u;
  }
  for (uint32_t r = 0; r < gd_m.rings; ++r)
    if (pccx_kv_max_tokens(&gd_m.kv[r]) > span_max) span_max = pccx_kv_max_tokens(&gd_m.kv[r]);
  const gd_l2_shape shape = {gd_m.hidden, gd_m.heads,   gd_m.kv_heads, gd_m.head_dim, gd_m.streams,
                             gd_m.layers, gd_m.ple_dim, gd_m.laurel,   gd_m.vocab,    gd_m.lm_tile,
                             ffn_max,     span_max,     any_sparse};
  return shape;
}

/* The layout of pccx_gemma_decode_l2.h from the block's dimensions, the
 * widest FFN and the longest span; GD_EXIT_L2_FIT when it does not fit. */
static int plan_l2(void) {
  const gd_l2_shape shape = gd_l2_shape_of_model();
  if (gd_plan_l2(&shape, &gd_a) > gd_m.l2_words || shape.span_max > SHAPE_MAX)
    return gd_fail_msg("the activations do not fit L2 (or an attention span exceeds 65535)",
                       GD_EXIT_L2_FIT);
  return 0;
}

static int prepare(pccx_rmsnorm_ws* ws, uint32_t first, uint8_t slot, uint32_t scratch,
                   uint32_t n) {
  ws->first = first;
  ws->shape_slot = slot;
  ws->ddr = gd_m.scratch + scratch;
  ws->n = 0u;
  if (pccx_rmsnorm_prepare(ws, n, (uint16_t)gd_m.eps) != PCCX_OPS_OK)
    return gd_fail_msg("RMSNorm constants could not be staged", GD_EXIT_DMA);
  return 0;
}

/* Every RMSNorm is over hidden, head_dim or P elements: stage each
 * length's 1/n and eps once, so no norm waits for the NPU. */
static int prepare_norms(void) {
  if (prepare(&gd_ws_h, gd_a.ws_h, F_RMS, S_WS_H, gd_m.hidden) != 0) return -1;
  if ((gd_m.flags & (GD_F_QK_NORM | GD_F_V_NORM)) &&
      prepare(&gd_ws_d, gd_a.ws_d, F_RMS_D, S_WS_D, gd_m.head_dim) != 0)
    return -1;
  if (gd_m.ple_dim != 0u && prepare(&gd_ws_p, gd_a.ws_p, F_RMS_P, S_WS_P, gd_m.ple_dim) != 0)
    return -1;
  return 0;
}

static void set_shapes(void) {
  const uint32_t H = gd_m.hidden, hd = gd_m.head_dim, G = gd_m.heads / gd_m.kv_heads;
  const uint32_t nq = gd_m.heads * hd, nkv = gd_m.kv_heads * hd, S = gd_m.streams;
  const uint32_t P = gd_m.ple_dim, R = gd_m.laurel, LP = gd_m.layers * P;
  const uint32_t last_rows = gd_m.vocab - (gd_a.tiles - 1u) * gd_m.lm_tile;
  uca_memset(0, F_D, 1, 1, (uint16_t)H);
  uca_memset(0, F_ATTN, 1, 1, (uint16_t)nq);
  uca_memset(0, F_HD, 1, 1, (uint16_t)hd);
  uca_memset(0, F_KEYS, 1, 1, (uint16_t)(G * hd));
  uca_memset(0, F_TILE, 1, 1, (uint16_t)gd_m.lm_tile);
  uca_memset(0, F_TILE_LAST, 1, 1, (uint16_t)last_rows);
  uca_memset(0, F_WORD, 1, 1, 8);
  uca_memset(0, F_HALF, 1, 1, (uint16_t)(hd / 2u));
  uca_memset(0, F_K16, 1, 1, 128);
  uca_memset(0, F_ONES, 1, 1, (uint16_t)CVO_MAX);
  uca_memset(0, F_KV, 1, 1, (uint16_t)nkv);
  uca_memset(1, W_Q, 1, (uint16_t)nq, (uint16_t)H);
  uca_memset(1, W_KV, 1, (uint16_t)nkv, (uint16_t)H);
  uca_memset(1, W_O, 1, (uint16_t)H, (uint16_t)nq);
  uca_memset(1, W_TILE, 1, (uint16_t)gd_m.lm_tile, (uint16_t)H);
  uca_memset(1, W_TILE_LAST, 1, (uint16_t)last_rows, (uint16_t)H);
  if (S > 1u) {
    uca_memset(0, F_PRED, 1, 1, (uint16_t)(8u * S * S));
    uca_memset(0, F_CORR, 1, 1, (uint16_t)(8u * S));
    uca_memset(1, W_ROW, 1, 1, (uint16_t)H);
    uca_memset(1, W_HH, 1, (uint16_t)H, (uint16_t)H);
  }
  if (P != 0u) {
    uca_memset(0, F_P, 1, 1, (uint16_t)P);
    uca_memset(0, F_LP, 1, 1, (uint16_t)LP);
    uca_memset(1, W_PG, 1, (uint16_t)P, (uint16_t)H);
    uca_memset(1, W_PP, 1, (uint16_t)H, (uint16_t)P);
    uca_memset(1, W_PLEM, 1, (uint16_t)LP, (uint16_t)H);
  }
  if (R != 0u) {
    uca_memset(0, F_R, 1, 1, (uint16_t)R);
    uca_memset(1, W_LL, 1, (uint16_t)R, (uint16_t)H);
    uca_memset(1, W_LR, 1, (uint16_t)H, (uint16_t)R);
  }
  if (gd_m.flags & (GD_F_ROTATED_K | GD_F_ROTATED_V))
    uca_memset(1, W_ROT, (uint16_t)gd_m.heads, (uint16_t)hd, (uint16_t)hd);
}

/* Constants, masks and the ones vector, once per run. */
static int stage_constants(void) {
  static uint16_t w[2048];
  for (uint32_t i = 0; i < 2048u; ++i) w[i] = 0u;
  const float values[K_WORDS] = {1.0f,   -1.0f,       0.0f, 0.70710678f, 1.0f / (float)gd_m.streams,
                                 gd_m.z, gd_m.softcap};
  for (uint32_t i = 0; i < K_WORDS; ++i) w[8u * i] = pccx_bf16_from_float(values[i]);
  pccx_host_write(gd_m.scratch + S_CONSTS, w, 16u * K_WORDS);
  for (uint32_t i = 0; i < 128u; ++i) w[i] = i % 8u == 0u ? pccx_bf16_from_float(1.0f) : 0u;
  pccx_host_write(gd_m.scratch + S_ONES_W, w, 16u * 16u);
  for (uint32_t r = 0; r < 8u; ++r)
    for (uint32_t e = 0; e < 8u; ++e) {
      w[8u * r + e] = e < r ? pccx_bf16_from_float(1.0f) : 0u;
      w[64u + 8u * r + e] = e >= r ? pccx_bf16_from_float(1.0f) : 0u;
    }
  pccx_host_write(gd_m.scratch + S_MASKS, w, 16u * 16u);
  for (uint32_t i = 0; i < 2048u; ++i) w[i] = pccx_bf16_from_float(1.0f);
  pccx_host_write(gd_m.scratch + S_ONES, w, 4096u);
  if (gd_load(gd_m.scratch + S_CONSTS, 16u * K_WORDS, gd_a.k, F_K16, PCCX_DMA_CLASS_HOST) != 0 ||
      gd_load(gd_m.scratch + S_ONES_W, 256u, gd_a.ones_w, F_K16, PCCX_DMA_CLASS_HOST) != 0 ||
      gd_load(gd_m.scratch + S_MASKS, 256u, gd_a.masks, F_K16, PCCX_DMA_CLASS_HOST) != 0 ||
      gd_load(gd_m.scratch + S_ONES, 4096u, gd_a.bc_slot + 1u, F_ONES, PCCX_DMA_CLASS_HOST) != 0)
    return -1;
  gd_set_logit_slots();
  return 0;
}

void gd_set_logit_slots(void) {
  for (uint32_t t = 0; t < gd_a.tiles; ++t)
    copy_word(gd_a.logits + t * gd_a.tile_stride, kw(K_SOFTCAP));
}

int gd_setup(void) {
  const int rc = plan_l2();
  if (rc != 0) return rc;
  if (prepare_norms() != 0) return GD_EXIT_DMA;
  set_shapes();
  if (stage_constants() != 0 || gd_finish_token() != 0) return GD_EXIT_DMA;
  return 0;
}
