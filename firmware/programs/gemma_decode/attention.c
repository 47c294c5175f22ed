/* Attention: Q, K and V with their norms and RoPE, the KV appends of a
 * storing layer, the heads (scores against the key stream, softmax, the
 * value stream) and the output projection. */
#include "gemma_decode_internal.h"

#define HEAD_PARALLEL 0x10u /* parallel_lane bit 4, all cores */
#define GEMV_KEY_ROWS 1u
#define GEMV_VALUE_ACC 2u

/* RoPE on n heads at `x`: x = x cos + rotate_half(x) sin (sin signed per
 * half in the table). `tables` is the cos table; sin follows it. */
static void rope(uint32_t x, uint32_t xr, uint32_t n, uint32_t tables) {
  const uint32_t hd = gd_m.head_dim, hw = words_of(hd);
  for (uint32_t h = 0; h < n; ++h) {
    uca_memcpy(PCCX_ROUTE_L2_TO_L2, xr + h * hw, x + h * hw + hw / 2u, F_HALF, 0);
    uca_memcpy(PCCX_ROUTE_L2_TO_L2, xr + h * hw + hw / 2u, x + h * hw, F_HALF, 0);
  }
  pccx_cvo_long(PCCX_CVO_MUL, tables + gd_a.rope_words, xr, n * hd, 0, 0);
  pccx_cvo_long(PCCX_CVO_MUL, tables, x, n * hd, 0, 0);
  pccx_cvo_long(PCCX_CVO_ADD, xr, x, n * hd, 0, 0);
}

/* Per-head RMSNorm over head_dim, in place (gamma in gamma_d, or none). */
static void head_norms(uint32_t x, uint32_t n, uint32_t gamma) {
  for (uint32_t h = 0; h < n; ++h)
    pccx_rmsnorm_ex(&gd_ws_d, x + h * words_of(gd_m.head_dim), gamma,
                    x + h * words_of(gd_m.head_dim), gd_m.head_dim, PCCX_OPS_NONE);
}

/* Sum of elements [a, a + n) of the vector at `base` into word dst: whole
 * words with REDUCE_SUM, a partial first or last word masked (the
 * neighbouring head's elements share it). */
void gd_span_sum(uint32_t base, uint32_t a, uint32_t n, uint32_t dst) {
  const uint32_t b = a + n, aw = a / 8u, ar = a % 8u, bw = b / 8u, br = b % 8u;
  if (aw == bw) {
    copy_word(gd_a.tw, base + aw);
    uca_cvo(PCCX_CVO_MUL, gd_a.masks + 8u + ar, gd_a.tw, 8u, 0, 0);
    uca_cvo(PCCX_CVO_MUL, gd_a.masks + br, gd_a.tw, 8u, 0, 0);
    uca_cvo(UCA_CVO_REDUCE_SUM, gd_a.tw, dst, 8u, 0, 0);
    return;
  }
  const uint32_t first = ar != 0u ? aw + 1u : aw;
  if (bw > first)
    pccx_reduce_sum_long(base + first, 8u * (bw - first), dst, 0);
  else
    copy_word(dst, kw(K_ZERO));
  const uint32_t part_word[2] = {aw, bw}, mask[2] = {gd_a.masks + 8u + ar, gd_a.masks + br};
  const int present[2] = {ar != 0u, br != 0u};
  for (int i = 0; i < 2; ++i) {
    if (!present[i]) continue;
    copy_word(gd_a.tw, base + part_word[i]);
    uca_cvo(PCCX_CVO_MUL, mask[i], gd_a.tw, 8u, 0, 0);
    uca_cvo(UCA_CVO_REDUCE_SUM, gd_a.tw, dst, 8u, UCA_CVO_FLAG_ACCM, 0);
  }
}

/* Elements [a, a + n) of the vector at `base` set to zero in place (a
 * mask's hidden positions): the masks words keep the rest of a partial
 * word, the all-zero mask clears a whole one. */
void gd_span_zero(uint32_t base, uint32_t a, uint32_t n) {
  const uint32_t b = a + n, aw = a / 8u, ar = a % 8u, bw = b / 8u, br = b % 8u;
  if (aw == bw) { /* keep e < ar and e >= br */
    copy_word(gd_a.tw, gd_a.masks + ar);
    uca_cvo(PCCX_CVO_ADD, gd_a.masks + 8u + br, gd_a.tw, 8u, 0, 0);
    uca_cvo(PCCX_CVO_MUL, gd_a.tw, base + aw, 8u, 0, 0);
    return;
  }
  if (ar != 0u) uca_cvo(PCCX_CVO_MUL, gd_a.masks + ar, base + aw, 8u, 0, 0);
  for (uint32_t w = ar != 0u ? aw + 1u : aw; w < bw; ++w)
    uca_cvo(PCCX_CVO_MUL, gd_a.masks, base + w, 8u, 0, 0);
  if (br != 0u) uca_cvo(PCCX_CVO_MUL, gd_a.masks + 8u + br, base + bw, 8u, 0, 0);
}

/* KV head `head`: its G query heads against the ring's keys, softmax, the
 * values; into the heads' places in attn. */
static int attend_head(const gd_block_layer* ly, uint32_t head, uint32_t q) {
  const uint32_t G = gd_m.heads / gd_m.kv_heads, hd = gd_m.head_dim;
  const pccx_kv_handle* h = &gd_m.kv[ly->ring];
  const uint32_t span = pccx_kv_valid_tokens(h);
  /* Scores: G query heads against the key stream of this KV head. */
  if (gd_stream_kv(h, ly->ring_index, head, PCCX_KV_K) != 0) return -1;
  uca_gemv(gd_a.scores, q + head * words_of(G * hd), UCA_FLAG_FINDEMAX | GEMV_KEY_ROWS, F_KEYS,
           W_KEYS, HEAD_PARALLEL);
  pccx_cvo_long(UCA_CVO_EXP, gd_a.scores, gd_a.exps, G * span, UCA_CVO_FLAG_SUB_EMAX, 0);
  for (uint32_t m = 0; m < G; ++m)
    gd_span_sum(gd_a.exps, m * span, span, gd_a.z + m * gd_a.z_stride);
  /* Outputs: the exponentials weight the value stream. */
  if (gd_stream_kv(h, ly->ring_index, head, PCCX_KV_V) != 0) return -1;
  uca_gemv(gd_a.out, gd_a.exps, GEMV_VALUE_ACC, F_PROBS, W_VALUES, HEAD_PARALLEL);
  for (uint32_t m = 0; m < G; ++m) {
    const uint32_t z = gd_a.z + m * gd_a.z_stride;
    uca_memcpy(PCCX_ROUTE_L2_TO_L2, z + 1u, gd_a.out + m * words_of(hd), F_HD, 0);
    uca_cvo(UCA_CVO_SCALE, z, gd_a.attn + (head * G + m) * words_of(hd), (uint16_t)hd,
            UCA_CVO_FLAG_RECIP_SCALE, 0);
  }
  return 0;
}

/* Hides positions [a, b) of the tile's stream from row t: zero in each of
 * its G heads' exponentials, in runs of consecutive stream indices. */
static int mask_positions(const pccx_kv_handle* h, const gd_attention_tile* tile, uint32_t t,
                          uint32_t a, uint32_t b) {
  const uint32_t G = gd_m.heads / gd_m.kv_heads;
  uint32_t run = 0u, len = 0u;
  for (uint32_t p = a; p <= b; ++p) {
    uint32_t i = 0u;
    if (p < b && pccx_kv_stream_index(h, p, &i) != PCCX_KV_OK)
      return gd_fail_msg("a masked position outside the tile's stream", GD_EXIT_KV);
    if (p < b && len != 0u && i == run + len) {
      ++len;
      continue;
    }
    for (uint32_t m = 0; m < G && len != 0u; ++m)
      gd_span_zero(tile->scores, (t * G + m) * tile->span + run, len);
    run = i;
    len = 1u;
  }
  return 0;
}

int gd_heads_tile(const gd_block_layer* ly, const pccx_kv_handle* h, const gd_attention_tile* tile,
                  const uint32_t* q_of, const uint32_t* attn_of, const uint32_t* n_of,
                  const uint32_t* ws_of) {
  const uint32_t G = gd_m.heads / gd_m.kv_heads, hd = gd_m.head_dim, hw = words_of(hd);
  const uint32_t T = tile->rows, M = T * G, span = tile->span;
  const uint32_t n_last = pccx_kv_tokens(h), ws = pccx_kv_window_start(h);
  uca_memset(0, F_QTILE, 1, (uint16_t)M, (uint16_t)hd);
  uca_memset(0, F_PTILE, 1, (uint16_t)M, (uint16_t)span);
  uca_memset(1, W_KTILE, (uint16_t)M, (uint16_t)span, (uint16_t)hd);
  uca_memset(1, W_VTILE, (uint16_t)M, (uint16_t)hd, (uint16_t)span);
  for (uint32_t head = 0; head < gd_m.kv_heads; ++head) {
    /* Scores: the T rows' G query heads, gathered, against one key stream;
     * one shift for all of them (FINDEMAX), each row's hidden positions
     * zeroed after EXP. */
    for (uint32_t t = 0; t < T; ++t)
      uca_memcpy(PCCX_ROUTE_L2_TO_L2, tile->q + t * words_of(G * hd),
                 q_of[t] + head * words_of(G * hd), F_KEYS, 0);
    if (gd_stream_kv(h, ly->ring_index, head, PCCX_KV_K) != 0) return -1;
    uca_gemv(tile->scores, tile->q, UCA_FLAG_FINDEMAX | GEMV_KEY_ROWS, F_QTILE, W_KTILE,
             HEAD_PARALLEL);
    pccx_cvo_long(UCA_CVO_EXP, tile->scores, tile->scores, M * span, UCA_CVO_FLAG_SUB_EMAX, 0);
    for (uint32_t t = 0; t < T; ++t)
      if (mask_positions(h, tile, t, ws, ws_of[t]) != 0 ||
          mask_positions(h, tile, t, n_of[t], n_last) != 0)
        return -1;
    /* Outputs: one value stream for the tile, then per row and head the
     * sum of its exponentials divides. */
    if (gd_stream_kv(h, ly->ring_index, head, PCCX_KV_V) != 0) return -1;
    uca_gemv(tile->out, tile->scores, GEMV_VALUE_ACC, F_PTILE, W_VTILE, HEAD_PARALLEL);
    for (uint32_t t = 0; t < T; ++t)
      for (uint32_t m = 0; m < G; ++m) {
        const uint32_t z = gd_a.z + m * gd_a.z_stride;
        gd_span_sum(tile->scores, (t * G + m) * span, span, z);
        uca_memcpy(PCCX_ROUTE_L2_TO_L2, z + 1u, tile->out + (t * G + m) * hw, F_HD, 0);
        uca_cvo(UCA_CVO_SCALE, z, attn_of[t] + (head * G + m) * hw, (uint16_t)hd,
                UCA_CVO_FLAG_RECIP_SCALE, 0);
      }
  }
  return 0;
}

/* The shapes of this layer's attention span (issued before the layer's
 * first step). */
void gd_attention_shapes(const gd_block_layer* ly) {
  const uint32_t G = gd_m.heads / gd_m.kv_heads, hd = gd_m.head_dim;
  const uint32_t span = pccx_kv_valid_tokens(&gd_m.kv[ly->ring]);
  uca_memset(0, F_PROBS, 1, (uint16_t)G, (uint16_t)span);
  uca_memset(1, W_KEYS, (uint16_t)G, (uint16_t)span, (uint16_t)hd);
  uca_memset(1, W_VALUES, (uint16_t)G, (uint16_t)hd, (uint16_t)span);
}

/* Q's per-head norms and RoPE (the q scale is in the tables), in place. */
int gd_q_finish(const gd_block_layer* ly, uint32_t q, uint32_t tables) {
  const uint32_t hd = gd_m.head_dim;
  if (gd_m.flags & GD_F_QK_NORM) {
    if (gd_load(ly->vectors[GD_V_Q_NORM], 2u * hd, gd_a.gamma_d, F_HD, PCCX_DMA_CLASS_WEIGHTS) != 0)
      return -1;
    head_norms(q, gd_m.heads, gd_a.gamma_d);
  }
  rope(q, gd_a.qr, gd_m.heads, tables);
  return 0;
}

/* K's and V's norms, RoPE on K, in place; then their appends to the ring
 * at its newest position. */
int gd_kv_finish(const gd_block_layer* ly, uint32_t k, uint32_t v, uint32_t k_tables) {
  const uint32_t hd = gd_m.head_dim;
  if (gd_m.flags & GD_F_QK_NORM) {
    if (gd_load(ly->vectors[GD_V_K_NORM], 2u * hd, gd_a.gamma_d, F_HD, PCCX_DMA_CLASS_WEIGHTS) != 0)
      return -1;
    head_norms(k, gd_m.kv_heads, gd_a.gamma_d);
  }
  rope(k, gd_a.kr, gd_m.kv_heads, k_tables);
  if (gd_m.flags & GD_F_V_NORM) head_norms(v, gd_m.kv_heads, PCCX_OPS_NONE);
  const pccx_kv_handle* h = &gd_m.kv[ly->ring];
  for (uint32_t head = 0; head < gd_m.kv_heads; ++head)
    for (int is_v = 0; is_v < 2; ++is_v) {
      uint64_t slot = 0;
      if (pccx_kv_append_slot(h, ly->ring_index, head, is_v, &slot) != PCCX_KV_OK)
        return gd_fail_msg("no append slot", GD_EXIT_KV);
      const uint32_t bytes = is_v ? h->v_record_bytes : h->k_record_bytes;
      if (gd_submit(PCCX_DMA_ACP_RESULT, slot, bytes, PCCX_DMA_CLASS_KV_WRITE) != 0) return -1;
      uca_memcpy(PCCX_ROUTE_KV_APPEND, (uint32_t)is_v, (is_v ? v : k) + head * words_of(hd), F_HD,
                 0);
    }
  return 0;
}

uint32_t gd_rope_tables(const gd_block_layer* ly, int for_k) {
  const uint32_t tables = gd_a.rope + (ly->global ? 2u : 0u) * gd_a.rope_words;
  return for_k && gd_m.q_scale != 1.0f ? tables + 4u * gd_a.rope_words : tables;
}

/* Every KV head of the queries at q; *attn is where the heads' outputs
 * are (gd_a.attn, or gd_a.attn2 rotated back). Rotated KV: the records hold
 * H k / sqrt(d); rotate the queries the same way, and rotate the outputs
 * back (H / sqrt(d) is its own inverse). */
int gd_heads(const gd_block_layer* ly, uint32_t q, uint32_t* attn) {
  if (gd_m.flags & GD_F_ROTATED_K) {
    if (gd_gemv_matrix(&gd_m.rotation, gd_a.qrot, q, F_ATTN, W_ROT) != 0) return -1;
    q = gd_a.qrot;
  }
  for (uint32_t head = 0; head < gd_m.kv_heads; ++head)
    if (attend_head(ly, head, q) != 0) return -1;
  *attn = gd_a.attn;
  if (gd_m.flags & GD_F_ROTATED_V) {
    if (gd_gemv_matrix(&gd_m.rotation, gd_a.attn2, gd_a.attn, F_ATTN, W_ROT) != 0) return -1;
    *attn = gd_a.attn2;
  }
  return 0;
}

/* *out = x + norm(W_o attn) of the input norm in xn: Q (norm, RoPE, scale
 * in the tables), K and V of a storing layer, the heads, the projection. */
int gd_attention(const gd_block_layer* ly, uint32_t x, uint32_t* out) {
  uint32_t attn = 0;
  if (gd_gemv_matrix(&ly->matrices[GD_Q], gd_a.q, gd_a.xn, F_D, W_Q) != 0 ||
      gd_q_finish(ly, gd_a.q, gd_rope_tables(ly, 0)) != 0)
    return -1;
  if (ly->stores_kv &&
      (gd_gemv_matrix(&ly->matrices[GD_K], gd_a.k_, gd_a.xn, F_D, W_KV) != 0 ||
       gd_gemv_matrix(&ly->matrices[GD_V], gd_a.v, gd_a.xn, F_D, W_KV) != 0 ||
       gd_kv_finish(ly, gd_a.k_, gd_a.v, gd_rope_tables(ly, 1)) != 0))
    return -1;
  if (gd_heads(ly, gd_a.q, &attn) != 0) return -1;
  const uint32_t a = gd_a.ao + 1u;
  if (gd_gemv_matrix(&ly->matrices[GD_O], a, attn, F_ATTN, W_O) != 0 ||
      gd_norm_h(ly->vectors[GD_V_POST_ATTN_NORM], a, a) != 0)
    return -1;
  uca_cvo(PCCX_CVO_ADD, x, a, (uint16_t)gd_m.hidden, 0, 0);
  *out = a;
  return 0;
}
