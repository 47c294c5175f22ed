/* The parameter block of the decode program (firmware/programs/
 * gemma_decode/) and its entry with the block in memory. The host side
 * (platform/workload/decode_runner) writes the block; docs/models/decode.md
 * describes every field, docs/models/decode-model.md the arithmetic.
 *
 * The block is the structs below laid end to end, in their natural
 * alignment (no field has padding before it; every offset is checked
 * below): a gd_block_header, then 2 x (S - 1) gd_block_matrix (the AltUp
 * matrices proj.1 .. proj.S-1, then unproj.1 .. unproj.S-1), then one
 * gd_block_layer per layer, then N u32 token ids, then the RoPE inverse
 * frequencies (d/2 f32 local, then d/2 f32 global). The header names where
 * each section starts. All values little endian: both sides copy the
 * structs byte for byte, which holds because the platform and the board are
 * little endian. f32 fields are IEEE single. The block may sit at any
 * address, so a reader copies a struct out of it rather than pointing into
 * it. Absent matrices and vectors are all zero. */
#ifndef PCCX_GEMMA_DECODE_H
#define PCCX_GEMMA_DECODE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
#define GD_STATIC_ASSERT static_assert
#else
#define GD_STATIC_ASSERT _Static_assert
#endif

#define GD_PARAM_ADDR_DEFAULT 0x10000000ull
#define GD_MAGIC 0x32434447u /* "GDC2" */
#define GD_MAX_LAYERS 256u
#define GD_MAX_STREAMS 8u
#define GD_MAX_WEIGHT_STREAMS 4u
#define GD_MAX_RINGS 2u
#define GD_MAX_TOKENS 4096u
#define GD_MAX_CHUNK 64u /* prompt rows per chunk */
#define GD_MAX_HEAD_DIM 2048u
#define GD_SCRATCH_BYTES 294912u

/* A matrix: the F parts of the DDR plan, part f holding the rows n with
 * n mod F = f one after another (streamed on the GEMV's f-th weight FIFO). */
typedef struct {
  uint64_t part[GD_MAX_WEIGHT_STREAMS]; /* part addresses; unused parts 0 */
  uint32_t rows;
  uint32_t cols;
  uint32_t record_bytes; /* of one row */
  uint32_t parts;        /* F */
} gd_block_matrix;

/* A KV ring group. */
typedef struct {
  uint64_t base;
  uint64_t bytes;
  uint32_t layers;
  uint32_t max_tokens;
  uint32_t k_record_bytes;
  uint32_t v_record_bytes;
  uint32_t sinks;
  uint32_t window; /* non-sink tokens kept valid, 0 = the cap (pccx_kv_set_window) */
} gd_block_ring;

/* Vector order inside a layer record. */
#define GD_V_INPUT_NORM 0u
#define GD_V_POST_ATTN_NORM 1u
#define GD_V_PRE_FFN_NORM 2u
#define GD_V_POST_FFN_NORM 3u
#define GD_V_Q_NORM 4u
#define GD_V_K_NORM 5u
#define GD_V_LAUREL_NORM 6u
#define GD_V_PLE_POST_NORM 7u
#define GD_V_ROUTER_NORM 8u
#define GD_V_OUTPUT_SCALE 9u
#define GD_V_PRED_COEFS 10u
#define GD_V_CORR_COEFS 11u
#define GD_VECTORS 12u

/* Matrix order inside a layer record. */
#define GD_Q 0u
#define GD_K 1u
#define GD_V 2u
#define GD_O 3u
#define GD_GATE 4u
#define GD_UP 5u
#define GD_DOWN 6u
#define GD_ROUTER 7u
#define GD_LAUREL_LEFT 8u
#define GD_LAUREL_RIGHT 9u
#define GD_PLE_GATE 10u
#define GD_PLE_PROJ 11u
#define GD_MATRICES 12u

/* A layer record. */
typedef struct {
  uint32_t ffn;                          /* FFN width */
  uint32_t ring;                         /* its ring group */
  uint32_t ring_index;                   /* its layer index in the ring */
  uint32_t stores_kv;                    /* 0/1 */
  uint32_t global;                       /* 0/1 */
  uint32_t sparse_ffn;                   /* 0/1 */
  uint64_t vectors[GD_VECTORS];          /* DDR addresses, GD_V_* */
  gd_block_matrix matrices[GD_MATRICES]; /* GD_Q .. GD_PLE_PROJ */
} gd_block_layer;

/* The header. */
typedef struct {
  uint32_t magic; /* GD_MAGIC */
  uint32_t bytes; /* of the whole block */
  uint32_t layers;
  uint32_t hidden;
  uint32_t heads;
  uint32_t kv_heads;
  uint32_t head_dim;
  uint32_t vocab;
  uint32_t tokens;     /* N */
  uint32_t context;    /* L */
  uint32_t lm_tile;    /* LM-head rows per GEMV tile, multiple of 8, <= 2048 */
  uint32_t rings;      /* 1 or 2 */
  uint32_t eps;        /* BF16 bits */
  uint32_t flags;      /* GD_F_* */
  uint64_t scratch;    /* GD_SCRATCH_BYTES of DDR for staging */
  uint64_t logits;     /* 2 x vocab bytes; token t at logits + t x logits_stride */
  uint64_t embedding;  /* the embedding table (0: tied, rows of the LM head) */
  uint64_t final_norm; /* a vector */
  gd_block_matrix lm_head;
  gd_block_ring ring[GD_MAX_RINGS];
  uint32_t streams;           /* AltUp streams S */
  uint32_t active_stream;     /* AltUp */
  uint32_t ple_dim;           /* per-layer dim P */
  uint32_t laurel_rank;       /* LAuReL */
  uint32_t ple_vocab;         /* per-layer vocab */
  uint32_t sparse_ffn_layers; /* the first layers with the gaussian cutoff */
  float cutoff_z;             /* the cutoff's z */
  float final_softcap;        /* 0: none */
  float q_scale;
  uint32_t table_format;       /* per-layer table: 0 int4, 1 int8, 2 bf16 */
  uint32_t table_scale_group;  /* per-layer table */
  uint32_t table_row_bytes;    /* per-layer table */
  uint64_t ple_table;          /* the per-layer table */
  uint64_t ple_proj_norm;      /* a vector */
  uint32_t weight_scale_group; /* of the weight records */
  uint32_t weight_scales;      /* weights carry scales (0/1) */
  gd_block_matrix ple_model_proj;
  gd_block_matrix rotation; /* rotated KV: H / sqrt(d) */
  uint32_t altup_offset;    /* block offset of the AltUp matrices */
  uint32_t layers_offset;   /* block offset of the layer records */
  uint32_t tokens_offset;   /* block offset of the token ids */
  uint32_t rope_offset;     /* block offset of the RoPE inverse frequencies */
  uint32_t logits_stride;   /* 0: every token writes the same logits */
  uint32_t weight_streams;  /* F (1..4) */
  /* Their DMA channels (the GEMV's weight FIFOs: row n of a matrix on
   * channel n mod F). */
  uint8_t weight_channels[GD_MAX_WEIGHT_STREAMS];
  uint32_t l2_words; /* the NPU's L2 (0: GD_L2_WORDS_DEFAULT) */
  uint32_t prompt;   /* P: prompt tokens prefilled before the N decoded (ids 0..P-1) */
  uint32_t chunk;    /* prompt rows per chunk */
  /* A chunk's staging: chunk x GD_SCRATCH_BYTES, row r's at r x
   * GD_SCRATCH_BYTES (laid out as the decode's scratch); 0 with chunk 1. */
  uint64_t prefill_scratch;
  uint32_t ffn_part; /* FFN columns per GEMM slice (a multiple of 32; chunk > 1) */
  uint32_t reserved;
} gd_block_header;

GD_STATIC_ASSERT(sizeof(float) == 4u, "f32 fields are IEEE single");

GD_STATIC_ASSERT(offsetof(gd_block_matrix, part) == 0u, "gd_block_matrix.part");
GD_STATIC_ASSERT(offsetof(gd_block_matrix, rows) == 32u, "gd_block_matrix.rows");
GD_STATIC_ASSERT(offsetof(gd_block_matrix, cols) == 36u, "gd_block_matrix.cols");
GD_STATIC_ASSERT(offsetof(gd_block_matrix, record_bytes) == 40u, "gd_block_matrix.record_bytes");
GD_STATIC_ASSERT(offsetof(gd_block_matrix, parts) == 44u, "gd_block_matrix.parts");
GD_STATIC_ASSERT(sizeof(gd_block_matrix) == 48u, "gd_block_matrix size");

GD_STATIC_ASSERT(offsetof(gd_block_ring, base) == 0u, "gd_block_ring.base");
GD_STATIC_ASSERT(offsetof(gd_block_ring, bytes) == 8u, "gd_block_ring.bytes");
GD_STATIC_ASSERT(offsetof(gd_block_ring, layers) == 16u, "gd_block_ring.layers");
GD_STATIC_ASSERT(offsetof(gd_block_ring, max_tokens) == 20u, "gd_block_ring.max_tokens");
GD_STATIC_ASSERT(offsetof(gd_block_ring, k_record_bytes) == 24u, "gd_block_ring.k_record_bytes");
GD_STATIC_ASSERT(offsetof(gd_block_ring, v_record_bytes) == 28u, "gd_block_ring.v_record_bytes");
GD_STATIC_ASSERT(offsetof(gd_block_ring, sinks) == 32u, "gd_block_ring.sinks");
GD_STATIC_ASSERT(offsetof(gd_block_ring, window) == 36u, "gd_block_ring.window");
GD_STATIC_ASSERT(sizeof(gd_block_ring) == 40u, "gd_block_ring size");

GD_STATIC_ASSERT(offsetof(gd_block_layer, ffn) == 0u, "gd_block_layer.ffn");
GD_STATIC_ASSERT(offsetof(gd_block_layer, ring) == 4u, "gd_block_layer.ring");
GD_STATIC_ASSERT(offsetof(gd_block_layer, ring_index) == 8u, "gd_block_layer.ring_index");
GD_STATIC_ASSERT(offsetof(gd_block_layer, stores_kv) == 12u, "gd_block_layer.stores_kv");
GD_STATIC_ASSERT(offsetof(gd_block_layer, global) == 16u, "gd_block_layer.global");
GD_STATIC_ASSERT(offsetof(gd_block_layer, sparse_ffn) == 20u, "gd_block_layer.sparse_ffn");
GD_STATIC_ASSERT(offsetof(gd_block_layer, vectors) == 24u, "gd_block_layer.vectors");
GD_STATIC_ASSERT(offsetof(gd_block_layer, matrices) == 120u, "gd_block_layer.matrices");
GD_STATIC_ASSERT(sizeof(gd_block_layer) == 696u, "gd_block_layer size");

GD_STATIC_ASSERT(offsetof(gd_block_header, magic) == 0u, "gd_block_header.magic");
GD_STATIC_ASSERT(offsetof(gd_block_header, bytes) == 4u, "gd_block_header.bytes");
GD_STATIC_ASSERT(offsetof(gd_block_header, layers) == 8u, "gd_block_header.layers");
GD_STATIC_ASSERT(offsetof(gd_block_header, hidden) == 12u, "gd_block_header.hidden");
GD_STATIC_ASSERT(offsetof(gd_block_header, heads) == 16u, "gd_block_header.heads");
GD_STATIC_ASSERT(offsetof(gd_block_header, kv_heads) == 20u, "gd_block_header.kv_heads");
GD_STATIC_ASSERT(offsetof(gd_block_header, head_dim) == 24u, "gd_block_header.head_dim");
GD_STATIC_ASSERT(offsetof(gd_block_header, vocab) == 28u, "gd_block_header.vocab");
GD_STATIC_ASSERT(offsetof(gd_block_header, tokens) == 32u, "gd_block_header.tokens");
GD_STATIC_ASSERT(offsetof(gd_block_header, context) == 36u, "gd_block_header.context");
GD_STATIC_ASSERT(offsetof(gd_block_header, lm_tile) == 40u, "gd_block_header.lm_tile");
GD_STATIC_ASSERT(offsetof(gd_block_header, rings) == 44u, "gd_block_header.rings");
GD_STATIC_ASSERT(offsetof(gd_block_header, eps) == 48u, "gd_block_header.eps");
GD_STATIC_ASSERT(offsetof(gd_block_header, flags) == 52u, "gd_block_header.flags");
GD_STATIC_ASSERT(offsetof(gd_block_header, scratch) == 56u, "gd_block_header.scratch");
GD_STATIC_ASSERT(offsetof(gd_block_header, logits) == 64u, "gd_block_header.logits");
GD_STATIC_ASSERT(offsetof(gd_block_header, embedding) == 72u, "gd_block_header.embedding");
GD_STATIC_ASSERT(offsetof(gd_block_header, final_norm) == 80u, "gd_block_header.final_norm");
GD_STATIC_ASSERT(offsetof(gd_block_header, lm_head) == 88u, "gd_block_header.lm_head");
GD_STATIC_ASSERT(offsetof(gd_block_header, ring) == 136u, "gd_block_header.ring");
GD_STATIC_ASSERT(offsetof(gd_block_header, streams) == 216u, "gd_block_header.streams");
GD_STATIC_ASSERT(offsetof(gd_block_header, active_stream) == 220u, "gd_block_header.active_stream");
GD_STATIC_ASSERT(offsetof(gd_block_header, ple_dim) == 224u, "gd_block_header.ple_dim");
GD_STATIC_ASSERT(offsetof(gd_block_header, laurel_rank) == 228u, "gd_block_header.laurel_rank");
GD_STATIC_ASSERT(offsetof(gd_block_header, ple_vocab) == 232u, "gd_block_header.ple_vocab");
GD_STATIC_ASSERT(offsetof(gd_block_header, sparse_ffn_layers) == 236u,
                 "gd_block_header.sparse_ffn_layers");
GD_STATIC_ASSERT(offsetof(gd_block_header, cutoff_z) == 240u, "gd_block_header.cutoff_z");
GD_STATIC_ASSERT(offsetof(gd_block_header, final_softcap) == 244u, "gd_block_header.final_softcap");
GD_STATIC_ASSERT(offsetof(gd_block_header, q_scale) == 248u, "gd_block_header.q_scale");
GD_STATIC_ASSERT(offsetof(gd_block_header, table_format) == 252u, "gd_block_header.table_format");
GD_STATIC_ASSERT(offsetof(gd_block_header, table_scale_group) == 256u,
                 "gd_block_header.table_scale_group");
GD_STATIC_ASSERT(offsetof(gd_block_header, table_row_bytes) == 260u,
                 "gd_block_header.table_row_bytes");
GD_STATIC_ASSERT(offsetof(gd_block_header, ple_table) == 264u, "gd_block_header.ple_table");
GD_STATIC_ASSERT(offsetof(gd_block_header, ple_proj_norm) == 272u, "gd_block_header.ple_proj_norm");
GD_STATIC_ASSERT(offsetof(gd_block_header, weight_scale_group) == 280u,
                 "gd_block_header.weight_scale_group");
GD_STATIC_ASSERT(offsetof(gd_block_header, weight_scales) == 284u, "gd_block_header.weight_scales");
GD_STATIC_ASSERT(offsetof(gd_block_header, ple_model_proj) == 288u,
                 "gd_block_header.ple_model_proj");
GD_STATIC_ASSERT(offsetof(gd_block_header, rotation) == 336u, "gd_block_header.rotation");
GD_STATIC_ASSERT(offsetof(gd_block_header, altup_offset) == 384u, "gd_block_header.altup_offset");
GD_STATIC_ASSERT(offsetof(gd_block_header, layers_offset) == 388u, "gd_block_header.layers_offset");
GD_STATIC_ASSERT(offsetof(gd_block_header, tokens_offset) == 392u, "gd_block_header.tokens_offset");
GD_STATIC_ASSERT(offsetof(gd_block_header, rope_offset) == 396u, "gd_block_header.rope_offset");
GD_STATIC_ASSERT(offsetof(gd_block_header, logits_stride) == 400u, "gd_block_header.logits_stride");
GD_STATIC_ASSERT(offsetof(gd_block_header, weight_streams) == 404u,
                 "gd_block_header.weight_streams");
GD_STATIC_ASSERT(offsetof(gd_block_header, weight_channels) == 408u,
                 "gd_block_header.weight_channels");
GD_STATIC_ASSERT(offsetof(gd_block_header, l2_words) == 412u, "gd_block_header.l2_words");
GD_STATIC_ASSERT(offsetof(gd_block_header, prompt) == 416u, "gd_block_header.prompt");
GD_STATIC_ASSERT(offsetof(gd_block_header, chunk) == 420u, "gd_block_header.chunk");
GD_STATIC_ASSERT(offsetof(gd_block_header, prefill_scratch) == 424u,
                 "gd_block_header.prefill_scratch");
GD_STATIC_ASSERT(offsetof(gd_block_header, ffn_part) == 432u, "gd_block_header.ffn_part");
GD_STATIC_ASSERT(sizeof(gd_block_header) == 440u, "gd_block_header size");

/* The largest block (the built-in entry's buffer). */
#define GD_MAX_BLOCK                                                                \
  (sizeof(gd_block_header) + 2u * (GD_MAX_STREAMS - 1u) * sizeof(gd_block_matrix) + \
   GD_MAX_LAYERS * sizeof(gd_block_layer) + sizeof(uint32_t) * 2u * GD_MAX_TOKENS + \
   sizeof(float) * GD_MAX_HEAD_DIM)

/* Flags (gd_block_header.flags). */
#define GD_F_QK_NORM 1u
#define GD_F_V_NORM 2u
#define GD_F_ROTATED_K 4u    /* keys rotated: rotate the queries */
#define GD_F_ROTATED_V 8u    /* values rotated: rotate the outputs back */
#define GD_F_PART_STARTS 16u /* print where each part's instructions start */

/* Exit codes. */
#define GD_EXIT_NO_NPU 1
#define GD_EXIT_BAD_BLOCK 2
#define GD_EXIT_L2_FIT 3
#define GD_EXIT_KV 4
#define GD_EXIT_DMA 5
#define GD_EXIT_NPU_ERROR 6
#define GD_EXIT_TIMEOUT 7

/* Runs the decode of the block at `block` (bytes long). The built-in
 * program's entry reads the block from DDR at GD_PARAM_ADDR_DEFAULT and
 * calls this. */
int pccx_gemma_decode_run(const uint8_t* block, uint32_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* PCCX_GEMMA_DECODE_H */
