/* The parameter block of the decode program (firmware/programs/
 * gemma_decode.c) and its entry with the block in memory. The host side
 * (platform/workload/decode_runner) writes the block; docs/models/decode.md
 * describes every field, docs/models/decode-model.md the arithmetic. All values
 * little endian; f32 fields are IEEE single bits.
 *
 * Header (GD_HEADER_BYTES):
 *   0 u32 magic GD_MAGIC ("GDC2")   4 u32 total bytes of the block
 *   8 u32 layers   12 u32 hidden   16 u32 heads   20 u32 kv_heads
 *  24 u32 head_dim 28 u32 vocab    32 u32 tokens N  36 u32 context L
 *  40 u32 lm_tile (LM-head rows per GEMV tile, multiple of 8, <= 2048)
 *  44 u32 rings (1 or 2)   48 u32 eps (BF16 bits)   52 u32 flags (GD_F_*)
 *  56 u64 scratch (GD_SCRATCH_BYTES of DDR for staging)
 *  64 u64 logits (2 x vocab bytes; token t at logits + t x stride)
 *  72 u64 embedding table (0: tied, rows of the LM head)
 *  80 u64 final_norm   88 matrix lm_head
 * 136 ring[0]  176 ring[1]
 * 216 u32 streams S   220 u32 active stream   224 u32 per-layer dim P
 * 228 u32 laurel rank 232 u32 per-layer vocab 236 u32 sparse FFN layers
 * 240 f32 cutoff z    244 f32 final softcap (0 none)  248 f32 q scale
 * 252 u32 table format (0 int4, 1 int8, 2 bf16)  256 u32 table scale group
 * 260 u32 table row bytes  264 u64 per-layer table  272 u64 ple_proj_norm
 * 280 u32 weight scale group  284 u32 weights carry scales (0/1)
 * 288 matrix ple_model_proj  336 matrix rotation (rotated KV: H / sqrt(d))
 * 384 u32 offset of the AltUp matrices (proj.1 .. proj.S-1, then
 *     unproj.1 .. unproj.S-1)  388 u32 offset of the layer records
 * 392 u32 offset of the token ids (N u32)  396 u32 offset of the RoPE
 *     inverse frequencies (d/2 f32 local, then d/2 f32 global)
 * 400 u32 logits stride (0: every token writes the same logits)
 * 404 u32 weight streams F (1..4)  408 u8 x 4 their DMA channels (the
 *     GEMV's weight FIFOs: row n of a matrix on channel n mod F)
 * 412 u32 L2 words of the NPU (0: GD_L2_WORDS_DEFAULT)
 *
 * Matrix (GD_MATRIX_BYTES): u64 x 4 part addresses (part f = rows n with
 *   n mod F = f, one after another), u32 rows, u32 cols, u32 record bytes,
 *   u32 parts (F).
 * Ring (GD_RING_BYTES): u64 base, u64 bytes, u32 layers, u32 max_tokens,
 *   u32 K record bytes, u32 V record bytes, u32 sinks, u32 0.
 * Layer (GD_LAYER_BYTES): u32 ffn, u32 ring, u32 ring layer index, u32
 *   stores K/V, u32 global, u32 sparse FFN; 12 u64 vector addresses
 *   (GD_V_*); 12 matrices (GD_M_*). Absent parts are all zero. */
#ifndef PCCX_GEMMA_DECODE_H
#define PCCX_GEMMA_DECODE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GD_PARAM_ADDR_DEFAULT 0x10000000ull
#define GD_MAGIC 0x32434447u /* "GDC2" */
#define GD_HEADER_BYTES 416u
#define GD_MATRIX_BYTES 48u
#define GD_RING_BYTES 40u
#define GD_LAYER_BYTES (24u + 12u * 8u + 12u * GD_MATRIX_BYTES)
#define GD_OFF_LM_HEAD 88u
#define GD_OFF_WEIGHT_STREAMS 404u
#define GD_OFF_L2_WORDS 412u
#define GD_OFF_RINGS 136u
#define GD_OFF_PLE_PROJ 288u
#define GD_OFF_ROTATION 336u
#define GD_MAX_LAYERS 256u
#define GD_MAX_STREAMS 8u
#define GD_MAX_WEIGHT_STREAMS 4u
#define GD_MAX_TOKENS 4096u
#define GD_MAX_HEAD_DIM 2048u
#define GD_MAX_BLOCK                                                \
  (GD_HEADER_BYTES + 2u * (GD_MAX_STREAMS - 1u) * GD_MATRIX_BYTES + \
   GD_MAX_LAYERS * GD_LAYER_BYTES + 4u * GD_MAX_TOKENS + 4u * GD_MAX_HEAD_DIM)
#define GD_SCRATCH_BYTES 294912u

/* Flags (header offset 52). */
#define GD_F_QK_NORM 1u
#define GD_F_V_NORM 2u
#define GD_F_ROTATED_K 4u    /* keys rotated: rotate the queries */
#define GD_F_ROTATED_V 8u    /* values rotated: rotate the outputs back */
#define GD_F_PART_STARTS 16u /* print where each part's instructions start */

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
