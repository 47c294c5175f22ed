/* The decode program's internals, shared by its sources:
 *   main.c       the entry, the token loop, messages and markers
 *   block.c      reading and checking the parameter block
 *   setup.c      the L2 layout, norm constants, shapes and constants, once per run
 *   stage.c      the CPU's staging per token (embedding rows, RoPE tables)
 *   cpu_math.c   the CPU's arithmetic (square root, sin/cos, dequantisation)
 *   dma.c        DMA descriptors and their statuses, the end-of-token sync
 *   issue.c      loads, norms and GEMVs as the steps issue them
 *   altup.c      AltUp streams (entry, predict, correct, exit) and per-layer inputs
 *   layer.c      one layer's steps in order, with LAuReL
 *   attention.c  Q/K/V, KV appends, the heads and the output projection
 *   ffn.c        the FFN, with the gaussian cutoff of a sparse layer
 *   lm_head.c    the LM head, tile by tile
 *   prefill.c    the prompt in chunks, the matrices on the GEMM
 * Everything a file shares is named gd_*: the program is linked into pccx-vp
 * next to the other programs. */
#ifndef GEMMA_DECODE_INTERNAL_H
#define GEMMA_DECODE_INTERNAL_H

#include <stdint.h>

#include "pccx_dma.h"
#include "pccx_gemma_decode.h"
#include "pccx_gemma_decode_l2.h"
#include "pccx_gemma_decode_limits.h"
#include "pccx_host_mem.h"
#include "pccx_isa.h"
#include "pccx_kv.h"
#include "pccx_ops.h"
#include "pccx_simctl.h"
#include "pccx_uca_ext.h"
#include "uCA_v1_api.h"

#define CVO_MAX GD_L2_CVO_MAX
#define SHAPE_MAX GD_SHAPE_MAX
#define ROPE_TABLE_MAX GD_ROPE_TABLE_MAX

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
/* 22, 23: prefill.c's GEMM */
#define F_QTILE 24u /* a query tile's queries (1, T G, hd) */
#define F_PTILE 25u /* its exponentials (1, T G, span) */
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
/* 18: prefill.c's GEMM */
#define W_KTILE 19u /* a query tile's keys (T G, span, hd) */
#define W_VTILE 20u /* its values (T G, hd, span) */

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
  uint32_t prompt, chunk; /* P prompt tokens (ids 0..P-1) prefilled, C rows a chunk */
  uint64_t prefill_scratch; /* a chunk's staging, GD_SCRATCH_BYTES a row */
  uint32_t ffn_part;        /* FFN columns per GEMM slice */
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

/* ---- state: block.c (the block) and setup.c (the layout) ---- */

extern gd_model gd_m;
extern gd_block_layer gd_layers[GD_MAX_LAYERS];
extern gd_l2 gd_a; /* L2 layout (words): pccx_gemma_decode_l2.h */
extern pccx_rmsnorm_ws gd_ws_h, gd_ws_d, gd_ws_p;

/* ---- main.c: messages ---- */

/* Starts a line "decode: <what>". */
void gd_line_start(pccx_line* l, const char* what);
/* Prints the line, ends the run with `code` and returns it. */
int gd_fail(pccx_line* l, int code);
/* The latched NPU error (code, instruction) as the decode's failure. */
int gd_fail_npu_error(void);
int gd_fail_msg(const char* what, int code);

/* ---- block.c ---- */

/* Reads the block into gd_m and gd_layers and configures the KV rings;
 * non-zero (after printing why) when the block is refused. */
int gd_parse_block(const uint8_t* block, uint32_t bytes);
uint32_t gd_token_id(uint32_t t);
float gd_inv_freq(uint32_t i);

/* ---- setup.c ---- */

/* The L2 layout, the norm constants, the shapes and the constants; 0 or
 * the exit code. */
int gd_setup(void);
/* The layout's inputs from the block. */
gd_l2_shape gd_l2_shape_of_model(void);
/* The softcap's slot word in front of every logits tile. */
void gd_set_logit_slots(void);

/* ---- stage.c ---- */

/* The token's embedding rows and the RoPE tables of its position, into L2. */
int gd_stage_token(uint32_t tok, uint32_t pos);
/* Its parts: the CPU's rows and tables into the DDR staging at `base`
 * (laid out as the scratch), the rows' loads into L2 (the embedding into
 * xs_active, the per-layer rows into pli) and the tables' into gd_a.rope. */
void gd_stage_cpu(uint32_t tok, uint32_t pos, uint64_t base);
int gd_load_rows(uint64_t base, uint32_t xs_active, uint32_t pli);
int gd_load_rope(uint64_t base);

/* ---- cpu_math.c ---- */

double gd_sqrt(double x);
void gd_sincos(double a, double* s, double* c);
float gd_dequant(const uint8_t* row, uint32_t k, uint32_t width, uint32_t format, uint32_t group,
                 int scaled);

/* ---- dma.c ---- */

void gd_dma_reset(void);
int gd_submit(unsigned ch, uint64_t addr, uint32_t bytes, unsigned cls);
int gd_stream_rows(const gd_block_matrix* m, uint32_t r0, uint32_t n);
int gd_stream_row(const gd_block_matrix* m, uint32_t r);
int gd_stream_kv(const pccx_kv_handle* h, uint32_t index, uint32_t head, int is_value);
int gd_stream_gemm(const gd_block_matrix* m, uint32_t n0, uint32_t n, uint32_t k0, uint32_t k);
/* uca_sync, then every DMA status. */
int gd_finish_token(void);

/* ---- issue.c ---- */

int gd_load(uint64_t addr, uint32_t bytes, uint32_t dst, uint8_t shape, unsigned cls);
int gd_load_gamma(uint64_t addr);
int gd_norm_h(uint64_t gamma_addr, uint32_t x, uint32_t out);
int gd_gemv_matrix(const gd_block_matrix* m, uint32_t dst, uint32_t src, uint8_t fslot,
                   uint8_t wslot);

/* Small issue helpers used by every step. */

static inline uint32_t words_of(uint32_t elements) {
  return (elements + 7u) / 8u;
}

static inline uint32_t kw(uint32_t index) {
  return gd_a.k + index;
}

static inline void copy_word(uint32_t dst, uint32_t src) {
  uca_memcpy(PCCX_ROUTE_L2_TO_L2, dst, src, F_WORD, 0);
}

/* dst = element 0 of `slot` times the n elements after it (n <= CVO_MAX). */
static inline void scale_after(uint32_t slot, uint32_t dst, uint32_t n) {
  uca_cvo(UCA_CVO_SCALE, slot, dst, (uint16_t)n, 0, 0);
}

/* ---- altup.c ---- */

int gd_entry(void);
int gd_predict(const gd_block_layer* ly);
int gd_correct(const gd_block_layer* ly, uint32_t y);
int gd_per_layer_input(const gd_block_layer* ly, uint32_t li);
int gd_exit_streams(void);

/* ---- layer.c, attention.c, ffn.c, lm_head.c ---- */

int gd_layer(uint32_t li);
void gd_attention_shapes(const gd_block_layer* ly);
int gd_attention(const gd_block_layer* ly, uint32_t x, uint32_t* out);
/* The attention's parts, for the prefill's rows (the decode's buffers
 * otherwise): RoPE tables of the layer (for K: separate when the q scale
 * is not 1), Q's norms and RoPE, K's and V's with the appends, the heads. */
uint32_t gd_rope_tables(const gd_block_layer* ly, int for_k);
int gd_q_finish(const gd_block_layer* ly, uint32_t q, uint32_t tables);
int gd_kv_finish(const gd_block_layer* ly, uint32_t k, uint32_t v, uint32_t k_tables);
int gd_heads(const gd_block_layer* ly, uint32_t q, uint32_t* attn);
/* A query tile of the prefill: its T rows' heads against one stream per
 * KV head (h: the ring as after the tile's last append, its window
 * widened), each row's hidden positions masked; row t's queries at
 * q_of[t], its heads' outputs into attn_of[t], and it sees positions
 * [ws_of[t], n_of[t]) and the sinks below n_of[t]. */
int gd_heads_tile(const gd_block_layer* ly, const pccx_kv_handle* h, const gd_attention_tile* tile,
                  const uint32_t* q_of, const uint32_t* attn_of, const uint32_t* n_of,
                  const uint32_t* ws_of);
/* Sum of elements [a, a + n) of the vector at base into word dst; the same
 * elements set to zero. */
void gd_span_sum(uint32_t base, uint32_t a, uint32_t n, uint32_t dst);
void gd_span_zero(uint32_t base, uint32_t a, uint32_t n);
int gd_ffn(const gd_block_layer* ly, uint32_t ffn_in);
int gd_lm_head(uint32_t token);

/* ---- prefill.c ---- */

/* The prompt in chunks of gd_m.chunk rows on the GEMM (chunk > 1); 0 or
 * the exit code. */
int gd_prefill_chunks(void);

#endif /* GEMMA_DECODE_INTERNAL_H */
