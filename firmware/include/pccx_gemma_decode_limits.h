/* The limits of the Gemma decode program on its parameter block's header:
 * one source for the program, which refuses a block outside them, and for
 * the host, which refuses the model before anything is simulated. */
#ifndef PCCX_GEMMA_DECODE_LIMITS_H
#define PCCX_GEMMA_DECODE_LIMITS_H

#include <stdint.h>

#include "pccx_dma.h"
#include "pccx_gemma_decode.h"
#include "pccx_gemma_decode_l2.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GD_SHAPE_MAX 65535u     /* a MEMSET shape extent is 16 bits */
#define GD_ROPE_TABLE_MAX 8192u /* heads x head_dim of one RoPE table */
#define GD_ROW_BYTES 140000u    /* the CPU's row buffer: the largest embedding or PLE row */

/* The first header field outside the program's limits: `field` names it
 * (NULL: none), `rule` says the limit. */
typedef struct {
  const char* field;
  const char* rule;
} gd_limit_problem;

static inline gd_limit_problem gd_limit(const char* field, const char* rule) {
  gd_limit_problem p;
  p.field = field;
  p.rule = rule;
  return p;
}

static inline gd_limit_problem gd_header_limits(const gd_block_header* h) {
  if (h->layers == 0u || h->layers > GD_MAX_LAYERS) return gd_limit("layers", "1 to 256");
  if (h->kv_heads == 0u) return gd_limit("kv_heads", "at least 1");
  if (h->heads % h->kv_heads != 0u) return gd_limit("heads", "a multiple of kv_heads");
  if (h->head_dim % 16u != 0u) return gd_limit("head_dim", "a multiple of 16");
  if (h->head_dim > GD_MAX_HEAD_DIM) return gd_limit("head_dim", "at most 2,048");
  if (h->hidden == 0u || h->hidden % 8u != 0u)
    return gd_limit("hidden", "a positive multiple of 8");
  if (h->hidden > GD_L2_CVO_MAX) return gd_limit("hidden", "at most 2,048 (one CVO)");
  if (h->heads * h->head_dim > GD_ROPE_TABLE_MAX)
    return gd_limit("heads x head_dim", "at most 8,192 (one RoPE table)");
  if (h->lm_tile == 0u || h->lm_tile % 8u != 0u || h->lm_tile > GD_L2_CVO_MAX)
    return gd_limit("lm_tile", "a positive multiple of 8, at most 2,048");
  if (h->rings == 0u || h->rings > GD_MAX_RINGS) return gd_limit("rings", "1 or 2");
  if (h->tokens > GD_MAX_TOKENS) return gd_limit("tokens", "at most 4,096");
  if (h->prompt > GD_MAX_TOKENS) return gd_limit("prompt tokens", "at most 4,096");
  if (h->prompt != 0u && h->chunk == 0u) return gd_limit("chunk", "at least 1 with a prompt");
  if (h->chunk > GD_MAX_CHUNK) return gd_limit("chunk", "at most 64 rows");
  if (h->chunk > 1u) {
    /* Chunks run their matrices on the GEMM, fed from the row records. */
    if (h->weight_streams != 2u)
      return gd_limit("weight streams (npu.gemv.weight_fifos) with chunk > 1",
                      "2 (the GEMM's HP0/HP1 columns come from the records' two parts)");
    if (h->ffn_part == 0u || h->ffn_part % 32u != 0u || h->ffn_part > GD_SHAPE_MAX)
      return gd_limit("ffn_part", "a positive multiple of 32, at most 65,535, with chunk > 1");
    if (h->prefill_scratch == 0u) return gd_limit("prefill_scratch", "set with chunk > 1");
    if (h->laurel_rank % 8u != 0u || (h->heads * h->head_dim) % 8u != 0u)
      return gd_limit("LAuReL rank and heads x head_dim", "multiples of 8 with chunk > 1");
  }
  if (h->vocab == 0u || h->vocab % 8u != 0u)
    return gd_limit("vocab", "a positive multiple of 8 (the logits leave in 16-byte DMA beats)");
  if (h->weight_streams == 0u || h->weight_streams > GD_MAX_WEIGHT_STREAMS)
    return gd_limit("weight streams (npu.gemv.weight_fifos)", "1 to 4");
  if (h->lm_tile % h->weight_streams != 0u)
    return gd_limit("lm_tile", "a multiple of the weight streams");
  for (uint32_t f = 0; f < h->weight_streams; ++f)
    if (h->weight_channels[f] >= PCCX_DMA_CHANNELS)
      return gd_limit("weight stream channels", "DMA channels 0 to 5");
  if (h->streams == 0u || h->streams > GD_MAX_STREAMS || h->active_stream >= h->streams)
    return gd_limit("AltUp streams", "1 to 8, the active one among them");
  if (h->ple_dim % 8u != 0u || h->ple_dim > GD_L2_CVO_MAX)
    return gd_limit("per-layer input dim", "a multiple of 8, at most 2,048");
  if (h->layers * h->ple_dim > GD_SHAPE_MAX)
    return gd_limit("layers x per-layer input dim", "at most 65,535 (one shape extent)");
  if (h->laurel_rank > GD_SHAPE_MAX) return gd_limit("LAuReL rank", "at most 65,535");
  if (h->table_format > 2u) return gd_limit("per-layer table format", "0, 1 or 2");
  if (h->table_row_bytes > GD_ROW_BYTES)
    return gd_limit("per-layer table row", "at most 140,000 bytes (the CPU's row buffer)");
  if (h->lm_head.record_bytes > GD_ROW_BYTES)
    return gd_limit("LM head row record", "at most 140,000 bytes (the CPU's row buffer)");
  if (h->ple_dim != 0u && h->ple_vocab == 0u)
    return gd_limit("per-layer input vocabulary", "at least 1 with per-layer inputs");
  return gd_limit((const char*)0, (const char*)0);
}

#ifdef __cplusplus
}
#endif

#endif /* PCCX_GEMMA_DECODE_LIMITS_H */
