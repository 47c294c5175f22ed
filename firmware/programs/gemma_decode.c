/* gemma_decode: the decode core (attention + matrices) of a Gemma-style
 * model on the NPU, N tokens after a context of L tokens.
 *
 * Per token, per layer: RMSNorm, GEMV Q (and K, V on the layers that store
 * K/V, then the MEMCPY kv-append of every KV head into its ring slot),
 * attention per KV head for its query heads together (GEMV key rows with
 * findemax, EXP with sub_emax, REDUCE_SUM per head, GEMV value accumulate on
 * the unnormalised exponentials, SCALE of each head's outputs by 1/sum),
 * GEMV O, residual ADD, RMSNorm, GEMV gate and up, GELU, MUL, GEMV down,
 * residual ADD. After the layers: RMSNorm, the LM head in tiles of lm_tile
 * rows, the softcap c tanh(x / c) as SCALE (1/c), TANH, SCALE (c), and the
 * logits to DDR. AltUp, LAuReL, the per-layer inputs, the QK/V norms, RoPE,
 * the post-attention and post-FFN norms and the FFN sparsity are not issued
 * (docs/decode.md lists the consequences).
 *
 * Weight streams: each matrix's even-row half on HP2, odd-row half on HP3,
 * CLASS weights. K/V streams: pccx_kv_submit_stream_split over HP2 + HP3,
 * CLASS kv_read. Appends: ACP_RESULT, CLASS kv_write. Norm weights and the
 * RMSNorm constants: ACP_FMAP, CLASS weights. Logits: ACP_RESULT, CLASS
 * activations. The softcap scalar words are loaded once before the first
 * token (ACP_FMAP, CLASS host).
 *
 * Markers: "decode: token <t>" and "decode: token <t> end" around each
 * token (the end after uca_sync and every DMA status), "decode: token <t>
 * layer <l>" and "decode: token <t> exit" as the layers are issued. Per
 * token it prints "decode: token <t> latency_ns <ns> instructions <n>". */
#include <stdint.h>

#include "pccx_dma.h"
#include "pccx_firmware.h"
#include "pccx_gemma_decode.h"
#include "pccx_host_mem.h"
#include "pccx_isa.h"
#include "pccx_kv.h"
#include "pccx_ops.h"
#include "pccx_simctl.h"
#include "pccx_uca_ext.h"
#include "uCA_v1_api.h"

#define L2_WORDS 114688u
#define L2_BASE 0x100u
#define CVO_MAX 2048u
#define SHAPE_MAX 65535u
#define SYNC_TIMEOUT_US 2000000000u
#define STATUS_POLLS 200000000u
#define OUTSTANDING_MAX 4u
#define HEAD_PARALLEL 0x10u /* parallel_lane bit 4, all cores */
#define GEMV_KEY_ROWS 1u
#define GEMV_VALUE_ACC 2u

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

typedef struct {
  uint64_t even, odd;
  uint32_t rows, cols, rec, even_bytes, odd_bytes;
} gd_matrix;

typedef struct {
  uint32_t ffn, ring, ring_index, stores;
  uint64_t input_norm, pre_ffn_norm;
  gd_matrix m[7];
} gd_layer;

typedef struct {
  uint32_t layers, hidden, heads, kv_heads, head_dim, vocab, tokens, context, lm_tile, rings, eps;
  uint64_t scratch, logits, consts, final_norm;
  gd_matrix lm;
  pccx_kv_handle kv[2];
} gd_model;

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

static uint32_t le32(const uint8_t* p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint64_t le64(const uint8_t* p) {
  return (uint64_t)le32(p) | ((uint64_t)le32(p + 4) << 32);
}

static uint32_t words_of(uint32_t elements) {
  return (elements + 7u) / 8u;
}

static void read_matrix(const uint8_t* p, gd_matrix* m) {
  m->even = le64(p);
  m->odd = le64(p + 8);
  m->rows = le32(p + 16);
  m->cols = le32(p + 20);
  m->rec = le32(p + 24);
  m->even_bytes = le32(p + 28);
  m->odd_bytes = le32(p + 32);
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

/* Rows [r0, r0 + n) of a matrix (r0 even): even rows from the even half on
 * HP2, odd rows from the odd half on HP3. */
static int stream_rows(const gd_matrix* m, uint32_t r0, uint32_t n) {
  const uint64_t off = (uint64_t)(r0 / 2u) * m->rec;
  const uint32_t even = (n + 1u) / 2u, odd = n / 2u;
  if (submit(PCCX_DMA_HP2, m->even + off, even * m->rec, PCCX_DMA_CLASS_WEIGHTS) != 0) return -1;
  if (odd != 0u && submit(PCCX_DMA_HP3, m->odd + off, odd * m->rec, PCCX_DMA_CLASS_WEIGHTS) != 0)
    return -1;
  return 0;
}

/* One KV stream (layer, head, K|V) split over HP2 + HP3. */
static int stream_kv(const pccx_kv_handle* h, uint32_t index, uint32_t head, int is_value) {
  static const unsigned channels[2] = {PCCX_DMA_HP2, PCCX_DMA_HP3};
  unsigned pushed[2] = {0u, 0u};
  if (make_room(PCCX_DMA_HP2, 2u) != 0 || make_room(PCCX_DMA_HP3, 2u) != 0) return -1;
  const int64_t r = pccx_kv_submit_stream_split(h, index, head, is_value, channels, 2u, 1u, pushed);
  if (r < 0) return fail_msg(pccx_kv_strerror((int)r), GD_EXIT_KV);
  g_class[PCCX_DMA_HP2] = g_class[PCCX_DMA_HP3] = PCCX_DMA_CLASS_KV_READ;
  g_outstanding[PCCX_DMA_HP2] += pushed[0];
  g_outstanding[PCCX_DMA_HP3] += pushed[1];
  return 0;
}

/* ---- L2 layout (words) ---- */

typedef struct {
  uint32_t x, xn, q, k, v, scores, exps, out, z, attn, t, gate, up, gamma, rms, logits, end;
  uint32_t z_stride, tile_stride, tiles;
} gd_l2;

static uint32_t plan_l2(const gd_model* g, uint32_t ffn_max, uint32_t span_max, gd_l2* a) {
  const uint32_t G = g->heads / g->kv_heads, hd = g->head_dim;
  uint32_t at = L2_BASE;
  a->x = at, at += words_of(g->hidden);
  a->xn = at, at += words_of(g->hidden);
  a->q = at, at += words_of(g->heads * hd);
  a->k = at, at += words_of(g->kv_heads * hd);
  a->v = at, at += words_of(g->kv_heads * hd);
  a->scores = at, at += words_of(G * span_max);
  a->exps = at, at += words_of(G * span_max);
  a->out = at, at += words_of(G * hd);
  a->z_stride = 1u + words_of(hd);
  a->z = at, at += G * a->z_stride;
  a->attn = at, at += words_of(g->heads * hd);
  a->t = at, at += words_of(g->hidden);
  a->gate = at, at += words_of(ffn_max);
  a->up = at, at += words_of(ffn_max);
  a->gamma = at, at += words_of(g->hidden);
  a->rms = at, at += pccx_rmsnorm_words(g->hidden);
  a->tiles = (g->vocab + g->lm_tile - 1u) / g->lm_tile;
  a->tile_stride = 1u + words_of(g->lm_tile);
  a->logits = at, at += a->tiles * a->tile_stride;
  a->end = at;
  return at;
}

static gd_model g_m;
static gd_layer g_layers[GD_MAX_LAYERS];
static gd_l2 g_a;
static pccx_rmsnorm_ws g_ws;

static int load_gamma(uint64_t addr) {
  if (submit(PCCX_DMA_ACP_FMAP, addr, 2u * g_m.hidden, PCCX_DMA_CLASS_WEIGHTS) != 0) return -1;
  uca_memcpy(UCA_ROUTE_HOST_TO_L2, g_a.gamma, 0, F_D, 0);
  return 0;
}

static int rmsnorm(uint64_t gamma_addr, uint32_t x, uint32_t out) {
  if (load_gamma(gamma_addr) != 0) return -1;
  if (pccx_rmsnorm(&g_ws, x, g_a.gamma, out, g_m.hidden) != PCCX_OPS_OK)
    return fail_msg("RMSNorm failed", GD_EXIT_DMA);
  return 0;
}

static int gemv_matrix(const gd_matrix* m, uint32_t dst, uint32_t src, uint8_t fslot,
                       uint8_t wslot) {
  if (stream_rows(m, 0u, m->rows) != 0) return -1;
  uca_gemv(dst, src, UCA_FLAG_W_SCALE, fslot, wslot, 0);
  return 0;
}

static void marker2(const char* a, uint32_t t, const char* b, uint32_t l, int with_l) {
  pccx_line m;
  start(&m, a);
  pccx_line_dec(&m, t);
  pccx_line_str(&m, b);
  if (with_l) pccx_line_dec(&m, l);
  pccx_simctl_marker(m.text);
}

static int attention(const gd_layer* ly, uint32_t head) {
  const uint32_t G = g_m.heads / g_m.kv_heads, hd = g_m.head_dim;
  const pccx_kv_handle* h = &g_m.kv[ly->ring];
  const uint32_t span = pccx_kv_valid_tokens(h);
  /* Scores: G query heads against the key stream of this KV head. */
  if (stream_kv(h, ly->ring_index, head, PCCX_KV_K) != 0) return -1;
  uca_gemv(g_a.scores, g_a.q + head * words_of(G * hd), UCA_FLAG_FINDEMAX | GEMV_KEY_ROWS, F_KEYS,
           W_KEYS, HEAD_PARALLEL);
  pccx_cvo_long(UCA_CVO_EXP, g_a.scores, g_a.exps, G * span, UCA_CVO_FLAG_SUB_EMAX, 0);
  for (uint32_t m = 0; m < G; ++m)
    pccx_reduce_sum_long(g_a.exps + m * (span / 8u), span, g_a.z + m * g_a.z_stride, 0);
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

static int layer(uint32_t li) {
  const gd_layer* ly = &g_layers[li];
  const uint32_t G = g_m.heads / g_m.kv_heads, hd = g_m.head_dim;
  const uint32_t span = pccx_kv_valid_tokens(&g_m.kv[ly->ring]);
  uca_memset(0, F_PROBS, 1, 1, (uint16_t)(G * span));
  uca_memset(1, W_KEYS, (uint16_t)G, (uint16_t)span, (uint16_t)hd);
  uca_memset(1, W_VALUES, (uint16_t)G, (uint16_t)hd, (uint16_t)span);

  if (rmsnorm(ly->input_norm, g_a.x, g_a.xn) != 0) return -1;
  if (gemv_matrix(&ly->m[GD_Q], g_a.q, g_a.xn, F_D, W_Q) != 0) return -1;
  if (ly->stores) {
    if (gemv_matrix(&ly->m[GD_K], g_a.k, g_a.xn, F_D, W_KV) != 0 ||
        gemv_matrix(&ly->m[GD_V], g_a.v, g_a.xn, F_D, W_KV) != 0)
      return -1;
    const pccx_kv_handle* h = &g_m.kv[ly->ring];
    for (uint32_t head = 0; head < g_m.kv_heads; ++head)
      for (int is_v = 0; is_v < 2; ++is_v) {
        uint64_t slot = 0;
        if (pccx_kv_append_slot(h, ly->ring_index, head, is_v, &slot) != PCCX_KV_OK)
          return fail_msg("no append slot", GD_EXIT_KV);
        const uint32_t bytes = is_v ? h->v_record_bytes : h->k_record_bytes;
        if (submit(PCCX_DMA_ACP_RESULT, slot, bytes, PCCX_DMA_CLASS_KV_WRITE) != 0) return -1;
        uca_memcpy(PCCX_ROUTE_KV_APPEND, (uint32_t)is_v,
                   (is_v ? g_a.v : g_a.k) + head * words_of(hd), F_HD, 0);
      }
  }
  for (uint32_t head = 0; head < g_m.kv_heads; ++head)
    if (attention(ly, head) != 0) return -1;
  if (gemv_matrix(&ly->m[GD_O], g_a.t, g_a.attn, F_ATTN, W_O) != 0) return -1;
  pccx_cvo_long(PCCX_CVO_ADD, g_a.t, g_a.x, g_m.hidden, 0, 0);

  if (rmsnorm(ly->pre_ffn_norm, g_a.x, g_a.xn) != 0) return -1;
  uca_memset(0, F_FFN, 1, 1, (uint16_t)ly->ffn);
  uca_memset(1, W_UP, 1, (uint16_t)ly->ffn, (uint16_t)g_m.hidden);
  uca_memset(1, W_DOWN, 1, (uint16_t)g_m.hidden, (uint16_t)ly->ffn);
  if (gemv_matrix(&ly->m[GD_GATE], g_a.gate, g_a.xn, F_D, W_UP) != 0 ||
      gemv_matrix(&ly->m[GD_UP], g_a.up, g_a.xn, F_D, W_UP) != 0)
    return -1;
  pccx_cvo_long(UCA_CVO_GELU, g_a.gate, g_a.gate, ly->ffn, 0, 0);
  pccx_cvo_long(PCCX_CVO_MUL, g_a.gate, g_a.up, ly->ffn, 0, 0);
  if (gemv_matrix(&ly->m[GD_DOWN], g_a.t, g_a.up, F_FFN, W_DOWN) != 0) return -1;
  pccx_cvo_long(PCCX_CVO_ADD, g_a.t, g_a.x, g_m.hidden, 0, 0);
  return 0;
}

static int lm_head(void) {
  if (rmsnorm(g_m.final_norm, g_a.x, g_a.xn) != 0) return -1;
  for (uint32_t t = 0; t < g_a.tiles; ++t) {
    const uint32_t r0 = t * g_m.lm_tile;
    const uint32_t rows = g_m.vocab - r0 < g_m.lm_tile ? g_m.vocab - r0 : g_m.lm_tile;
    const int last = rows != g_m.lm_tile;
    const uint32_t s = g_a.logits + t * g_a.tile_stride;
    if (stream_rows(&g_m.lm, r0, rows) != 0) return -1;
    uca_gemv(s + 1u, g_a.xn, UCA_FLAG_W_SCALE, F_D, last ? W_TILE_LAST : W_TILE, 0);
    /* Softcap: the scalar word s holds c. */
    uca_cvo(UCA_CVO_SCALE, s, s + 1u, (uint16_t)rows, UCA_CVO_FLAG_RECIP_SCALE, 0);
    uca_cvo(PCCX_CVO_TANH, s + 1u, s + 1u, (uint16_t)rows, 0, 0);
    uca_cvo(UCA_CVO_SCALE, s, s + 1u, (uint16_t)rows, 0, 0);
    if (submit(PCCX_DMA_ACP_RESULT, g_m.logits + 2ull * r0, 2u * rows,
               PCCX_DMA_CLASS_ACTIVATIONS) != 0)
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

static int parse(const uint8_t* b, uint32_t bytes) {
  if (bytes < GD_HEADER_BYTES || le32(b) != GD_MAGIC || le32(b + 4) != bytes)
    return fail_msg("bad parameter block (magic or size)", GD_EXIT_BAD_BLOCK);
  g_m.layers = le32(b + 8);
  g_m.hidden = le32(b + 12);
  g_m.heads = le32(b + 16);
  g_m.kv_heads = le32(b + 20);
  g_m.head_dim = le32(b + 24);
  g_m.vocab = le32(b + 28);
  g_m.tokens = le32(b + 32);
  g_m.context = le32(b + 36);
  g_m.lm_tile = le32(b + 40);
  g_m.rings = le32(b + 44);
  g_m.eps = le32(b + 48);
  g_m.scratch = le64(b + 56);
  g_m.logits = le64(b + 64);
  g_m.consts = le64(b + 72);
  g_m.final_norm = le64(b + 80);
  read_matrix(b + GD_OFF_LM_HEAD, &g_m.lm);
  if (g_m.layers == 0u || g_m.layers > GD_MAX_LAYERS ||
      bytes != GD_HEADER_BYTES + g_m.layers * GD_LAYER_BYTES || g_m.kv_heads == 0u ||
      g_m.heads % g_m.kv_heads != 0u || g_m.head_dim % 8u != 0u || g_m.hidden % 8u != 0u ||
      g_m.hidden > CVO_MAX || g_m.lm_tile == 0u || g_m.lm_tile % 8u != 0u ||
      g_m.lm_tile > CVO_MAX || g_m.rings == 0u || g_m.rings > 2u || le32(b + 52) != 0u)
    return fail_msg("bad parameter block (dimensions)", GD_EXIT_BAD_BLOCK);
  for (uint32_t r = 0; r < g_m.rings; ++r) {
    const uint8_t* p = b + GD_OFF_RINGS + r * GD_RING_BYTES;
    pccx_kv_handle* h = &g_m.kv[r];
    pccx_kv_configure(h, le32(p + 16), g_m.kv_heads, le32(p + 24), le32(p + 28), le64(p),
                      le64(p + 8));
    if (pccx_kv_set_sinks(h, le32(p + 32)) != PCCX_KV_OK || le32(p + 36) != 0u ||
        pccx_kv_init(h, le32(p + 20)) != PCCX_KV_OK)
      return fail_msg("KV ring configuration refused", GD_EXIT_KV);
    /* The ring already holds the context: the write position is advanced
     * directly (no prefill is simulated). */
    h->appended = g_m.context;
  }
  for (uint32_t l = 0; l < g_m.layers; ++l) {
    const uint8_t* p = b + GD_HEADER_BYTES + l * GD_LAYER_BYTES;
    gd_layer* ly = &g_layers[l];
    ly->ffn = le32(p);
    ly->ring = le32(p + 4);
    ly->ring_index = le32(p + 8);
    ly->stores = le32(p + 12);
    ly->input_norm = le64(p + 16);
    ly->pre_ffn_norm = le64(p + 24);
    for (uint32_t k = 0; k < 7u; ++k) read_matrix(p + 32 + k * GD_MATRIX_BYTES, &ly->m[k]);
    if (ly->ring >= g_m.rings || ly->ffn == 0u || ly->ffn > SHAPE_MAX)
      return fail_msg("bad layer record", GD_EXIT_BAD_BLOCK);
  }
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
  for (uint32_t l = 0; l < g_m.layers; ++l)
    if (g_layers[l].ffn > ffn_max) ffn_max = g_layers[l].ffn;
  for (uint32_t r = 0; r < g_m.rings; ++r)
    if (pccx_kv_max_tokens(&g_m.kv[r]) > span_max) span_max = pccx_kv_max_tokens(&g_m.kv[r]);
  const uint32_t G = g_m.heads / g_m.kv_heads;
  if (plan_l2(&g_m, ffn_max, span_max, &g_a) > L2_WORDS || G * span_max > SHAPE_MAX)
    return fail_msg("the activations do not fit L2 (or a group's scores exceed 65535)",
                    GD_EXIT_L2_FIT);
  g_ws.first = g_a.rms;
  g_ws.shape_slot = F_RMS;
  g_ws.ddr = g_m.scratch;
  g_ws.n = 0u;
  /* Every RMSNorm of the model is over `hidden` elements: stage 1/hidden
   * and eps once, so no norm waits for the NPU. */
  if (pccx_rmsnorm_prepare(&g_ws, g_m.hidden, (uint16_t)g_m.eps) != PCCX_OPS_OK)
    return fail_msg("RMSNorm constants could not be staged", GD_EXIT_DMA);

  /* Shapes that stay for the whole run. */
  const uint32_t last_rows = g_m.vocab - (g_a.tiles - 1u) * g_m.lm_tile;
  uca_memset(0, F_D, 1, 1, (uint16_t)g_m.hidden);
  uca_memset(0, F_ATTN, 1, 1, (uint16_t)(g_m.heads * g_m.head_dim));
  uca_memset(0, F_HD, 1, 1, (uint16_t)g_m.head_dim);
  uca_memset(0, F_KEYS, 1, 1, (uint16_t)(G * g_m.head_dim));
  uca_memset(0, F_TILE, 1, 1, (uint16_t)g_m.lm_tile);
  uca_memset(0, F_TILE_LAST, 1, 1, (uint16_t)last_rows);
  uca_memset(0, F_WORD, 1, 1, 8);
  uca_memset(1, W_Q, 1, (uint16_t)(g_m.heads * g_m.head_dim), (uint16_t)g_m.hidden);
  uca_memset(1, W_KV, 1, (uint16_t)(g_m.kv_heads * g_m.head_dim), (uint16_t)g_m.hidden);
  uca_memset(1, W_O, 1, (uint16_t)g_m.hidden, (uint16_t)(g_m.heads * g_m.head_dim));
  uca_memset(1, W_TILE, 1, (uint16_t)g_m.lm_tile, (uint16_t)g_m.hidden);
  uca_memset(1, W_TILE_LAST, 1, (uint16_t)last_rows, (uint16_t)g_m.hidden);
  /* The softcap scalar word in front of every logits tile. */
  for (uint32_t t = 0; t < g_a.tiles; ++t) {
    if (submit(PCCX_DMA_ACP_FMAP, g_m.consts, 16u, PCCX_DMA_CLASS_HOST) != 0) return GD_EXIT_DMA;
    uca_memcpy(UCA_ROUTE_HOST_TO_L2, g_a.logits + t * g_a.tile_stride, 0, F_WORD, 0);
  }
  if (finish_token() != 0) return GD_EXIT_TIMEOUT;

  for (uint32_t t = 0; t < g_m.tokens; ++t) {
    marker2("token ", t, "", 0, 0);
    const uint64_t t0 = pccx_simctl_time_ns(), i0 = pccx_npu_retired();
    for (uint32_t r = 0; r < g_m.rings; ++r)
      if (pccx_kv_append_token(&g_m.kv[r], 0) != PCCX_KV_OK)
        return fail_msg("KV append refused", GD_EXIT_KV);
    for (uint32_t l = 0; l < g_m.layers; ++l) {
      marker2("token ", t, " layer ", l, 1);
      if (layer(l) != 0) return GD_EXIT_DMA;
    }
    marker2("token ", t, " exit", 0, 0);
    if (lm_head() != 0) return GD_EXIT_DMA;
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
  uint8_t head[8];
  pccx_host_read(GD_PARAM_ADDR_DEFAULT, head, 8u);
  const uint32_t bytes = le32(head + 4);
  if (le32(head) != GD_MAGIC || bytes < GD_HEADER_BYTES || bytes > GD_MAX_BLOCK)
    return fail_msg("no parameter block at 0x10000000", GD_EXIT_BAD_BLOCK);
  pccx_host_read(GD_PARAM_ADDR_DEFAULT, block, bytes);
  return pccx_gemma_decode_run(block, bytes);
}
