/* The prompt in chunks of C rows (chunk > 1): every matrix of a layer
 * runs once per chunk on the GEMM, its weights cut from the row records
 * (HP0 and HP1), so the weights stream once per chunk instead of once per
 * token; what works per row (norms, AltUp's router, RoPE, the KV appends,
 * GELU) runs per row on the decode's code with the row's buffers, and
 * attention runs in query tiles (docs/models/prefill.md).
 *
 * Query tiles: T rows of the chunk append their K and V, then attend
 * together, one key and one value stream per KV head for their T x G query
 * heads (the ring as after the tile's last append, a window ring's window
 * widened by T - 1): scores on the GEMV with one softmax shift, EXP on the
 * SFU, each row's hidden positions (after it, or before its window) set to
 * zero, the value stream weighted, each row and head divided by its sum.
 * That is the causal mask, the sliding window and the sinks as the decode
 * sees them. T is as large as the chunk, the L2 left free while a layer
 * attends and the ring allow (gd_prefill_attention_tile); a row alone
 * (T = 1) attends as the decode does. A window ring holds the chunk's
 * C - 1 newer records beyond the window (the host lays them out), so
 * neither a tile's nor the next rows' appends overwrite a row's window.
 *
 * The rows' buffers (pccx_gemma_decode_l2.h, gd_prefill_l2) sit from the
 * decode's logits on; the slot words of the logits are set again before
 * the LM head of the prompt's last row. Staging: row r's embedding,
 * per-layer and RoPE rows in its own GD_SCRATCH_BYTES of the chunk's
 * staging, written by the CPU before the chunk's first instruction.
 *
 * Markers: "decode: prefill chunk <c>" and "decode: prefill chunk <c>
 * end" around each chunk (the end after uca_sync and every DMA status),
 * "decode: prefill exit" before the last row's exit and LM head. */
#include "gemma_decode_internal.h"

#define F_GEMM 22u  /* fmap_shape (M, K, 1) of the GEMM being issued */
#define F_SLICE 23u /* fmap_shape (1, 1, n) of an FFN slice */
#define W_GEMM 18u  /* weight_shape (M, N, K) of the GEMM being issued */

static gd_prefill_l2 g_p;
static pccx_kv_handle g_ring_at[GD_MAX_RINGS][GD_MAX_CHUNK]; /* after row r's append */

/* ---- the rows' buffers ---- */

static uint32_t wh(void) {
  return gd_a.wh;
}
static uint32_t xs_of(uint32_t r) {
  return g_p.xs + r * g_p.xs_row;
}
static uint32_t xs_vec_of(uint32_t r, uint32_t s) {
  return xs_of(r) + s * gd_a.xs_stride + 1u;
}
static uint32_t pred_of(uint32_t r) {
  return g_p.pred + r * g_p.pred_row;
}
static uint32_t pli_of(uint32_t r) {
  return g_p.pli + r * g_p.pli_row;
}
static uint32_t row_h(uint32_t block, uint32_t r) {
  return block + r * wh();
}
static uint32_t stat_of(uint32_t r, uint32_t i) {
  return g_p.stats + 4u * r + i;
}
static uint64_t staging_of(uint32_t r) {
  return gd_m.prefill_scratch + (uint64_t)r * GD_SCRATCH_BYTES;
}

/* The decode's AltUp and per-layer buffers pointed at row r's (the
 * decode's code then works on the row); restored by view_decode. */
static gd_l2 g_decode_view;

static void view_row(uint32_t r) {
  gd_a.xs = xs_of(r);
  gd_a.pred = pred_of(r);
  gd_a.pli = pli_of(r);
}

static void view_decode(void) {
  gd_a.xs = g_decode_view.xs;
  gd_a.pred = g_decode_view.pred;
  gd_a.pli = g_decode_view.pli;
  gd_a.attn = g_decode_view.attn;
}

/* ---- the GEMM ---- */

/* dst (M x n) = src (M x k) x columns [n0, n0 + n), inputs [k0, k0 + k)
 * of matrix w; with accm added to dst. */
static int gemm(const gd_block_matrix* w, uint32_t dst, uint32_t src, uint32_t n0, uint32_t n,
                uint32_t k0, uint32_t k, int accm) {
  const uint32_t M = g_p.rows;
  uca_memset(0, F_GEMM, (uint16_t)M, (uint16_t)k, 1);
  uca_memset(1, W_GEMM, (uint16_t)M, (uint16_t)n, (uint16_t)k);
  if (gd_stream_gemm(w, n0, n, k0, k) != 0) return -1;
  const uint8_t flags = (uint8_t)((gd_m.weight_scales ? UCA_FLAG_W_SCALE : 0u) |
                                  (accm ? UCA_FLAG_ACCM : 0u));
  uca_gemm(dst, src, flags, F_GEMM, W_GEMM, 0);
  return 0;
}

static int gemm_whole(const gd_block_matrix* w, uint32_t dst, uint32_t src) {
  return gemm(w, dst, src, 0u, w->rows, 0u, w->cols, 0);
}

/* ---- the chunk's entry ---- */

/* The rows' embeddings and per-layer rows into L2; AltUp's other streams
 * and the per-layer projection on the GEMM over xs[A] of every row. */
static int entry(void) {
  const uint32_t R = g_p.rows, H = gd_m.hidden, A = gd_m.active, P = gd_m.ple_dim;
  for (uint32_t r = 0; r < R; ++r) {
    if (gd_load_rows(staging_of(r), xs_vec_of(r, A), pli_of(r)) != 0) return -1;
    uca_memcpy(PCCX_ROUTE_L2_TO_L2, row_h(g_p.x, r), xs_vec_of(r, A), F_D, 0);
  }
  if (gd_m.streams > 1u) {
    for (uint32_t r = 0; r < R; ++r)
      if (pccx_rms_value(&gd_ws_h, xs_vec_of(r, A), stat_of(r, 3), H) != PCCX_OPS_OK)
        return gd_fail_msg("RMS value failed", GD_EXIT_DMA);
    uint32_t j = 0;
    for (uint32_t s = 0; s < gd_m.streams; ++s) {
      if (s == A) continue;
      if (gemm_whole(&gd_m.altup_proj[j++], g_p.y, g_p.x) != 0) return -1;
      for (uint32_t r = 0; r < R; ++r)
        pccx_rmsnorm_ex(&gd_ws_h, row_h(g_p.y, r), PCCX_OPS_NONE, xs_vec_of(r, s), H,
                        stat_of(r, 3));
    }
  }
  if (P != 0u) {
    const uint32_t lp = gd_m.layers * P;
    if (gemm_whole(&gd_m.ple_model_proj, g_p.wide, g_p.x) != 0) return -1;
    if (gd_load(gd_m.ple_proj_norm, 2u * P, gd_a.gamma_p, F_P, PCCX_DMA_CLASS_WEIGHTS) != 0)
      return -1;
    for (uint32_t r = 0; r < R; ++r) {
      const uint32_t pp = g_p.wide + r * (lp / 8u);
      for (uint32_t i = 0; i < gd_m.layers; ++i)
        pccx_rmsnorm_ex(&gd_ws_p, pp + i * (P / 8u), gd_a.gamma_p, pp + i * (P / 8u), P,
                        kw(K_INV_SQRT2));
      pccx_cvo_long(PCCX_CVO_ADD, pp, pli_of(r), lp, 0, 0);
    }
  }
  return 0;
}

/* ---- a layer over the chunk ---- */

/* Per row: AltUp's prediction and the input norm into x. */
static int predict_rows(const gd_block_layer* ly) {
  for (uint32_t r = 0; r < g_p.rows; ++r) {
    view_row(r);
    if (gd_predict(ly) != 0 ||
        gd_norm_h(ly->vectors[GD_V_INPUT_NORM], pred_of(r) + gd_m.active * wh(),
                  row_h(g_p.x, r)) != 0)
      return -1;
  }
  view_decode();
  return 0;
}

/* Row r's part before its heads: LAuReL's norm, the RoPE tables, Q, the
 * K/V appends, with the rings as after its append (and, for its heads on
 * their own, the decode's attention shapes of its span). */
static int prepare_row(const gd_block_layer* ly, uint32_t r, int own_shapes) {
  const uint32_t H = gd_m.hidden;
  if (gd_m.laurel != 0u) {
    if (gd_norm_h(ly->vectors[GD_V_LAUREL_NORM], row_h(g_p.lau, r), row_h(g_p.lau, r)) != 0)
      return -1;
    uca_cvo(PCCX_CVO_ADD, row_h(g_p.x, r), row_h(g_p.lau, r), (uint16_t)H, 0, 0);
  }
  for (uint32_t ring = 0; ring < gd_m.rings; ++ring) gd_m.kv[ring] = g_ring_at[ring][r];
  if (own_shapes) gd_attention_shapes(ly);
  const uint32_t q = g_p.q + r * g_p.q_row;
  if (gd_load_rope(staging_of(r)) != 0 || gd_q_finish(ly, q, gd_rope_tables(ly, 0)) != 0)
    return -1;
  if (ly->stores_kv && gd_kv_finish(ly, g_p.k + r * g_p.kv_row, g_p.v + r * g_p.kv_row,
                                    gd_rope_tables(ly, 1)) != 0)
    return -1;
  return 0;
}

/* Row r on its own: its heads against the ring as after its append, in
 * the decode's buffers. */
static int attend_row(const gd_block_layer* ly, uint32_t r) {
  const uint32_t q = g_p.q + r * g_p.q_row, attn = g_p.attn + r * g_p.q_row;
  uint32_t out = 0;
  if (prepare_row(ly, r, 1) != 0) return -1;
  gd_a.attn = attn;
  if (gd_heads(ly, q, &out) != 0) return -1;
  if (out != attn) uca_memcpy(PCCX_ROUTE_L2_TO_L2, attn, out, F_ATTN, 0);
  view_decode();
  return 0;
}

/* Rows [r0, r0 + T) together: their appends, then their heads against one
 * stream per KV head (rotated KV: the queries rotated in place first, the
 * outputs rotated back after). */
static int attend_tile(const gd_block_layer* ly, uint32_t r0, const gd_attention_tile* tile) {
  const uint32_t T = tile->rows;
  uint32_t q_of[GD_MAX_CHUNK], attn_of[GD_MAX_CHUNK], n_of[GD_MAX_CHUNK], ws_of[GD_MAX_CHUNK];
  for (uint32_t t = 0; t < T; ++t) {
    const uint32_t r = r0 + t;
    const pccx_kv_handle* at = &g_ring_at[ly->ring][r];
    if (prepare_row(ly, r, 0) != 0) return -1;
    q_of[t] = g_p.q + r * g_p.q_row;
    attn_of[t] = g_p.attn + r * g_p.q_row;
    n_of[t] = pccx_kv_tokens(at);
    ws_of[t] = pccx_kv_window_start(at);
    if (gd_m.flags & GD_F_ROTATED_K) {
      if (gd_gemv_matrix(&gd_m.rotation, gd_a.qrot, q_of[t], F_ATTN, W_ROT) != 0) return -1;
      uca_memcpy(PCCX_ROUTE_L2_TO_L2, q_of[t], gd_a.qrot, F_ATTN, 0);
    }
  }
  pccx_kv_handle h = g_ring_at[ly->ring][r0 + T - 1u];
  if (pccx_kv_window(&h) != 0u && pccx_kv_set_window(&h, pccx_kv_window(&h) + T - 1u) != PCCX_KV_OK)
    return gd_fail_msg("KV window refused", GD_EXIT_KV);
  if (pccx_kv_valid_tokens(&h) != tile->span)
    return gd_fail_msg("the tile's stream is not the planned span", GD_EXIT_KV);
  if (gd_heads_tile(ly, &h, tile, q_of, attn_of, n_of, ws_of) != 0) return -1;
  for (uint32_t t = 0; t < T && (gd_m.flags & GD_F_ROTATED_V); ++t) {
    if (gd_gemv_matrix(&gd_m.rotation, gd_a.attn2, attn_of[t], F_ATTN, W_ROT) != 0) return -1;
    uca_memcpy(PCCX_ROUTE_L2_TO_L2, attn_of[t], gd_a.attn2, F_ATTN, 0);
  }
  view_decode();
  return 0;
}

/* The chunk's heads in query tiles (gd_prefill_attention_tile): as many
 * rows at once as their buffers and the ring allow, a row on its own
 * otherwise. */
static int attend_rows(const gd_block_layer* ly) {
  const uint32_t G = gd_m.heads / gd_m.kv_heads;
  for (uint32_t r0 = 0; r0 < g_p.rows;) {
    const pccx_kv_handle* first = &g_ring_at[ly->ring][r0];
    const gd_attention_tile tile = gd_prefill_attention_tile(
        &g_decode_view, &g_p, G, gd_m.head_dim, pccx_kv_tokens(first), g_p.rows - r0,
        pccx_kv_max_tokens(first), pccx_kv_sinks(first), pccx_kv_window(first));
    if ((tile.rows == 1u ? attend_row(ly, r0) : attend_tile(ly, r0, &tile)) != 0) return -1;
    r0 += tile.rows;
  }
  for (uint32_t ring = 0; ring < gd_m.rings; ++ring)
    gd_m.kv[ring] = g_ring_at[ring][g_p.rows - 1u];
  return 0;
}

/* Per row: a = x + norm(W_o attn), the FFN's input (with LAuReL
 * (a + lau) / sqrt(2)) into fi and its norm into x. */
static int attention_out_rows(const gd_block_layer* ly) {
  const uint32_t H = gd_m.hidden;
  for (uint32_t r = 0; r < g_p.rows; ++r) {
    const uint32_t y = row_h(g_p.y, r), fi = row_h(g_p.fi, r);
    if (gd_norm_h(ly->vectors[GD_V_POST_ATTN_NORM], y, y) != 0) return -1;
    uca_cvo(PCCX_CVO_ADD, pred_of(r) + gd_m.active * wh(), y, (uint16_t)H, 0, 0);
    if (gd_m.laurel != 0u) {
      uca_cvo(PCCX_CVO_ADD, row_h(g_p.lau, r), y, (uint16_t)H, 0, 0);
      uca_memcpy(PCCX_ROUTE_L2_TO_L2, gd_a.ao + 1u, y, F_D, 0);
      copy_word(gd_a.ao, kw(K_INV_SQRT2));
      scale_after(gd_a.ao, fi, H);
    } else {
      uca_memcpy(PCCX_ROUTE_L2_TO_L2, fi, y, F_D, 0);
    }
    if (gd_norm_h(ly->vectors[GD_V_PRE_FFN_NORM], fi, row_h(g_p.x, r)) != 0) return -1;
  }
  return 0;
}

/* word dst (element 0) = the sum of n elements at src; added to dst after
 * the first slice. */
static void sum_into(uint32_t src, uint32_t n, uint32_t dst, int first) {
  pccx_reduce_sum_long(src, n, first ? dst : gd_a.sp + 4u, 0);
  if (!first) uca_cvo(PCCX_CVO_ADD, gd_a.sp + 4u, dst, 1u, 0, 0);
}

/* A sparse layer's gate statistics over its whole width, slice by slice:
 * per row the sum and the sum of squares, then the cutoff mean + z std,
 * negated, in stat 2 (the decode's arithmetic, gaussian_cutoff). */
static int gate_statistics(const gd_block_layer* ly) {
  const uint32_t R = g_p.rows, n = ly->ffn, sp = gd_a.sp;
  for (uint32_t f0 = 0; f0 < n; f0 += gd_m.ffn_part) {
    const uint32_t fs = n - f0 < gd_m.ffn_part ? n - f0 : gd_m.ffn_part, fw = fs / 8u;
    const uint32_t g = g_p.wide, u = g_p.wide + R * fw;
    if (gemm(&ly->matrices[GD_GATE], g, g_p.x, f0, fs, 0u, gd_m.hidden, 0) != 0) return -1;
    uca_memset(0, F_SLICE, 1, 1, (uint16_t)fs);
    for (uint32_t r = 0; r < R; ++r) {
      sum_into(g + r * fw, fs, stat_of(r, 0), f0 == 0u);
      uca_memcpy(PCCX_ROUTE_L2_TO_L2, u + r * fw, g + r * fw, F_SLICE, 0);
      pccx_cvo_long(PCCX_CVO_MUL, g + r * fw, u + r * fw, fs, 0, 0);
      sum_into(u + r * fw, fs, stat_of(r, 1), f0 == 0u);
    }
  }
  uint16_t inv[8] = {pccx_bf16_from_float(1.0f / (float)n), 0, 0, 0, 0, 0, 0, 0};
  pccx_host_write(gd_m.scratch + S_INV_N, inv, 16u);
  if (gd_load(gd_m.scratch + S_INV_N, 16u, sp, F_WORD, PCCX_DMA_CLASS_ACTIVATIONS) != 0) return -1;
  for (uint32_t r = 0; r < R; ++r) {
    copy_word(sp + 1u, stat_of(r, 0));
    copy_word(sp + 2u, stat_of(r, 1));
    uca_cvo(PCCX_CVO_MUL, sp, sp + 1u, 1u, 0, 0); /* mean */
    uca_cvo(PCCX_CVO_MUL, sp, sp + 2u, 1u, 0, 0); /* mean of squares */
    copy_word(sp + 3u, sp + 1u);                  /* variance, at least 0 */
    uca_cvo(PCCX_CVO_MUL, sp + 1u, sp + 3u, 1u, 0, 0);
    uca_cvo(PCCX_CVO_MUL, kw(K_NEG1), sp + 3u, 1u, 0, 0);
    uca_cvo(PCCX_CVO_ADD, sp + 2u, sp + 3u, 1u, 0, 0);
    uca_cvo(PCCX_CVO_MAX, sp + 3u, sp + 3u, 1u, 0, 0);
    uca_cvo(UCA_CVO_SQRT, sp + 3u, sp + 3u, 1u, 0, 0);
    uca_cvo(PCCX_CVO_MUL, kw(K_Z), sp + 3u, 1u, 0, 0);
    uca_cvo(PCCX_CVO_ADD, sp + 1u, sp + 3u, 1u, 0, 0);
    uca_cvo(PCCX_CVO_MUL, kw(K_NEG1), sp + 3u, 1u, 0, 0);
    copy_word(stat_of(r, 2), sp + 3u);
  }
  return 0;
}

/* The FFN in slices of ffn_part columns, aligned with the K-splits of the
 * down projection: per slice gate and up on the GEMM, per row (the cutoff,)
 * GELU x up, then the slice's share of down added on the GEMM. Per row
 * after it: t2 = fi + norm(down) in y. */
static int ffn_rows(const gd_block_layer* ly) {
  const uint32_t R = g_p.rows, H = gd_m.hidden, n = ly->ffn;
  if (ly->sparse_ffn && gate_statistics(ly) != 0) return -1;
  for (uint32_t f0 = 0; f0 < n; f0 += gd_m.ffn_part) {
    const uint32_t fs = n - f0 < gd_m.ffn_part ? n - f0 : gd_m.ffn_part, fw = fs / 8u;
    const uint32_t g = g_p.wide, u = g_p.wide + R * fw;
    if (gemm(&ly->matrices[GD_GATE], g, g_p.x, f0, fs, 0u, H, 0) != 0 ||
        gemm(&ly->matrices[GD_UP], u, g_p.x, f0, fs, 0u, H, 0) != 0)
      return -1;
    for (uint32_t r = 0; r < R; ++r) {
      if (ly->sparse_ffn) {
        copy_word(gd_a.bc_slot, stat_of(r, 2));
        scale_after(gd_a.bc_slot, gd_a.bc_out, fs < CVO_MAX ? fs : CVO_MAX);
        for (uint32_t done = 0; done < fs; done += CVO_MAX)
          uca_cvo(PCCX_CVO_ADD, gd_a.bc_out, g + r * fw + done / 8u,
                  (uint16_t)(fs - done < CVO_MAX ? fs - done : CVO_MAX), 0, 0);
        pccx_cvo_long(PCCX_CVO_MAX, g + r * fw, g + r * fw, fs, 0, 0);
      }
      pccx_cvo_long(UCA_CVO_GELU, g + r * fw, g + r * fw, fs, 0, 0);
      pccx_cvo_long(PCCX_CVO_MUL, g + r * fw, u + r * fw, fs, 0, 0);
    }
    if (gemm(&ly->matrices[GD_DOWN], g_p.y, u, 0u, H, f0, fs, f0 != 0u) != 0) return -1;
  }
  for (uint32_t r = 0; r < R; ++r) {
    const uint32_t y = row_h(g_p.y, r);
    if (gd_norm_h(ly->vectors[GD_V_POST_FFN_NORM], y, y) != 0) return -1;
    uca_cvo(PCCX_CVO_ADD, row_h(g_p.fi, r), y, (uint16_t)H, 0, 0);
  }
  return 0;
}

/* Per row: AltUp's correction with t2. */
static int correct_rows(const gd_block_layer* ly) {
  for (uint32_t r = 0; r < g_p.rows; ++r) {
    view_row(r);
    if (gd_correct(ly, row_h(g_p.y, r)) != 0) return -1;
  }
  view_decode();
  return 0;
}

/* The per-layer input: gate on the GEMM over xs[A] (scaled), per row
 * GELU x the row's per-layer input, the projection on the GEMM, per row
 * its norm into every stream but the active one. */
static int per_layer_input_rows(const gd_block_layer* ly, uint32_t li) {
  const uint32_t R = g_p.rows, S = gd_m.streams, H = gd_m.hidden, A = gd_m.active;
  const uint32_t P = gd_m.ple_dim;
  if (P == 0u) return 0;
  if (S > 1u && gd_load_gamma(ly->vectors[GD_V_OUTPUT_SCALE]) != 0) return -1;
  for (uint32_t r = 0; r < R; ++r) {
    uca_memcpy(PCCX_ROUTE_L2_TO_L2, row_h(g_p.x, r), xs_vec_of(r, A), F_D, 0);
    if (S > 1u) uca_cvo(PCCX_CVO_MUL, gd_a.gamma, row_h(g_p.x, r), (uint16_t)H, 0, 0);
  }
  if (gemm_whole(&ly->matrices[GD_PLE_GATE], g_p.gp, g_p.x) != 0) return -1;
  for (uint32_t r = 0; r < R; ++r) {
    const uint32_t gp = g_p.gp + r * g_p.gp_row;
    uca_cvo(UCA_CVO_GELU, gp, gp, (uint16_t)P, 0, 0);
    uca_cvo(PCCX_CVO_MUL, pli_of(r) + li * (P / 8u), gp, (uint16_t)P, 0, 0);
  }
  if (gemm_whole(&ly->matrices[GD_PLE_PROJ], g_p.y, g_p.gp) != 0) return -1;
  for (uint32_t r = 0; r < R; ++r) {
    const uint32_t y = row_h(g_p.y, r);
    if (gd_norm_h(ly->vectors[GD_V_PLE_POST_NORM], y, y) != 0) return -1;
    for (uint32_t s = 0; s < S; ++s)
      if (s != A || S == 1u) uca_cvo(PCCX_CVO_ADD, y, xs_vec_of(r, s), (uint16_t)H, 0, 0);
  }
  return 0;
}

/* Layer li over the chunk, the steps of gd_layer with the matrices on the
 * GEMM. */
static int layer_rows(uint32_t li) {
  const gd_block_layer* ly = &gd_layers[li];
  if (predict_rows(ly) != 0) return -1;
  if (gd_m.laurel != 0u &&
      (gemm_whole(&ly->matrices[GD_LAUREL_LEFT], g_p.lt, g_p.x) != 0 ||
       gemm_whole(&ly->matrices[GD_LAUREL_RIGHT], g_p.lau, g_p.lt) != 0))
    return -1;
  if (gemm_whole(&ly->matrices[GD_Q], g_p.q, g_p.x) != 0) return -1;
  if (ly->stores_kv && (gemm_whole(&ly->matrices[GD_K], g_p.k, g_p.x) != 0 ||
                        gemm_whole(&ly->matrices[GD_V], g_p.v, g_p.x) != 0))
    return -1;
  if (attend_rows(ly) != 0) return -1;
  if (gemm_whole(&ly->matrices[GD_O], g_p.y, g_p.attn) != 0) return -1;
  if (attention_out_rows(ly) != 0 || ffn_rows(ly) != 0 || correct_rows(ly) != 0) return -1;
  return per_layer_input_rows(ly, li);
}

/* ---- the chunks ---- */

static void marker_chunk(uint32_t c, const char* tail) {
  pccx_line m;
  gd_line_start(&m, "prefill chunk ");
  pccx_line_dec(&m, c);
  pccx_line_str(&m, tail);
  pccx_simctl_marker(m.text);
}

/* The rings' positions for the chunk's rows, kept per row; the CPU's
 * staging of every row. */
static int open_chunk(uint32_t first, uint32_t rows) {
  for (uint32_t r = 0; r < rows; ++r) {
    const uint32_t pos = gd_m.kv[0].appended;
    uint64_t kv_tokens = 0;
    for (uint32_t ring = 0; ring < gd_m.rings; ++ring) {
      if (pccx_kv_append_token(&gd_m.kv[ring], 0) != PCCX_KV_OK)
        return gd_fail_msg("KV append refused", GD_EXIT_KV);
      g_ring_at[ring][r] = gd_m.kv[ring];
      kv_tokens += pccx_kv_valid_tokens(&gd_m.kv[ring]);
    }
    pccx_simctl_counter("kv tokens", kv_tokens);
    gd_stage_cpu(gd_token_id(first + r), pos, staging_of(r));
  }
  return 0;
}

/* Chunk c: rows [first, first + rows) of the prompt; with `last`, the
 * last row's logits into slot 0. */
static int run_chunk(uint32_t c, uint32_t first, uint32_t rows, int last) {
  marker_chunk(c, "");
  g_p.rows = rows;
  if (open_chunk(first, rows) != 0) return GD_EXIT_KV;
  if (entry() != 0) return GD_EXIT_DMA;
  for (uint32_t l = 0; l < gd_m.layers; ++l)
    if (layer_rows(l) != 0) return GD_EXIT_DMA;
  if (last) {
    /* The LM head writes where the rows' buffers are: its tiles' slot
     * words again, after the last row's streams are read. */
    pccx_simctl_marker("decode: prefill exit");
    view_row(rows - 1u);
    const int rc = gd_exit_streams();
    view_decode();
    if (rc != 0) return GD_EXIT_DMA;
    if (gd_finish_token() != 0) return GD_EXIT_TIMEOUT;
    gd_set_logit_slots();
    if (gd_lm_head(0u) != 0) return GD_EXIT_DMA;
  }
  if (gd_finish_token() != 0) return GD_EXIT_TIMEOUT;
  marker_chunk(c, " end");
  return 0;
}

int gd_prefill_chunks(void) {
  const uint32_t C = gd_m.chunk;
  g_decode_view = gd_a;
  const gd_l2_shape shape = gd_l2_shape_of_model();
  if (gd_plan_prefill_l2(&shape, &gd_a, C, gd_m.ffn_part, &g_p) > gd_m.l2_words)
    return gd_fail_msg("the prefill's rows do not fit L2 (a smaller chunk fits)", GD_EXIT_L2_FIT);
  for (uint32_t first = 0, c = 0; first < gd_m.prompt; first += C, ++c) {
    const uint32_t rows = gd_m.prompt - first < C ? gd_m.prompt - first : C;
    const int rc = run_chunk(c, first, rows, first + rows == gd_m.prompt);
    if (rc != 0) return rc;
  }
  return 0;
}
