/* gemma_decode: the per-token decode of a Gemma-3n-style model on the NPU,
 * N tokens after a context of L tokens already in the KV rings. The
 * arithmetic is docs/models/decode-model.md; the instruction sequence and the
 * parameter block are docs/models/decode.md.
 *
 * The CPU's share per token: the embedding row and the per-layer embedding
 * row of the token (read from DDR, dequantised, scaled and staged as BF16),
 * the RoPE cos/sin tables of the position (in double precision: a BF16
 * angle cannot hold pos x frequency) and the KV rings' write position.
 * Everything else is NPU instructions: GEMVs for every matrix, the SFU for
 * norms, AltUp, softmax, GELU, the FFN cutoff and the softcap, MEMCPY for
 * moves, KV appends and logits.
 *
 * Scalars on the SFU: a scalar lives in element 0 of an L2 word. SCALE
 * takes its scalar from the word before its vector, so every vector that
 * is scaled by a computed scalar has a slot word in front of it; a 1-row
 * GEMV leaves its result in element 0 of a word (elements 1..7 zero).
 *
 * Weight streams: row n of a matrix on the (n mod F)-th of the GEMV's F
 * weight FIFOs (HP2 and HP3 by default; a 1-row GEMV takes its record on
 * the first), CLASS weights. K/V streams: pccx_kv_submit_stream_split over
 * the same channels, CLASS kv_read. Appends:
 * ACP_RESULT, CLASS kv_write. Norm weights and AltUp coefficients: ACP_FMAP,
 * CLASS weights. Staged rows and tables: ACP_FMAP, CLASS activations.
 * Logits: ACP_RESULT, CLASS activations. Constants, once per run: ACP_FMAP,
 * CLASS host.
 *
 * Markers: "decode: token <t>" and "decode: token <t> end" around each
 * token (the end after uca_sync and every DMA status), "decode: token <t>
 * layer <l>" and "decode: token <t> exit" as the parts are issued. Per token
 * it prints "decode: token <t> latency_ns <ns> instructions <n>". */
#include <stdint.h>

#include "pccx_dma.h"
#include "pccx_firmware.h"
#include "pccx_gemma_decode.h"
#include "pccx_gemma_decode_l2.h"
#include "pccx_host_mem.h"
#include "pccx_isa.h"
#include "pccx_kv.h"
#include "pccx_ops.h"
#include "pccx_simctl.h"
#include "pccx_uca_ext.h"
#include "uCA_v1_api.h"

#define CVO_MAX GD_L2_CVO_MAX
#define SHAPE_MAX 65535u
#define SYNC_TIMEOUT_US 2000000000u
#define STATUS_POLLS 200000000u
#define OUTSTANDING_MAX 4u
#define HEAD_PARALLEL 0x10u /* parallel_lane bit 4, all cores */
#define GEMV_KEY_ROWS 1u
#define GEMV_VALUE_ACC 2u
#define ROPE_TABLE_MAX 8192u /* heads x head_dim of one RoPE table */

/* fmap_shape slots */
#define F_D 1u
#define F_ATTN 2u
#define F_HD 3u
#define F_KEYS 4u
#define F_PROBS 5u
#define F_FFN 6u
#define F_TILE 7u
#define F_TILE_LAST 8u
#define F_RMS 9u
#define F_WORD 10u
#define F_RMS_D 11u
#define F_RMS_P 12u
#define F_P 13u
#define F_LP 14u
#define F_R 15u
#define F_HALF 16u
#define F_K16 17u
#define F_PRED 18u
#define F_CORR 19u
#define F_ONES 20u
#define F_KV 21u
/* weight_shape slots */
#define W_Q 1u
#define W_KV 2u
#define W_O 3u
#define W_UP 4u
#define W_DOWN 5u
#define W_KEYS 6u
#define W_VALUES 7u
#define W_TILE 8u
#define W_TILE_LAST 9u
#define W_ROW 10u
#define W_LL 11u
#define W_LR 12u
#define W_PG 13u
#define W_PP 14u
#define W_HH 15u
#define W_PLEM 16u
#define W_ROT 17u

/* Constant words (element 0), staged once: K_BASE + index. */
#define K_ONE 0u
#define K_NEG1 1u
#define K_ZERO 2u
#define K_INV_SQRT2 3u
#define K_INV_S 4u
#define K_Z 5u
#define K_SOFTCAP 6u
#define K_WORDS GD_L2_K_WORDS

/* DDR scratch (bytes from the block's scratch address). */
#define S_WS_H 0u
#define S_WS_D 32u
#define S_WS_P 64u
#define S_CONSTS 128u  /* K_WORDS words */
#define S_ONES_W 384u  /* GD_MAX_STREAMS words {1, 0, ...} */
#define S_MASKS 640u   /* 16 words: elements < r, then elements >= r */
#define S_INV_N 896u   /* one word: 1 / ffn of a sparse layer */
#define S_ONES 1024u   /* 2,048 BF16 ones */
#define S_EMBED 8192u  /* hidden BF16 */
#define S_PLE 16384u   /* layers x P BF16 */
#define S_ROPE 147456u /* 8 tables of heads x head_dim BF16 */

/* The header's fields as the program uses them; matrices and layer records
 * are kept as the block has them (gd_block_matrix, gd_block_layer). */
typedef struct {
  uint32_t layers, hidden, heads, kv_heads, head_dim, vocab, tokens, context, lm_tile, rings, eps,
      flags;
  uint64_t scratch, logits, embed_table, final_norm;
  uint32_t logits_stride;
  uint32_t l2_words;                   /* the NPU's L2, words */
  uint32_t wf;                         /* weight streams F */
  unsigned wch[GD_MAX_WEIGHT_STREAMS]; /* their DMA channels */
  gd_block_matrix lm, ple_model_proj, rotation;
  pccx_kv_handle kv[GD_MAX_RINGS];
  uint32_t streams, active, ple_dim, laurel, ple_vocab, sparse_layers;
  float z, softcap, q_scale;
  uint32_t table_format, table_group, table_row_bytes, weight_group, weight_scales;
  uint64_t ple_table, ple_proj_norm;
  gd_block_matrix altup_proj[GD_MAX_STREAMS], altup_unproj[GD_MAX_STREAMS];
  const uint8_t* token_ids; /* N u32, in the block */
  const uint8_t* inv_freq;  /* d/2 f32 local, d/2 f32 global, in the block */
} gd_model;

static gd_model g_m;

static void start(pccx_line* l, const char* what) {
  pccx_line_start(l, "decode: ");
  pccx_line_str(l, what);
}

static int fail(pccx_line* l, int code) {
  pccx_simctl_print(l->text);
  pccx_simctl_exit(code);
  return code;
}

static int fail_msg(const char* what, int code) {
  pccx_line l;
  start(&l, what);
  return fail(&l, code);
}

/* The block may sit at any address: structs and values are copied out of
 * it (little endian, as the CPU). */
static void copy_in(void* dst, const uint8_t* src, uint32_t bytes) {
  __builtin_memcpy(dst, src, bytes);
}

static float f32_of(uint32_t bits) {
  union {
    uint32_t u;
    float f;
  } v;
  v.u = bits;
  return v.f;
}

/* Token t's id. */
static uint32_t token_id(uint32_t t) {
  uint32_t id;
  copy_in(&id, g_m.token_ids + t * sizeof id, sizeof id);
  return id;
}

/* RoPE inverse frequency i (local first, then global). */
static float inv_freq(uint32_t i) {
  float f;
  copy_in(&f, g_m.inv_freq + i * sizeof f, sizeof f);
  return f;
}

static uint32_t words_of(uint32_t elements) {
  return (elements + 7u) / 8u;
}

/* ---- CPU arithmetic: BF16, INT4 records, sin/cos ---- */

static float float_of_bf16(uint16_t b) {
  return f32_of((uint32_t)b << 16);
}

static double sqrt_of(double x) {
  double r = x > 1.0 ? x : 1.0;
  if (x <= 0.0) return 0.0;
  for (int i = 0; i < 60; ++i) r = 0.5 * (r + x / r);
  return r;
}

/* sin and cos of a >= 0: Cody-Waite reduction by pi/2, Taylor on
 * [-pi/4, pi/4] (error below 1e-15 for a < 2^20). */
static void sincos_of(double a, double* s, double* c) {
  const double pio2_hi = 1.5707963267341256e+00, pio2_lo = 6.0771005065061922e-11;
  const double k = (double)(int64_t)(a * 0.63661977236758134 + 0.5);
  const double r = (a - k * pio2_hi) - k * pio2_lo, r2 = r * r;
  double sn = r, cs = 1.0, term_s = r, term_c = 1.0;
  for (int n = 1; n <= 9; ++n) {
    term_s *= -r2 / (double)((2 * n) * (2 * n + 1));
    term_c *= -r2 / (double)((2 * n - 1) * (2 * n));
    sn += term_s;
    cs += term_c;
  }
  switch ((int64_t)k & 3) {
    case 0: *s = sn, *c = cs; break;
    case 1: *s = cs, *c = -sn; break;
    case 2: *s = -sn, *c = -cs; break;
    default: *s = -cs, *c = sn; break;
  }
}
/* ---- DMA bookkeeping: descriptors whose status is not yet popped ---- */

static uint32_t g_outstanding[PCCX_DMA_CHANNELS];
static unsigned g_class[PCCX_DMA_CHANNELS];

static int pop_one(unsigned ch) {
  pccx_dma_status st;
  st.errors = 0;
  if (pccx_dma_wait_status(ch, &st, STATUS_POLLS) != PCCX_DMA_OK || st.errors != 0) {
    pccx_line l;
    start(&l, "DMA channel ");
    pccx_line_dec(&l, ch);
    pccx_line_str(&l, ": no status or error bits ");
    pccx_line_dec(&l, st.errors);
    return fail(&l, GD_EXIT_DMA);
  }
  --g_outstanding[ch];
  return 0;
}

/* Keeps at most OUTSTANDING_MAX - room descriptors unpopped on `ch`. */
static int make_room(unsigned ch, uint32_t room) {
  while (g_outstanding[ch] + room > OUTSTANDING_MAX)
    if (pop_one(ch) != 0) return -1;
  return 0;
}

static int submit(unsigned ch, uint64_t addr, uint32_t bytes, unsigned cls) {
  if (make_room(ch, 1u) != 0) return -1;
  if (g_class[ch] != cls) {
    pccx_dma_set_class(ch, cls);
    g_class[ch] = cls;
  }
  if (pccx_dma_submit(ch, addr, bytes, 1u) != PCCX_DMA_OK)
    return fail_msg("a DMA descriptor was refused", GD_EXIT_DMA);
  ++g_outstanding[ch];
  return 0;
}

static int drain_all(void) {
  for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch)
    while (g_outstanding[ch] != 0u)
      if (pop_one(ch) != 0) return -1;
  return 0;
}

/* Rows [r0, r0 + n) of a matrix (r0 a multiple of F): row r from part
 * r mod F on that part's channel, CLASS weights. */
static int stream_rows(const gd_block_matrix* m, uint32_t r0, uint32_t n) {
  const uint32_t F = g_m.wf;
  for (uint32_t f = 0; f < F && f < n; ++f) {
    const uint32_t rows = (n - f + F - 1u) / F;
    if (submit(g_m.wch[f], m->part[f] + (uint64_t)(r0 / F) * m->record_bytes,
               rows * m->record_bytes, PCCX_DMA_CLASS_WEIGHTS) != 0)
      return -1;
  }
  return 0;
}

/* Row r alone, for a 1-row GEMV: its record on the first channel (a GEMV's
 * row 0 comes from its first FIFO). */
static int stream_row(const gd_block_matrix* m, uint32_t r) {
  const uint64_t at = m->part[r % g_m.wf] + (uint64_t)(r / g_m.wf) * m->record_bytes;
  return submit(g_m.wch[0], at, m->record_bytes, PCCX_DMA_CLASS_WEIGHTS);
}

/* One KV stream (layer, head, K|V) split over the weight channels. */
static int stream_kv(const pccx_kv_handle* h, uint32_t index, uint32_t head, int is_value) {
  unsigned pushed[GD_MAX_WEIGHT_STREAMS] = {0u, 0u, 0u, 0u};
  for (uint32_t f = 0; f < g_m.wf; ++f)
    if (make_room(g_m.wch[f], 2u) != 0) return -1;
  const int64_t r =
      pccx_kv_submit_stream_split(h, index, head, is_value, g_m.wch, g_m.wf, 1u, pushed);
  if (r < 0) return fail_msg(pccx_kv_strerror((int)r), GD_EXIT_KV);
  for (uint32_t f = 0; f < g_m.wf; ++f) {
    g_class[g_m.wch[f]] = PCCX_DMA_CLASS_KV_READ;
    g_outstanding[g_m.wch[f]] += pushed[f];
  }
  return 0;
}

/* ---- L2 layout (words): pccx_gemma_decode_l2.h ---- */

static gd_block_layer g_layers[GD_MAX_LAYERS];
static gd_l2 g_a;
static pccx_rmsnorm_ws g_ws_h, g_ws_d, g_ws_p;

/* ---- issue helpers ---- */

static uint32_t kw(uint32_t index) {
  return g_a.k + index;
}

static void copy_word(uint32_t dst, uint32_t src) {
  uca_memcpy(PCCX_ROUTE_L2_TO_L2, dst, src, F_WORD, 0);
}

/* n elements from DDR `addr` (BF16) into L2 `dst`, with fmap slot `shape`
 * holding n. */
static int load(uint64_t addr, uint32_t bytes, uint32_t dst, uint8_t shape, unsigned cls) {
  if (submit(PCCX_DMA_ACP_FMAP, addr, bytes, cls) != 0) return -1;
  uca_memcpy(UCA_ROUTE_HOST_TO_L2, dst, 0, shape, 0);
  return 0;
}

static int load_gamma(uint64_t addr) {
  return load(addr, 2u * g_m.hidden, g_a.gamma, F_D, PCCX_DMA_CLASS_WEIGHTS);
}

static int norm_h(uint64_t gamma_addr, uint32_t x, uint32_t out) {
  if (load_gamma(gamma_addr) != 0) return -1;
  if (pccx_rmsnorm(&g_ws_h, x, g_a.gamma, out, g_m.hidden) != PCCX_OPS_OK)
    return fail_msg("RMSNorm failed", GD_EXIT_DMA);
  return 0;
}

static int gemv_matrix(const gd_block_matrix* m, uint32_t dst, uint32_t src, uint8_t fslot,
                       uint8_t wslot) {
  if (stream_rows(m, 0u, m->rows) != 0) return -1;
  uca_gemv(dst, src, UCA_FLAG_W_SCALE, fslot, wslot, 0);
  return 0;
}

/* dst[0] = src[0] * dst[0], element 0 only. */
static void smul(uint32_t src, uint32_t dst) {
  uca_cvo(PCCX_CVO_MUL, src, dst, 1u, 0, 0);
}

static void sadd(uint32_t src, uint32_t dst) {
  uca_cvo(PCCX_CVO_ADD, src, dst, 1u, 0, 0);
}

/* dst = element 0 of `slot` times the n elements after it (n <= CVO_MAX). */
static void scale_after(uint32_t slot, uint32_t dst, uint32_t n) {
  uca_cvo(UCA_CVO_SCALE, slot, dst, (uint16_t)n, 0, 0);
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
  copy_word(g_a.bc_slot, scalar);
  scale_after(g_a.bc_slot, g_a.bc_out, n < CVO_MAX ? n : CVO_MAX);
}

static void marker2(const char* a, uint32_t t, const char* b, uint32_t l, int with_l) {
  pccx_line m;
  start(&m, a);
  pccx_line_dec(&m, t);
  pccx_line_str(&m, b);
  if (with_l) pccx_line_dec(&m, l);
  pccx_simctl_marker(m.text);
}
/* ---- CPU staging, per token ---- */

static uint8_t g_row[140000];
static uint16_t g_stage[65536];

static float int4_at(const uint8_t* values, uint32_t k) {
  const uint8_t b = values[k / 2u];
  int v = k % 2u ? (b >> 4) : (b & 0xF);
  return (float)(v >= 8 ? v - 16 : v);
}

/* Element k of a row: BF16 scales (n of them, one per `group` values, or
 * one for the row when group is 0), then the values. */
static float dequant(const uint8_t* row, uint32_t k, uint32_t width, uint32_t format,
                     uint32_t group, int scaled) {
  const uint32_t scales = !scaled ? 0u : group == 0u ? 1u : (width + group - 1u) / group;
  const uint8_t* values = row + 2u * scales;
  float s = 1.0f;
  if (scaled) {
    const uint32_t j = group == 0u ? 0u : k / group;
    s = float_of_bf16((uint16_t)(row[2u * j] | (row[2u * j + 1u] << 8)));
  }
  if (format == 2u) return float_of_bf16((uint16_t)(values[2u * k] | (values[2u * k + 1u] << 8)));
  if (format == 1u) return (float)(int8_t)values[k] * s;
  return int4_at(values, k) * s;
}

static int stage_token(uint32_t tok, uint32_t pos) {
  const uint32_t H = g_m.hidden;
  /* Embedding row x sqrt(hidden). */
  const uint64_t row = g_m.embed_table != 0u ? g_m.embed_table + (uint64_t)tok * g_m.lm.record_bytes
                                             : g_m.lm.part[tok % g_m.wf] +
                                                   (uint64_t)(tok / g_m.wf) * g_m.lm.record_bytes;
  pccx_host_read(row, g_row, g_m.lm.record_bytes);
  const float sh = (float)sqrt_of((double)H);
  for (uint32_t k = 0; k < H; ++k)
    g_stage[k] = pccx_bf16_from_float(
        dequant(g_row, k, H, 0u, g_m.weight_group, (int)g_m.weight_scales) * sh);
  pccx_host_write(g_m.scratch + S_EMBED, g_stage, 2u * H);
  /* Per-layer embedding row x sqrt(P) / sqrt(2) (the 1/sqrt(2) of the
   * per-layer input sum applied here and, for the projection, by the norm). */
  if (g_m.ple_dim != 0u) {
    const uint32_t w = g_m.layers * g_m.ple_dim;
    const uint32_t t = tok < g_m.ple_vocab ? tok : g_m.ple_vocab - 1u;
    const float sp = (float)(sqrt_of((double)g_m.ple_dim) / sqrt_of(2.0));
    pccx_host_read(g_m.ple_table + (uint64_t)t * g_m.table_row_bytes, g_row, g_m.table_row_bytes);
    for (uint32_t k = 0; k < w; ++k)
      g_stage[k] = pccx_bf16_from_float(
          dequant(g_row, k, w, g_m.table_format, g_m.table_group, g_m.table_format != 2u) * sp);
    pccx_host_write(g_m.scratch + S_PLE, g_stage, 2u * w);
  }
  /* RoPE tables: cos and the signed sin ([-sin | sin] per head) of both
   * bases, for the queries (times the q scale) and, when that scale is
   * not 1, separately for the keys. */
  const uint32_t hd = g_m.head_dim, half = hd / 2u, nq = g_m.heads * hd;
  const int separate_k = g_m.q_scale != 1.0f;
  for (uint32_t set = 0; set < (separate_k ? 2u : 1u); ++set) {
    const float sc = set == 0u ? g_m.q_scale : 1.0f;
    const uint32_t heads = set == 0u ? g_m.heads : g_m.kv_heads;
    for (uint32_t base = 0; base < 2u; ++base) {
      uint16_t* cs = g_stage;
      uint16_t* sn = g_stage + heads * hd;
      for (uint32_t m = 0; m < half; ++m) {
        const double f = (double)inv_freq(base * half + m);
        double s, c;
        sincos_of((double)pos * f, &s, &c);
        for (uint32_t h = 0; h < heads; ++h) {
          cs[h * hd + m] = cs[h * hd + m + half] = pccx_bf16_from_float((float)c * sc);
          sn[h * hd + m] = pccx_bf16_from_float((float)-s * sc);
          sn[h * hd + m + half] = pccx_bf16_from_float((float)s * sc);
        }
      }
      pccx_host_write(g_m.scratch + S_ROPE + (uint64_t)(set * 4u + base * 2u) * 2u * nq, g_stage,
                      2u * heads * hd);
      pccx_host_write(g_m.scratch + S_ROPE + (uint64_t)(set * 4u + base * 2u + 1u) * 2u * nq, sn,
                      2u * heads * hd);
    }
  }
  /* Into L2. */
  if (load(g_m.scratch + S_EMBED, 2u * H, g_a.xs + g_m.active * g_a.xs_stride + 1u, F_D,
           PCCX_DMA_CLASS_ACTIVATIONS) != 0)
    return -1;
  if (g_m.ple_dim != 0u && load(g_m.scratch + S_PLE, 2u * g_m.layers * g_m.ple_dim, g_a.pli, F_LP,
                                PCCX_DMA_CLASS_ACTIVATIONS) != 0)
    return -1;
  for (uint32_t i = 0; i < (separate_k ? 8u : 4u); ++i) {
    const int is_k = i >= 4u;
    if (load(g_m.scratch + S_ROPE + (uint64_t)i * 2u * nq,
             2u * (is_k ? g_m.kv_heads : g_m.heads) * hd, g_a.rope + i * g_a.rope_words,
             is_k ? F_KV : F_ATTN, PCCX_DMA_CLASS_ACTIVATIONS) != 0)
      return -1;
  }
  return 0;
}
/* ---- the steps of docs/models/decode-model.md ---- */

static uint32_t xs_vec(uint32_t s) {
  return g_a.xs + s * g_a.xs_stride + 1u;
}

static uint32_t xs_slot(uint32_t s) {
  return g_a.xs + s * g_a.xs_stride;
}

/* Entry 2 and 3: the other AltUp streams and the per-layer inputs. */
static int entry(void) {
  const uint32_t H = g_m.hidden, A = g_m.active;
  if (g_m.streams > 1u) {
    if (pccx_rms_value(&g_ws_h, xs_vec(A), g_a.me, H) != PCCX_OPS_OK)
      return fail_msg("RMS value failed", GD_EXIT_DMA);
    uint32_t j = 0;
    for (uint32_t s = 0; s < g_m.streams; ++s) {
      if (s == A) continue;
      if (gemv_matrix(&g_m.altup_proj[j++], g_a.t, xs_vec(A), F_D, W_HH) != 0) return -1;
      pccx_rmsnorm_ex(&g_ws_h, g_a.t, PCCX_OPS_NONE, xs_vec(s), H, g_a.me);
    }
  }
  if (g_m.ple_dim != 0u) {
    const uint32_t P = g_m.ple_dim;
    if (gemv_matrix(&g_m.ple_model_proj, g_a.pp, xs_vec(A), F_D, W_PLEM) != 0) return -1;
    if (load(g_m.ple_proj_norm, 2u * P, g_a.gamma_p, F_P, PCCX_DMA_CLASS_WEIGHTS) != 0) return -1;
    for (uint32_t i = 0; i < g_m.layers; ++i)
      pccx_rmsnorm_ex(&g_ws_p, g_a.pp + i * (P / 8u), g_a.gamma_p, g_a.pp + i * (P / 8u), P,
                      kw(K_INV_SQRT2));
    pccx_cvo_long(PCCX_CVO_ADD, g_a.pp, g_a.pli, g_m.layers * P, 0, 0);
  }
  return 0;
}

/* r_k of the router (1-row GEMVs: r_k in element 0 of word slot k), then
 * coefficient column k after it, then tanh. */
static int router(const gd_block_layer* ly, uint32_t x, uint32_t base, uint32_t stride,
                  uint64_t coefs, uint32_t col_words, uint8_t col_shape) {
  if (norm_h(ly->vectors[GD_V_ROUTER_NORM], x, g_a.rn) != 0) return -1;
  for (uint32_t k = 0; k < g_m.streams; ++k) {
    if (load(coefs + (uint64_t)k * col_words * 16u, col_words * 16u, base + k * stride + 1u,
             col_shape, PCCX_DMA_CLASS_WEIGHTS) != 0 ||
        stream_row(&ly->matrices[GD_ROUTER], k) != 0)
      return -1;
    uca_gemv(base + k * stride, g_a.rn, UCA_FLAG_W_SCALE, F_D, W_ROW, 0);
    uca_cvo(PCCX_CVO_TANH, base + k * stride, base + k * stride, 1u, 0, 0);
  }
  return 0;
}

/* coefs (n words) = sum_k r_k x column k. */
static void combine(uint32_t base, uint32_t stride, uint32_t n_words, uint32_t dst) {
  for (uint32_t k = 0; k < g_m.streams; ++k) {
    scale_after(base + k * stride, k == 0u ? dst : g_a.tw, 8u * n_words);
    if (k != 0u) uca_cvo(PCCX_CVO_ADD, g_a.tw, dst, (uint16_t)(8u * n_words), 0, 0);
  }
}

/* Layer step 1: pred[s] = xs[s] + sum_j c[s][j] xs[j]. */
static int predict(const gd_block_layer* ly) {
  const uint32_t S = g_m.streams, H = g_m.hidden;
  for (uint32_t s = 0; s < S; ++s)
    uca_memcpy(PCCX_ROUTE_L2_TO_L2, g_a.pred + s * g_a.wh, xs_vec(s), F_D, 0);
  if (S == 1u) return 0;
  if (router(ly, xs_vec(g_m.active), g_a.pr, g_a.pr_stride, ly->vectors[GD_V_PRED_COEFS], S * S,
             F_PRED) != 0)
    return -1;
  combine(g_a.pr, g_a.pr_stride, S * S, g_a.cc);
  for (uint32_t s = 0; s < S; ++s)
    for (uint32_t j = 0; j < S; ++j) {
      copy_word(xs_slot(j), g_a.cc + s * S + j);
      scale_after(xs_slot(j), g_a.t, H);
      uca_cvo(PCCX_CVO_ADD, g_a.t, g_a.pred + s * g_a.wh, (uint16_t)H, 0, 0);
    }
  return 0;
}

/* Layer step 8: xs[s] = pred[s] + (1 + sum_k Wc[s][k] r'_k) (y - pred[A]). */
static int correct(const gd_block_layer* ly, uint32_t y) {
  const uint32_t S = g_m.streams, H = g_m.hidden, A = g_m.active;
  if (S == 1u) {
    uca_memcpy(PCCX_ROUTE_L2_TO_L2, xs_vec(0), y, F_D, 0);
    return 0;
  }
  if (router(ly, y, g_a.cr, g_a.cr_stride, ly->vectors[GD_V_CORR_COEFS], S, F_CORR) != 0) return -1;
  combine(g_a.cr, g_a.cr_stride, S, g_a.cc2);
  uca_cvo(PCCX_CVO_ADD, g_a.ones_w, g_a.cc2, (uint16_t)(8u * S), 0, 0);
  /* delta = y - pred[A] in the vector after slot dl. */
  uca_memcpy(PCCX_ROUTE_L2_TO_L2, g_a.dl + 1u, g_a.pred + A * g_a.wh, F_D, 0);
  copy_word(g_a.dl, kw(K_NEG1));
  scale_after(g_a.dl, g_a.t, H);
  uca_cvo(PCCX_CVO_ADD, y, g_a.t, (uint16_t)H, 0, 0);
  uca_memcpy(PCCX_ROUTE_L2_TO_L2, g_a.dl + 1u, g_a.t, F_D, 0);
  for (uint32_t s = 0; s < S; ++s) {
    copy_word(g_a.dl, g_a.cc2 + s);
    scale_after(g_a.dl, xs_vec(s), H);
    uca_cvo(PCCX_CVO_ADD, g_a.pred + s * g_a.wh, xs_vec(s), (uint16_t)H, 0, 0);
  }
  return 0;
}

/* Layer step 9: the per-layer input into every stream but the active one. */
static int per_layer_input(const gd_block_layer* ly, uint32_t li) {
  const uint32_t S = g_m.streams, H = g_m.hidden, A = g_m.active, P = g_m.ple_dim;
  if (P == 0u) return 0;
  uca_memcpy(PCCX_ROUTE_L2_TO_L2, g_a.t, xs_vec(A), F_D, 0);
  if (S > 1u) {
    if (load_gamma(ly->vectors[GD_V_OUTPUT_SCALE]) != 0) return -1;
    uca_cvo(PCCX_CVO_MUL, g_a.gamma, g_a.t, (uint16_t)H, 0, 0);
  }
  if (gemv_matrix(&ly->matrices[GD_PLE_GATE], g_a.gp, g_a.t, F_D, W_PG) != 0) return -1;
  uca_cvo(UCA_CVO_GELU, g_a.gp, g_a.gp, (uint16_t)P, 0, 0);
  uca_cvo(PCCX_CVO_MUL, g_a.pli + li * (P / 8u), g_a.gp, (uint16_t)P, 0, 0);
  if (gemv_matrix(&ly->matrices[GD_PLE_PROJ], g_a.t2, g_a.gp, F_P, W_PP) != 0) return -1;
  if (norm_h(ly->vectors[GD_V_PLE_POST_NORM], g_a.t2, g_a.t2) != 0) return -1;
  for (uint32_t s = 0; s < S; ++s)
    if (s != A || S == 1u) uca_cvo(PCCX_CVO_ADD, g_a.t2, xs_vec(s), (uint16_t)H, 0, 0);
  return 0;
}

/* RoPE on n heads at `x`: x = x cos + rotate_half(x) sin (sin signed per
 * half in the table). `tables` is the cos table; sin follows it. */
static void rope(uint32_t x, uint32_t xr, uint32_t n, uint32_t tables) {
  const uint32_t hd = g_m.head_dim, hw = words_of(hd);
  for (uint32_t h = 0; h < n; ++h) {
    uca_memcpy(PCCX_ROUTE_L2_TO_L2, xr + h * hw, x + h * hw + hw / 2u, F_HALF, 0);
    uca_memcpy(PCCX_ROUTE_L2_TO_L2, xr + h * hw + hw / 2u, x + h * hw, F_HALF, 0);
  }
  pccx_cvo_long(PCCX_CVO_MUL, tables + g_a.rope_words, xr, n * hd, 0, 0);
  pccx_cvo_long(PCCX_CVO_MUL, tables, x, n * hd, 0, 0);
  pccx_cvo_long(PCCX_CVO_ADD, xr, x, n * hd, 0, 0);
}

/* Per-head RMSNorm over head_dim, in place (gamma in gamma_d, or none). */
static void head_norms(uint32_t x, uint32_t n, uint32_t gamma) {
  for (uint32_t h = 0; h < n; ++h)
    pccx_rmsnorm_ex(&g_ws_d, x + h * words_of(g_m.head_dim), gamma, x + h * words_of(g_m.head_dim),
                    g_m.head_dim, PCCX_OPS_NONE);
}

/* Sum of exps elements [a, a + n) into word dst: whole words with
 * REDUCE_SUM, a partial first or last word masked (the neighbouring head's
 * elements share it). */
static void span_sum(uint32_t a, uint32_t n, uint32_t dst) {
  const uint32_t b = a + n, aw = a / 8u, ar = a % 8u, bw = b / 8u, br = b % 8u;
  if (aw == bw) {
    copy_word(g_a.tw, g_a.exps + aw);
    uca_cvo(PCCX_CVO_MUL, g_a.masks + 8u + ar, g_a.tw, 8u, 0, 0);
    uca_cvo(PCCX_CVO_MUL, g_a.masks + br, g_a.tw, 8u, 0, 0);
    uca_cvo(UCA_CVO_REDUCE_SUM, g_a.tw, dst, 8u, 0, 0);
    return;
  }
  const uint32_t first = ar != 0u ? aw + 1u : aw;
  if (bw > first)
    pccx_reduce_sum_long(g_a.exps + first, 8u * (bw - first), dst, 0);
  else
    copy_word(dst, kw(K_ZERO));
  const uint32_t part_word[2] = {aw, bw}, mask[2] = {g_a.masks + 8u + ar, g_a.masks + br};
  const int present[2] = {ar != 0u, br != 0u};
  for (int i = 0; i < 2; ++i) {
    if (!present[i]) continue;
    copy_word(g_a.tw, g_a.exps + part_word[i]);
    uca_cvo(PCCX_CVO_MUL, mask[i], g_a.tw, 8u, 0, 0);
    uca_cvo(UCA_CVO_REDUCE_SUM, g_a.tw, dst, 8u, UCA_CVO_FLAG_ACCM, 0);
  }
}

static int attention(const gd_block_layer* ly, uint32_t head, uint32_t q) {
  const uint32_t G = g_m.heads / g_m.kv_heads, hd = g_m.head_dim;
  const pccx_kv_handle* h = &g_m.kv[ly->ring];
  const uint32_t span = pccx_kv_valid_tokens(h);
  /* Scores: G query heads against the key stream of this KV head. */
  if (stream_kv(h, ly->ring_index, head, PCCX_KV_K) != 0) return -1;
  uca_gemv(g_a.scores, q + head * words_of(G * hd), UCA_FLAG_FINDEMAX | GEMV_KEY_ROWS, F_KEYS,
           W_KEYS, HEAD_PARALLEL);
  pccx_cvo_long(UCA_CVO_EXP, g_a.scores, g_a.exps, G * span, UCA_CVO_FLAG_SUB_EMAX, 0);
  for (uint32_t m = 0; m < G; ++m) span_sum(m * span, span, g_a.z + m * g_a.z_stride);
  /* Outputs: the exponentials weight the value stream. */
  if (stream_kv(h, ly->ring_index, head, PCCX_KV_V) != 0) return -1;
  uca_gemv(g_a.out, g_a.exps, GEMV_VALUE_ACC, F_PROBS, W_VALUES, HEAD_PARALLEL);
  for (uint32_t m = 0; m < G; ++m) {
    const uint32_t z = g_a.z + m * g_a.z_stride;
    uca_memcpy(PCCX_ROUTE_L2_TO_L2, z + 1u, g_a.out + m * words_of(hd), F_HD, 0);
    uca_cvo(UCA_CVO_SCALE, z, g_a.attn + (head * G + m) * words_of(hd), (uint16_t)hd,
            UCA_CVO_FLAG_RECIP_SCALE, 0);
  }
  return 0;
}
/* With GD_F_PART_STARTS: "decode: token <t> part <name> from <seq>", the
 * sequence number of the part's first instruction. */
static void part_start(uint32_t t, const char* name, uint32_t index, int with_index) {
  if (!(g_m.flags & GD_F_PART_STARTS)) return;
  pccx_line l;
  start(&l, "token ");
  pccx_line_dec(&l, t);
  pccx_line_str(&l, " part ");
  pccx_line_str(&l, name);
  if (with_index) pccx_line_dec(&l, index);
  pccx_line_str(&l, " from ");
  pccx_line_dec(&l, pccx_npu_issued());
  pccx_simctl_print(l.text);
}

static int layer(uint32_t li) {
  const gd_block_layer* ly = &g_layers[li];
  const uint32_t G = g_m.heads / g_m.kv_heads, hd = g_m.head_dim, H = g_m.hidden;
  const uint32_t span = pccx_kv_valid_tokens(&g_m.kv[ly->ring]);
  const int qk = (g_m.flags & GD_F_QK_NORM) != 0u;
  const uint32_t x = g_a.pred + g_m.active * g_a.wh;
  uca_memset(0, F_PROBS, 1, (uint16_t)G, (uint16_t)span);
  uca_memset(1, W_KEYS, (uint16_t)G, (uint16_t)span, (uint16_t)hd);
  uca_memset(1, W_VALUES, (uint16_t)G, (uint16_t)hd, (uint16_t)span);

  if (predict(ly) != 0) return -1;
  if (norm_h(ly->vectors[GD_V_INPUT_NORM], x, g_a.xn) != 0) return -1;
  if (g_m.laurel != 0u) {
    if (gemv_matrix(&ly->matrices[GD_LAUREL_LEFT], g_a.lt, g_a.xn, F_D, W_LL) != 0 ||
        gemv_matrix(&ly->matrices[GD_LAUREL_RIGHT], g_a.lau, g_a.lt, F_R, W_LR) != 0 ||
        norm_h(ly->vectors[GD_V_LAUREL_NORM], g_a.lau, g_a.lau) != 0)
      return -1;
    uca_cvo(PCCX_CVO_ADD, g_a.xn, g_a.lau, (uint16_t)H, 0, 0);
  }

  /* Q (norm, RoPE, scale in the tables), K and V of a storing layer. */
  const uint32_t tables = g_a.rope + (ly->global ? 2u : 0u) * g_a.rope_words;
  const uint32_t k_tables = g_m.q_scale != 1.0f ? tables + 4u * g_a.rope_words : tables;
  if (gemv_matrix(&ly->matrices[GD_Q], g_a.q, g_a.xn, F_D, W_Q) != 0) return -1;
  if (qk) {
    if (load(ly->vectors[GD_V_Q_NORM], 2u * hd, g_a.gamma_d, F_HD, PCCX_DMA_CLASS_WEIGHTS) != 0)
      return -1;
    head_norms(g_a.q, g_m.heads, g_a.gamma_d);
  }
  rope(g_a.q, g_a.qr, g_m.heads, tables);
  if (ly->stores_kv) {
    if (gemv_matrix(&ly->matrices[GD_K], g_a.k_, g_a.xn, F_D, W_KV) != 0 ||
        gemv_matrix(&ly->matrices[GD_V], g_a.v, g_a.xn, F_D, W_KV) != 0)
      return -1;
    if (qk) {
      if (load(ly->vectors[GD_V_K_NORM], 2u * hd, g_a.gamma_d, F_HD, PCCX_DMA_CLASS_WEIGHTS) != 0)
        return -1;
      head_norms(g_a.k_, g_m.kv_heads, g_a.gamma_d);
    }
    rope(g_a.k_, g_a.kr, g_m.kv_heads, k_tables);
    if (g_m.flags & GD_F_V_NORM) head_norms(g_a.v, g_m.kv_heads, PCCX_OPS_NONE);
    const pccx_kv_handle* h = &g_m.kv[ly->ring];
    for (uint32_t head = 0; head < g_m.kv_heads; ++head)
      for (int is_v = 0; is_v < 2; ++is_v) {
        uint64_t slot = 0;
        if (pccx_kv_append_slot(h, ly->ring_index, head, is_v, &slot) != PCCX_KV_OK)
          return fail_msg("no append slot", GD_EXIT_KV);
        const uint32_t bytes = is_v ? h->v_record_bytes : h->k_record_bytes;
        if (submit(PCCX_DMA_ACP_RESULT, slot, bytes, PCCX_DMA_CLASS_KV_WRITE) != 0) return -1;
        uca_memcpy(PCCX_ROUTE_KV_APPEND, (uint32_t)is_v,
                   (is_v ? g_a.v : g_a.k_) + head * words_of(hd), F_HD, 0);
      }
  }
  /* Rotated KV: the records hold H k / sqrt(d); rotate the queries the
   * same way, and rotate the outputs back (H / sqrt(d) is its own inverse). */
  uint32_t q = g_a.q;
  if (g_m.flags & GD_F_ROTATED_K) {
    if (gemv_matrix(&g_m.rotation, g_a.qrot, g_a.q, F_ATTN, W_ROT) != 0) return -1;
    q = g_a.qrot;
  }
  for (uint32_t head = 0; head < g_m.kv_heads; ++head)
    if (attention(ly, head, q) != 0) return -1;
  uint32_t attn = g_a.attn;
  if (g_m.flags & GD_F_ROTATED_V) {
    if (gemv_matrix(&g_m.rotation, g_a.attn2, g_a.attn, F_ATTN, W_ROT) != 0) return -1;
    attn = g_a.attn2;
  }
  /* a = x + norm(W_o attn), with LAuReL (a + lau) / sqrt(2). */
  const uint32_t a = g_a.ao + 1u;
  if (gemv_matrix(&ly->matrices[GD_O], a, attn, F_ATTN, W_O) != 0 ||
      norm_h(ly->vectors[GD_V_POST_ATTN_NORM], a, a) != 0)
    return -1;
  uca_cvo(PCCX_CVO_ADD, x, a, (uint16_t)H, 0, 0);
  uint32_t ffn_in = a;
  if (g_m.laurel != 0u) {
    uca_cvo(PCCX_CVO_ADD, g_a.lau, a, (uint16_t)H, 0, 0);
    copy_word(g_a.ao, kw(K_INV_SQRT2));
    scale_after(g_a.ao, g_a.a, H);
    ffn_in = g_a.a;
  }

  /* FFN, with the gaussian cutoff on a sparse layer. */
  if (norm_h(ly->vectors[GD_V_PRE_FFN_NORM], ffn_in, g_a.xn) != 0) return -1;
  uca_memset(0, F_FFN, 1, 1, (uint16_t)ly->ffn);
  uca_memset(1, W_UP, 1, (uint16_t)ly->ffn, (uint16_t)H);
  uca_memset(1, W_DOWN, 1, (uint16_t)H, (uint16_t)ly->ffn);
  if (gemv_matrix(&ly->matrices[GD_GATE], g_a.gate, g_a.xn, F_D, W_UP) != 0 ||
      gemv_matrix(&ly->matrices[GD_UP], g_a.up, g_a.xn, F_D, W_UP) != 0)
    return -1;
  if (ly->sparse_ffn) {
    const uint32_t sp = g_a.sp, n = ly->ffn;
    uint16_t inv[8] = {pccx_bf16_from_float(1.0f / (float)n), 0, 0, 0, 0, 0, 0, 0};
    pccx_host_write(g_m.scratch + S_INV_N, inv, 16u);
    if (load(g_m.scratch + S_INV_N, 16u, sp, F_WORD, PCCX_DMA_CLASS_ACTIVATIONS) != 0) return -1;
    pccx_reduce_sum_long(g_a.gate, n, sp + 1u, 0);
    uca_memcpy(PCCX_ROUTE_L2_TO_L2, g_a.sq, g_a.gate, F_FFN, 0);
    pccx_cvo_long(PCCX_CVO_MUL, g_a.gate, g_a.sq, n, 0, 0);
    pccx_reduce_sum_long(g_a.sq, n, sp + 2u, 0);
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
    repeat_onto(PCCX_CVO_ADD, g_a.bc_out, g_a.gate, n);
    pccx_cvo_long(PCCX_CVO_MAX, g_a.gate, g_a.gate, n, 0, 0);
  }
  pccx_cvo_long(UCA_CVO_GELU, g_a.gate, g_a.gate, ly->ffn, 0, 0);
  pccx_cvo_long(PCCX_CVO_MUL, g_a.gate, g_a.up, ly->ffn, 0, 0);
  if (gemv_matrix(&ly->matrices[GD_DOWN], g_a.t2, g_a.up, F_FFN, W_DOWN) != 0 ||
      norm_h(ly->vectors[GD_V_POST_FFN_NORM], g_a.t2, g_a.t2) != 0)
    return -1;
  uca_cvo(PCCX_CVO_ADD, ffn_in, g_a.t2, (uint16_t)H, 0, 0);

  if (correct(ly, g_a.t2) != 0) return -1;
  return per_layer_input(ly, li);
}

/* Exit 1 and 2 up to the final norm: xn = norm(mean of the streams). */
static int exit_streams(void) {
  const uint32_t S = g_m.streams, H = g_m.hidden, A = g_m.active;
  uint32_t y = xs_vec(0);
  if (S > 1u) {
    pccx_rms_value(&g_ws_h, xs_vec(A), g_a.me, H);
    uca_memcpy(PCCX_ROUTE_L2_TO_L2, g_a.acc + 1u, xs_vec(A), F_D, 0);
    uint32_t j = 0;
    for (uint32_t s = 0; s < S; ++s) {
      if (s == A) continue;
      if (gemv_matrix(&g_m.altup_unproj[j++], g_a.t, xs_vec(s), F_D, W_HH) != 0) return -1;
      pccx_rmsnorm_ex(&g_ws_h, g_a.t, PCCX_OPS_NONE, g_a.t, H, g_a.me);
      uca_cvo(PCCX_CVO_ADD, g_a.t, g_a.acc + 1u, (uint16_t)H, 0, 0);
    }
    copy_word(g_a.acc, kw(K_INV_S));
    scale_after(g_a.acc, g_a.yb, H);
    y = g_a.yb;
  }
  return norm_h(g_m.final_norm, y, g_a.xn);
}

static int lm_head(uint32_t token) {
  const uint64_t logits = g_m.logits + (uint64_t)token * g_m.logits_stride;
  const int softcap = g_m.softcap != 0.0f;
  for (uint32_t t = 0; t < g_a.tiles; ++t) {
    const uint32_t r0 = t * g_m.lm_tile;
    const uint32_t rows = g_m.vocab - r0 < g_m.lm_tile ? g_m.vocab - r0 : g_m.lm_tile;
    const int last = rows != g_m.lm_tile;
    const uint32_t s = g_a.logits + t * g_a.tile_stride;
    if (stream_rows(&g_m.lm, r0, rows) != 0) return -1;
    uca_gemv(s + 1u, g_a.xn, UCA_FLAG_W_SCALE, F_D, last ? W_TILE_LAST : W_TILE, 0);
    if (softcap) { /* c tanh(x / c); the word s holds c */
      uca_cvo(UCA_CVO_SCALE, s, s + 1u, (uint16_t)rows, UCA_CVO_FLAG_RECIP_SCALE, 0);
      uca_cvo(PCCX_CVO_TANH, s + 1u, s + 1u, (uint16_t)rows, 0, 0);
      uca_cvo(UCA_CVO_SCALE, s, s + 1u, (uint16_t)rows, 0, 0);
    }
    if (submit(PCCX_DMA_ACP_RESULT, logits + 2ull * r0, 2u * rows, PCCX_DMA_CLASS_ACTIVATIONS) != 0)
      return -1;
    uca_memcpy(UCA_ROUTE_L2_TO_HOST, 0, s + 1u, last ? F_TILE_LAST : F_TILE, 0);
  }
  return 0;
}

static int finish_token(void) {
  const int rc = uca_sync(SYNC_TIMEOUT_US);
  if (rc == PCCX_SYNC_NPU_ERROR) {
    pccx_npu_error err;
    (void)pccx_npu_read_error(&err);
    pccx_line l;
    start(&l, "NPU error ");
    pccx_line_dec(&l, err.code);
    pccx_line_str(&l, " on instruction #");
    pccx_line_dec(&l, err.sequence);
    return fail(&l, GD_EXIT_NPU_ERROR);
  }
  if (rc != 0) return fail_msg("uca_sync timed out", GD_EXIT_TIMEOUT);
  return drain_all();
}
static int bad_block(const char* what) {
  pccx_line l;
  start(&l, "bad parameter block: ");
  pccx_line_str(&l, what);
  return fail(&l, GD_EXIT_BAD_BLOCK);
}

static int parse(const uint8_t* b, uint32_t bytes) {
  gd_block_header h;
  if (bytes < sizeof h) return bad_block("magic or size");
  copy_in(&h, b, sizeof h);
  if (h.magic != GD_MAGIC || h.bytes != bytes) return bad_block("magic or size");
  g_m.layers = h.layers;
  g_m.hidden = h.hidden;
  g_m.heads = h.heads;
  g_m.kv_heads = h.kv_heads;
  g_m.head_dim = h.head_dim;
  g_m.vocab = h.vocab;
  g_m.tokens = h.tokens;
  g_m.context = h.context;
  g_m.lm_tile = h.lm_tile;
  g_m.rings = h.rings;
  g_m.eps = h.eps;
  g_m.flags = h.flags;
  g_m.scratch = h.scratch;
  g_m.logits = h.logits;
  g_m.embed_table = h.embedding;
  g_m.final_norm = h.final_norm;
  g_m.lm = h.lm_head;
  g_m.streams = h.streams;
  g_m.active = h.active_stream;
  g_m.ple_dim = h.ple_dim;
  g_m.laurel = h.laurel_rank;
  g_m.ple_vocab = h.ple_vocab;
  g_m.sparse_layers = h.sparse_ffn_layers;
  g_m.z = h.cutoff_z;
  g_m.softcap = h.final_softcap;
  g_m.q_scale = h.q_scale;
  g_m.table_format = h.table_format;
  g_m.table_group = h.table_scale_group;
  g_m.table_row_bytes = h.table_row_bytes;
  g_m.ple_table = h.ple_table;
  g_m.ple_proj_norm = h.ple_proj_norm;
  g_m.weight_group = h.weight_scale_group;
  g_m.weight_scales = h.weight_scales;
  g_m.ple_model_proj = h.ple_model_proj;
  g_m.rotation = h.rotation;
  const uint32_t off_altup = h.altup_offset, off_layers = h.layers_offset;
  const uint32_t off_tokens = h.tokens_offset, off_rope = h.rope_offset;
  g_m.logits_stride = h.logits_stride;
  g_m.wf = h.weight_streams;
  g_m.l2_words = h.l2_words;
  if (g_m.l2_words == 0u) g_m.l2_words = GD_L2_WORDS_DEFAULT;
  for (uint32_t f = 0; f < GD_MAX_WEIGHT_STREAMS; ++f) g_m.wch[f] = h.weight_channels[f];
  const uint32_t hd = g_m.head_dim, S = g_m.streams;
  if (g_m.layers == 0u || g_m.layers > GD_MAX_LAYERS || g_m.kv_heads == 0u ||
      g_m.heads % g_m.kv_heads != 0u || hd % 16u != 0u || hd > GD_MAX_HEAD_DIM ||
      g_m.hidden % 8u != 0u || g_m.hidden == 0u || g_m.hidden > CVO_MAX ||
      g_m.heads * hd > ROPE_TABLE_MAX || g_m.lm_tile == 0u || g_m.lm_tile % 8u != 0u ||
      g_m.lm_tile > CVO_MAX || g_m.rings == 0u || g_m.rings > 2u || g_m.tokens > GD_MAX_TOKENS ||
      g_m.vocab == 0u || g_m.wf == 0u || g_m.wf > GD_MAX_WEIGHT_STREAMS ||
      g_m.lm_tile % g_m.wf != 0u)
    return bad_block("dimensions");
  for (uint32_t f = 0; f < g_m.wf; ++f)
    if (g_m.wch[f] >= PCCX_DMA_CHANNELS) return bad_block("weight stream channels");
  if (S == 0u || S > GD_MAX_STREAMS || g_m.active >= S || g_m.ple_dim % 8u != 0u ||
      g_m.ple_dim > CVO_MAX || g_m.layers * g_m.ple_dim > SHAPE_MAX || g_m.laurel > SHAPE_MAX ||
      g_m.table_format > 2u || g_m.table_row_bytes > sizeof g_row ||
      g_m.lm.record_bytes > sizeof g_row || (g_m.ple_dim != 0u && g_m.ple_vocab == 0u))
    return bad_block("AltUp, per-layer input or LAuReL fields");
  if ((g_m.flags &
       ~(GD_F_QK_NORM | GD_F_V_NORM | GD_F_ROTATED_K | GD_F_ROTATED_V | GD_F_PART_STARTS)) != 0u ||
      ((g_m.flags & (GD_F_ROTATED_K | GD_F_ROTATED_V)) && g_m.rotation.rows != hd))
    return bad_block("flags");
  if (off_altup != sizeof(gd_block_header) ||
      off_layers != off_altup + 2u * (S - 1u) * sizeof(gd_block_matrix) ||
      off_tokens != off_layers + g_m.layers * sizeof(gd_block_layer) ||
      off_rope != off_tokens + g_m.tokens * sizeof(uint32_t) ||
      bytes != off_rope + hd * sizeof(float))
    return bad_block("section offsets");
  for (uint32_t j = 0; j + 1u < S; ++j) {
    copy_in(&g_m.altup_proj[j], b + off_altup + j * sizeof(gd_block_matrix),
            sizeof(gd_block_matrix));
    copy_in(&g_m.altup_unproj[j], b + off_altup + (S - 1u + j) * sizeof(gd_block_matrix),
            sizeof(gd_block_matrix));
  }
  g_m.token_ids = b + off_tokens;
  g_m.inv_freq = b + off_rope;
  for (uint32_t t = 0; t < g_m.tokens; ++t)
    if (token_id(t) >= g_m.vocab) return bad_block("a token id >= vocab");
  for (uint32_t r = 0; r < g_m.rings; ++r) {
    const gd_block_ring* g = &h.ring[r];
    pccx_kv_handle* kv = &g_m.kv[r];
    pccx_kv_configure(kv, g->layers, g_m.kv_heads, g->k_record_bytes, g->v_record_bytes, g->base,
                      g->bytes);
    if (pccx_kv_set_sinks(kv, g->sinks) != PCCX_KV_OK || g->reserved != 0u ||
        pccx_kv_init(kv, g->max_tokens) != PCCX_KV_OK)
      return fail_msg("KV ring configuration refused", GD_EXIT_KV);
    /* The ring already holds the context: the write position is advanced
     * directly (no prefill is simulated). */
    kv->appended = g_m.context;
  }
  for (uint32_t l = 0; l < g_m.layers; ++l) {
    gd_block_layer* ly = &g_layers[l];
    copy_in(ly, b + off_layers + l * sizeof *ly, sizeof *ly);
    if (ly->ring >= g_m.rings || ly->ffn == 0u || ly->ffn > SHAPE_MAX ||
        (S > 1u && ly->matrices[GD_ROUTER].rows != S))
      return bad_block("a layer record");
  }
  return 0;
}

/* Constants, masks and the ones vector, once per run. */
static int stage_constants(void) {
  static uint16_t w[2048];
  for (uint32_t i = 0; i < 2048u; ++i) w[i] = 0u;
  const float values[K_WORDS] = {1.0f,  -1.0f,      0.0f, 0.70710678f, 1.0f / (float)g_m.streams,
                                 g_m.z, g_m.softcap};
  for (uint32_t i = 0; i < K_WORDS; ++i) w[8u * i] = pccx_bf16_from_float(values[i]);
  pccx_host_write(g_m.scratch + S_CONSTS, w, 16u * K_WORDS);
  for (uint32_t i = 0; i < 128u; ++i) w[i] = i % 8u == 0u ? pccx_bf16_from_float(1.0f) : 0u;
  pccx_host_write(g_m.scratch + S_ONES_W, w, 16u * 16u);
  for (uint32_t r = 0; r < 8u; ++r)
    for (uint32_t e = 0; e < 8u; ++e) {
      w[8u * r + e] = e < r ? pccx_bf16_from_float(1.0f) : 0u;
      w[64u + 8u * r + e] = e >= r ? pccx_bf16_from_float(1.0f) : 0u;
    }
  pccx_host_write(g_m.scratch + S_MASKS, w, 16u * 16u);
  for (uint32_t i = 0; i < 2048u; ++i) w[i] = pccx_bf16_from_float(1.0f);
  pccx_host_write(g_m.scratch + S_ONES, w, 4096u);
  if (load(g_m.scratch + S_CONSTS, 16u * K_WORDS, g_a.k, F_K16, PCCX_DMA_CLASS_HOST) != 0 ||
      load(g_m.scratch + S_ONES_W, 256u, g_a.ones_w, F_K16, PCCX_DMA_CLASS_HOST) != 0 ||
      load(g_m.scratch + S_MASKS, 256u, g_a.masks, F_K16, PCCX_DMA_CLASS_HOST) != 0 ||
      load(g_m.scratch + S_ONES, 4096u, g_a.bc_slot + 1u, F_ONES, PCCX_DMA_CLASS_HOST) != 0)
    return -1;
  for (uint32_t t = 0; t < g_a.tiles; ++t)
    copy_word(g_a.logits + t * g_a.tile_stride, kw(K_SOFTCAP));
  return 0;
}

static void set_shapes(void) {
  const uint32_t H = g_m.hidden, hd = g_m.head_dim, G = g_m.heads / g_m.kv_heads;
  const uint32_t nq = g_m.heads * hd, nkv = g_m.kv_heads * hd, S = g_m.streams;
  const uint32_t P = g_m.ple_dim, R = g_m.laurel, LP = g_m.layers * P;
  const uint32_t last_rows = g_m.vocab - (g_a.tiles - 1u) * g_m.lm_tile;
  uca_memset(0, F_D, 1, 1, (uint16_t)H);
  uca_memset(0, F_ATTN, 1, 1, (uint16_t)nq);
  uca_memset(0, F_HD, 1, 1, (uint16_t)hd);
  uca_memset(0, F_KEYS, 1, 1, (uint16_t)(G * hd));
  uca_memset(0, F_TILE, 1, 1, (uint16_t)g_m.lm_tile);
  uca_memset(0, F_TILE_LAST, 1, 1, (uint16_t)last_rows);
  uca_memset(0, F_WORD, 1, 1, 8);
  uca_memset(0, F_HALF, 1, 1, (uint16_t)(hd / 2u));
  uca_memset(0, F_K16, 1, 1, 128);
  uca_memset(0, F_ONES, 1, 1, (uint16_t)CVO_MAX);
  uca_memset(0, F_KV, 1, 1, (uint16_t)nkv);
  uca_memset(1, W_Q, 1, (uint16_t)nq, (uint16_t)H);
  uca_memset(1, W_KV, 1, (uint16_t)nkv, (uint16_t)H);
  uca_memset(1, W_O, 1, (uint16_t)H, (uint16_t)nq);
  uca_memset(1, W_TILE, 1, (uint16_t)g_m.lm_tile, (uint16_t)H);
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
  if (g_m.flags & (GD_F_ROTATED_K | GD_F_ROTATED_V))
    uca_memset(1, W_ROT, (uint16_t)g_m.heads, (uint16_t)hd, (uint16_t)hd);
}

static int prepare(pccx_rmsnorm_ws* ws, uint32_t first, uint8_t slot, uint32_t scratch,
                   uint32_t n) {
  ws->first = first;
  ws->shape_slot = slot;
  ws->ddr = g_m.scratch + scratch;
  ws->n = 0u;
  if (pccx_rmsnorm_prepare(ws, n, (uint16_t)g_m.eps) != PCCX_OPS_OK)
    return fail_msg("RMSNorm constants could not be staged", GD_EXIT_DMA);
  return 0;
}

int pccx_gemma_decode_run(const uint8_t* block, uint32_t bytes) {
  if (uca_init() != 0) return fail_msg("NPU does not answer", GD_EXIT_NO_NPU);
  for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch) {
    g_outstanding[ch] = 0u;
    g_class[ch] = PCCX_DMA_CLASS_LAST + 1u;
  }
  if (parse(block, bytes) != 0) return GD_EXIT_BAD_BLOCK;

  uint32_t ffn_max = 0, span_max = 0;
  int any_sparse = 0;
  for (uint32_t l = 0; l < g_m.layers; ++l) {
    if (g_layers[l].ffn > ffn_max) ffn_max = g_layers[l].ffn;
    any_sparse |= g_layers[l].sparse_ffn != 0u;
  }
  for (uint32_t r = 0; r < g_m.rings; ++r)
    if (pccx_kv_max_tokens(&g_m.kv[r]) > span_max) span_max = pccx_kv_max_tokens(&g_m.kv[r]);
  const gd_l2_shape shape = {g_m.hidden, g_m.heads,   g_m.kv_heads, g_m.head_dim, g_m.streams,
                             g_m.layers, g_m.ple_dim, g_m.laurel,   g_m.vocab,    g_m.lm_tile,
                             ffn_max,    span_max,    any_sparse};
  if (gd_plan_l2(&shape, &g_a) > g_m.l2_words || span_max > SHAPE_MAX)
    return fail_msg("the activations do not fit L2 (or an attention span exceeds 65535)",
                    GD_EXIT_L2_FIT);
  /* Every RMSNorm is over hidden, head_dim or P elements: stage each
   * length's 1/n and eps once, so no norm waits for the NPU. */
  if (prepare(&g_ws_h, g_a.ws_h, F_RMS, S_WS_H, g_m.hidden) != 0) return GD_EXIT_DMA;
  if ((g_m.flags & (GD_F_QK_NORM | GD_F_V_NORM)) &&
      prepare(&g_ws_d, g_a.ws_d, F_RMS_D, S_WS_D, g_m.head_dim) != 0)
    return GD_EXIT_DMA;
  if (g_m.ple_dim != 0u && prepare(&g_ws_p, g_a.ws_p, F_RMS_P, S_WS_P, g_m.ple_dim) != 0)
    return GD_EXIT_DMA;
  set_shapes();
  if (stage_constants() != 0 || finish_token() != 0) return GD_EXIT_DMA;

  for (uint32_t t = 0; t < g_m.tokens; ++t) {
    marker2("token ", t, "", 0, 0);
    const uint64_t t0 = pccx_simctl_time_ns(), i0 = pccx_npu_retired();
    const uint32_t pos = g_m.kv[0].appended;
    uint64_t kv_tokens = 0;
    for (uint32_t r = 0; r < g_m.rings; ++r) {
      if (pccx_kv_append_token(&g_m.kv[r], 0) != PCCX_KV_OK)
        return fail_msg("KV append refused", GD_EXIT_KV);
      kv_tokens += pccx_kv_valid_tokens(&g_m.kv[r]);
    }
    pccx_simctl_counter("kv tokens", kv_tokens);
    part_start(t, "entry", 0, 0);
    if (stage_token(token_id(t), pos) != 0 || entry() != 0) return GD_EXIT_DMA;
    for (uint32_t l = 0; l < g_m.layers; ++l) {
      marker2("token ", t, " layer ", l, 1);
      part_start(t, "layer ", l, 1);
      if (layer(l) != 0) return GD_EXIT_DMA;
    }
    marker2("token ", t, " exit", 0, 0);
    part_start(t, "exit", 0, 0);
    if (exit_streams() != 0 || lm_head(t) != 0) return GD_EXIT_DMA;
    part_start(t, "end", 0, 0);
    if (finish_token() != 0) return GD_EXIT_TIMEOUT;
    const uint64_t t1 = pccx_simctl_time_ns(), i1 = pccx_npu_retired();
    marker2("token ", t, " end", 0, 0);
    pccx_line l;
    start(&l, "token ");
    pccx_line_dec(&l, t);
    pccx_line_str(&l, " latency_ns ");
    pccx_line_dec(&l, t1 - t0);
    pccx_line_str(&l, " instructions ");
    pccx_line_dec(&l, i1 - i0);
    pccx_simctl_print(l.text);
  }
  uca_deinit();
  return 0;
}

int pccx_firmware_main(void) {
  static uint8_t block[GD_MAX_BLOCK];
  gd_block_header h;
  /* The magic and the size first. */
  pccx_host_read(GD_PARAM_ADDR_DEFAULT, &h, (uint32_t)offsetof(gd_block_header, layers));
  const uint32_t bytes = h.bytes;
  if (h.magic != GD_MAGIC || bytes < sizeof h || bytes > GD_MAX_BLOCK)
    return fail_msg("no parameter block at 0x10000000", GD_EXIT_BAD_BLOCK);
  pccx_host_read(GD_PARAM_ADDR_DEFAULT, block, bytes);
  return pccx_gemma_decode_run(block, bytes);
}
