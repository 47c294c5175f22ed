/* The parameter block of the decode core program (firmware/programs/
 * gemma_decode.c) and its entry with the block in memory. The host side
 * (platform/workload/decode_runner) writes the block; docs/decode.md
 * describes every field. All values little endian.
 *
 * Header (GD_HEADER_BYTES):
 *   0  u32 magic GD_MAGIC ("GDC1")     4 u32 total bytes of the block
 *   8  u32 layers   12 u32 hidden   16 u32 heads   20 u32 kv_heads
 *  24  u32 head_dim 28 u32 vocab    32 u32 tokens N  36 u32 context L
 *  40  u32 lm_tile (LM-head rows per GEMV tile, even, <= 2048)
 *  44  u32 rings (1 or 2)   48 u32 eps (BF16 bits)   52 u32 flags (0)
 *  56  u64 scratch (32 bytes, RMSNorm constants)   64 u64 logits (2 vocab bytes)
 *  72  u64 consts (16 bytes: BF16 softcap c in element 0)
 *  80  u64 final_norm (hidden BF16)
 *  88  matrix lm_head
 * 128  ring[0]  168 ring[1]
 * 208  layer records, GD_LAYER_BYTES each
 *
 * Matrix (GD_MATRIX_BYTES): u64 even-row half, u64 odd-row half, u32 rows,
 *   u32 cols, u32 record bytes, u32 even bytes, u32 odd bytes, u32 0.
 * Ring (GD_RING_BYTES): u64 base, u64 bytes, u32 layers, u32 max_tokens,
 *   u32 K record bytes, u32 V record bytes, u32 sinks, u32 0.
 * Layer: u32 ffn, u32 ring, u32 ring layer index, u32 stores K/V,
 *   u64 input_norm, u64 pre_ffn_norm, then 7 matrices q k v o gate up down
 *   (k and v all zero on a layer that stores nothing). */
#ifndef PCCX_GEMMA_DECODE_H
#define PCCX_GEMMA_DECODE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GD_PARAM_ADDR_DEFAULT 0x10000000ull
#define GD_MAGIC 0x31434447u /* "GDC1" */
#define GD_HEADER_BYTES 208u
#define GD_MATRIX_BYTES 40u
#define GD_RING_BYTES 40u
#define GD_LAYER_BYTES (32u + 7u * GD_MATRIX_BYTES)
#define GD_OFF_LM_HEAD 88u
#define GD_OFF_RINGS 128u
#define GD_MAX_LAYERS 256u
#define GD_MAX_BLOCK (GD_HEADER_BYTES + GD_MAX_LAYERS * GD_LAYER_BYTES)

/* Matrix order inside a layer record. */
#define GD_Q 0u
#define GD_K 1u
#define GD_V 2u
#define GD_O 3u
#define GD_GATE 4u
#define GD_UP 5u
#define GD_DOWN 6u

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
