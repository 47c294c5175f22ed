/* The L2 layout of the decode program (firmware/programs/gemma_decode/):
 * every activation buffer, in 128-bit words, from the model's dimensions.
 * One definition for the firmware, which places its buffers with it, and
 * for the host (platform/workload/decode_runner), which rejects a model
 * and configuration whose layout does not fit npu.l2.words before any
 * simulation, showing the parts. */
#ifndef PCCX_GEMMA_DECODE_L2_H
#define PCCX_GEMMA_DECODE_L2_H

#include <stdint.h>

#include "pccx_ops.h"

#define GD_L2_BASE 0x100u           /* words below are left to other users */
#define GD_L2_WORDS_DEFAULT 114688u /* npu.l2.words of the KV260 build */
#define GD_L2_CVO_MAX 2048u         /* elements per CVO */
#define GD_L2_K_WORDS 16u           /* the program's constants */

/* What the layout depends on. */
typedef struct {
  uint32_t hidden, heads, kv_heads, head_dim, streams, layers, ple_dim, laurel, vocab, lm_tile;
  uint32_t ffn_max;  /* widest FFN over the layers */
  uint32_t span_max; /* longest attention span (largest ring cap) */
  int any_sparse;    /* a layer with the gaussian-cutoff FFN */
} gd_l2_shape;

/* Word addresses of the buffers, in layout order, and the strides. */
typedef struct {
  uint32_t k, ones_w, masks, bc_slot, bc_out, xs, pred, dl, acc, yb, t, t2, xn, lau, lt, rn, me;
  uint32_t q, qr, qrot, k_, kr, v, rope, scores, exps, out, z, attn, attn2, ao, a, gate, up, sq, sp,
      gamma, gamma_d, gamma_p, ws_h, ws_d, ws_p, pr, cc, cr, cc2, tw, pli, pp, gp, logits, end;
  uint32_t wh, xs_stride, z_stride, tile_stride, tiles, pr_stride, cr_stride, rope_words;
} gd_l2;

static inline uint32_t gd_l2_words_of(uint32_t elements) {
  return (elements + 7u) / 8u;
}

/* Next free word after taking `words` from *at. */
static inline uint32_t gd_l2_take(uint32_t* at, uint32_t words) {
  const uint32_t a = *at;
  *at += words;
  return a;
}

/* Fills *a and returns the first word after the layout (a->end); the
 * layout fits when that is at most the L2's size in words. */
static inline uint32_t gd_plan_l2(const gd_l2_shape* g, gd_l2* a) {
  const uint32_t G = g->heads / g->kv_heads, hd = g->head_dim, S = g->streams;
  const uint32_t wh = gd_l2_words_of(g->hidden), wq = gd_l2_words_of(g->heads * hd);
  const uint32_t wkv = gd_l2_words_of(g->kv_heads * hd), lp = g->layers * g->ple_dim;
  uint32_t at = GD_L2_BASE;
  a->wh = wh;
  a->k = gd_l2_take(&at, GD_L2_K_WORDS);
  a->ones_w = gd_l2_take(&at, 16u);
  a->masks = gd_l2_take(&at, 16u);
  a->bc_slot = gd_l2_take(&at, 1u + GD_L2_CVO_MAX / 8u); /* slot, then 2,048 ones */
  a->bc_out = gd_l2_take(&at, GD_L2_CVO_MAX / 8u);
  a->xs_stride = 1u + wh;
  a->xs = gd_l2_take(&at, S * a->xs_stride);
  a->pred = gd_l2_take(&at, S * wh);
  a->dl = gd_l2_take(&at, 1u + wh);
  a->acc = gd_l2_take(&at, 1u + wh);
  a->yb = gd_l2_take(&at, wh);
  a->t = gd_l2_take(&at, wh);
  a->t2 = gd_l2_take(&at, wh);
  a->xn = gd_l2_take(&at, wh);
  a->lau = gd_l2_take(&at, wh);
  a->lt = gd_l2_take(&at, gd_l2_words_of(g->laurel) + 1u);
  a->rn = gd_l2_take(&at, wh);
  a->me = gd_l2_take(&at, 1u);
  a->q = gd_l2_take(&at, wq);
  a->qr = gd_l2_take(&at, wq);
  a->qrot = gd_l2_take(&at, wq);
  a->k_ = gd_l2_take(&at, wkv);
  a->kr = gd_l2_take(&at, wkv);
  a->v = gd_l2_take(&at, wkv);
  a->rope_words = wq;
  a->rope = gd_l2_take(&at, 8u * wq); /* q: cos, sin local, cos, sin global; then k's */
  a->scores = gd_l2_take(&at, gd_l2_words_of(G * g->span_max) + 1u);
  a->exps = gd_l2_take(&at, gd_l2_words_of(G * g->span_max) + 1u);
  a->out = gd_l2_take(&at, gd_l2_words_of(G * hd));
  a->z_stride = 1u + gd_l2_words_of(hd);
  a->z = gd_l2_take(&at, G * a->z_stride);
  a->attn = gd_l2_take(&at, wq);
  a->attn2 = gd_l2_take(&at, wq);
  a->ao = gd_l2_take(&at, 1u + wh); /* slot, then the attention block's output */
  a->a = gd_l2_take(&at, wh);
  a->gate = gd_l2_take(&at, gd_l2_words_of(g->ffn_max));
  a->up = gd_l2_take(&at, gd_l2_words_of(g->ffn_max));
  a->sq = g->any_sparse ? gd_l2_take(&at, gd_l2_words_of(g->ffn_max)) : at;
  a->sp = gd_l2_take(&at, 8u);
  a->gamma = gd_l2_take(&at, wh);
  a->gamma_d = gd_l2_take(&at, gd_l2_words_of(hd));
  a->gamma_p = gd_l2_take(&at, gd_l2_words_of(g->ple_dim) + 1u);
  a->ws_h = gd_l2_take(&at, pccx_rmsnorm_words(g->hidden));
  a->ws_d = gd_l2_take(&at, pccx_rmsnorm_words(hd));
  a->ws_p = gd_l2_take(&at, pccx_rmsnorm_words(g->ple_dim ? g->ple_dim : 8u));
  a->pr_stride = 1u + S * S;
  a->pr = gd_l2_take(&at, S * a->pr_stride);
  a->cc = gd_l2_take(&at, S * S);
  a->cr_stride = 1u + S;
  a->cr = gd_l2_take(&at, S * a->cr_stride);
  a->cc2 = gd_l2_take(&at, S);
  a->tw = gd_l2_take(&at, S * S > 1u ? S * S : 1u);
  a->pli = gd_l2_take(&at, gd_l2_words_of(lp) + 1u);
  a->pp = gd_l2_take(&at, gd_l2_words_of(lp) + 1u);
  a->gp = gd_l2_take(&at, gd_l2_words_of(g->ple_dim) + 1u);
  a->tiles = (g->vocab + g->lm_tile - 1u) / g->lm_tile;
  a->tile_stride = 1u + gd_l2_words_of(g->lm_tile);
  a->logits = gd_l2_take(&at, a->tiles * a->tile_stride);
  a->end = at;
  return at;
}

/* The prefill's row blocks (gemma_decode/prefill.c): per buffer, `rows`
 * rows of row-major words, so a block is a GEMM's M x K activations or its
 * M x N results. They start at the decode's logits, which the prefill
 * leaves alone until its last row's LM head (the slot words are set again
 * then), and run to gd_prefill_l2.end. */
typedef struct {
  uint32_t rows;
  uint32_t xs, pred, pli;    /* per row: S x (1 + wh), S x wh, lp + 1 */
  uint32_t x, lau, fi, y;    /* wh each: a GEMM's input, LAuReL, the FFN's input, results */
  uint32_t lt, q, k, v, attn; /* laurel, heads x hd, kv x hd (K, V), heads x hd */
  uint32_t gp, stats;        /* P; 4 words (sparse FFN sums, the mean square of a stream) */
  uint32_t wide;             /* max(2 ffn_part, L x P) elements: gate and up, or the entry's */
  uint32_t xs_row, pred_row, pli_row, lt_row, q_row, kv_row, gp_row, wide_row;
  uint32_t end;
} gd_prefill_l2;

/* Fills *p for `rows` rows from the decode layout *a; returns p->end (the
 * layout fits when that is at most the L2's words). */
static inline uint32_t gd_plan_prefill_l2(const gd_l2_shape* g, const gd_l2* a, uint32_t rows,
                                          uint32_t ffn_part, gd_prefill_l2* p) {
  const uint32_t wh = gd_l2_words_of(g->hidden), wq = gd_l2_words_of(g->heads * g->head_dim);
  const uint32_t wkv = gd_l2_words_of(g->kv_heads * g->head_dim);
  const uint32_t lp = gd_l2_words_of(g->layers * g->ple_dim);
  uint32_t at = a->logits;
  p->rows = rows;
  p->xs_row = g->streams * (1u + wh);
  p->pred_row = g->streams * wh;
  p->pli_row = lp + 1u;
  p->lt_row = gd_l2_words_of(g->laurel);
  p->q_row = wq;
  p->kv_row = wkv;
  p->gp_row = gd_l2_words_of(g->ple_dim);
  p->wide_row = 2u * gd_l2_words_of(ffn_part) > lp ? 2u * gd_l2_words_of(ffn_part) : lp;
  p->xs = gd_l2_take(&at, rows * p->xs_row);
  p->pred = gd_l2_take(&at, rows * p->pred_row);
  p->pli = gd_l2_take(&at, rows * p->pli_row);
  p->x = gd_l2_take(&at, rows * wh);
  p->lau = gd_l2_take(&at, rows * wh);
  p->fi = gd_l2_take(&at, rows * wh);
  p->y = gd_l2_take(&at, rows * wh);
  p->lt = gd_l2_take(&at, rows * p->lt_row);
  p->q = gd_l2_take(&at, rows * wq);
  p->attn = gd_l2_take(&at, rows * wq);
  p->k = gd_l2_take(&at, rows * wkv);
  p->v = gd_l2_take(&at, rows * wkv);
  p->gp = gd_l2_take(&at, rows * p->gp_row);
  p->stats = gd_l2_take(&at, rows * 4u);
  p->wide = gd_l2_take(&at, rows * p->wide_row);
  p->end = at;
  return at;
}

/* ---- query tiles of the prefill's attention ----
 * T rows of a chunk attend together: one key and one value stream of a KV
 * head serve their T x G query heads, the ring as after the tile's last
 * append with a window ring's window widened by T - 1 (a row's mask hides
 * what it may not see). */

/* The ring's first valid non-sink position after n appends (no eviction):
 * pccx_kv_window_start for a ring of `cap` records, `sinks` and `window`
 * (0: as many as the ring holds). */
static inline uint32_t gd_ring_window_start(uint32_t n, uint32_t cap, uint32_t sinks,
                                            uint32_t window) {
  uint32_t reach = cap - sinks, a = sinks;
  if (window != 0u && window < reach) reach = window;
  if (n > reach && n - reach > a) a = n - reach;
  return a < n ? a : n;
}

/* pccx_kv_valid_tokens of the same ring. */
static inline uint32_t gd_ring_valid_tokens(uint32_t n, uint32_t cap, uint32_t sinks,
                                            uint32_t window) {
  return (sinks < n ? sinks : n) + (n - gd_ring_window_start(n, cap, sinks, window));
}

/* Where a tile's buffers are: the scores (T G x span, the exponentials in
 * place), the gathered queries and the heads' outputs (T G x hd each). */
typedef struct {
  uint32_t rows, span; /* T, and the records of the shared stream */
  uint32_t scores, q, out;
} gd_attention_tile;

/* The tile starting at a row whose append made n_first tokens, with
 * `rows` rows left in the chunk: the most rows whose shared stream still
 * holds every row's valid set and whose buffers fit the words free while
 * the layer attends, the decode's scores to z (a) and the chunk's FFN
 * slices (p). The larger takes the scores, the other the queries and
 * outputs (or the larger all three). rows = 1 is the row on its own (the
 * decode's buffers). */
static inline gd_attention_tile gd_prefill_attention_tile(const gd_l2* a, const gd_prefill_l2* p,
                                                          uint32_t G, uint32_t hd, uint32_t n_first,
                                                          uint32_t rows, uint32_t cap,
                                                          uint32_t sinks, uint32_t window) {
  const uint32_t a_words = a->z - a->scores, b_words = p->rows * p->wide_row;
  const uint32_t big = a_words >= b_words ? a->scores : p->wide;
  const uint32_t big_words = a_words >= b_words ? a_words : b_words;
  const uint32_t small = a_words >= b_words ? p->wide : a->scores;
  const uint32_t small_words = a_words >= b_words ? b_words : a_words;
  gd_attention_tile t;
  for (uint32_t T = rows; T > 1u; --T) {
    const uint32_t n_last = n_first + T - 1u;
    const uint32_t wide = window != 0u ? window + T - 1u : 0u;
    if (gd_ring_window_start(n_last, cap, sinks, wide) >
        gd_ring_window_start(n_first, cap, sinks, window))
      continue; /* the last appends overwrote what the first row sees */
    const uint32_t span = gd_ring_valid_tokens(n_last, cap, sinks, wide);
    const uint32_t s_words = gd_l2_words_of(T * G * span), h_words = gd_l2_words_of(T * G * hd);
    if (T * G > 0xFFFFu || span > 0xFFFFu) continue; /* the shape fields */
    t.rows = T;
    t.span = span;
    t.scores = big;
    if (s_words <= big_words && 2u * h_words <= small_words) {
      t.q = small;
      t.out = small + h_words;
      return t;
    }
    if (s_words + 2u * h_words <= big_words) {
      t.q = big + s_words;
      t.out = t.q + h_words;
      return t;
    }
  }
  t.rows = 1u;
  t.span = gd_ring_valid_tokens(n_first, cap, sinks, window);
  t.scores = a->scores;
  t.q = a->q;
  t.out = a->out;
  return t;
}

/* Words one row of a chunk keeps (for the reports and the row limit): the
 * layout above for one row. */
static inline uint32_t gd_prefill_row_words(const gd_l2_shape* g, uint32_t ffn_part) {
  gd_l2 a;
  gd_prefill_l2 p;
  a.logits = 0u;
  return gd_plan_prefill_l2(g, &a, 1u, ffn_part, &p);
}

#endif /* PCCX_GEMMA_DECODE_L2_H */
