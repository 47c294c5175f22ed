/* pccx v002 instruction word layout: the single source of field positions
 * for the encoder (pccx_isa_encode.h) and the models' decoder and
 * disassembler.
 *
 * Each field is described by its lowest bit and width; PCCX_FIELD_GET/PUT
 * extract and insert it. */
#ifndef PCCX_ISA_H
#define PCCX_ISA_H

#include <stdint.h>

#define PCCX_FIELD_MASK(width) ((((uint64_t)1) << (width)) - 1u)
#define PCCX_FIELD_GET(word, lsb, width) (((uint64_t)(word) >> (lsb)) & PCCX_FIELD_MASK(width))
#define PCCX_FIELD_PUT(value, lsb, width) ((((uint64_t)(value)) & PCCX_FIELD_MASK(width)) << (lsb))

/* Opcode, common to all instructions. */
#define PCCX_OPCODE_LSB 60
#define PCCX_OPCODE_W 4

/* GEMV (0x0) / GEMM (0x1) */
#define PCCX_MM_DEST_LSB 43
#define PCCX_MM_DEST_W 17
#define PCCX_MM_SRC_LSB 26
#define PCCX_MM_SRC_W 17
#define PCCX_MM_FLAGS_LSB 20
#define PCCX_MM_FLAGS_W 6
#define PCCX_MM_SIZE_PTR_LSB 14
#define PCCX_MM_SIZE_PTR_W 6
#define PCCX_MM_SHAPE_PTR_LSB 8
#define PCCX_MM_SHAPE_PTR_W 6
#define PCCX_MM_LANE_LSB 3
#define PCCX_MM_LANE_W 5
/* GEMV parallel_lane: [3:0] active cores (0 = all); [4] set selects
 * head-parallel partitioning (platform extension, npu.gemv.head_parallel):
 * activation row m runs on core m mod cores and every weight row is
 * broadcast to all of them. Clear: row-parallel, output row n on core
 * n mod cores. */
#define PCCX_LANES_COUNT_MASK 0x0Fu
#define PCCX_LANES_HEAD_PARALLEL 0x10u
#define PCCX_MM_RSV_LSB 0
#define PCCX_MM_RSV_W 3
/* Flags bits [2:0] are reserved in the ISA. The platform uses them on GEMV
 * as the weight-stream format (extension, npu.kv.gemv_formats): 0 INT4 weight
 * row records; 1 KV key rows (one cached K record per output, dot product
 * with each activation row); 2 KV value accumulate (one cached V record per
 * reduction step: out[m][:] += a[m][t] * v_t). Codes 3..7 stay reserved,
 * and on GEMM all three bits must be zero. */
#define PCCX_MM_FLAGS_RSV_MASK 0x07u
#define PCCX_MM_WFMT_MASK 0x07u
#define PCCX_WFMT_INT4_ROWS 0u
#define PCCX_WFMT_KV_KEY_ROWS 1u
#define PCCX_WFMT_KV_VALUE_ACCUMULATE 2u

/* MEMCPY (0x2); from/to: 0 = NPU (L2), 1 = host (DDR). */
#define PCCX_MC_FROM_LSB 59
#define PCCX_MC_TO_LSB 58
#define PCCX_MC_DEST_LSB 41
#define PCCX_MC_DEST_W 17
#define PCCX_MC_SRC_LSB 24
#define PCCX_MC_SRC_W 17
#define PCCX_MC_AUX_LSB 7
#define PCCX_MC_AUX_W 17
#define PCCX_MC_SHAPE_PTR_LSB 1
#define PCCX_MC_SHAPE_PTR_W 6
#define PCCX_MC_ASYNC_LSB 0

/* MEMSET (0x3) */
#define PCCX_MS_CACHE_LSB 58
#define PCCX_MS_CACHE_W 2
#define PCCX_MS_SLOT_LSB 52
#define PCCX_MS_SLOT_W 6
#define PCCX_MS_A_LSB 36
#define PCCX_MS_B_LSB 20
#define PCCX_MS_C_LSB 4
#define PCCX_MS_VALUE_W 16
#define PCCX_MS_RSV_LSB 0
#define PCCX_MS_RSV_W 4

/* CVO (0x4) */
#define PCCX_CVO_FUNC_LSB 56
#define PCCX_CVO_FUNC_W 4
#define PCCX_CVO_SRC_LSB 39
#define PCCX_CVO_SRC_W 17
#define PCCX_CVO_DST_LSB 22
#define PCCX_CVO_DST_W 17
#define PCCX_CVO_LEN_LSB 6
#define PCCX_CVO_LEN_W 16
#define PCCX_CVO_FLAGS_LSB 1
#define PCCX_CVO_FLAGS_W 5
#define PCCX_CVO_ASYNC_LSB 0
/* CVO flag bits [1:0] are reserved. */
#define PCCX_CVO_FLAGS_RSV_MASK 0x03u

/* Platform-defined CVO functions in the reserved codes 0x8..0xF (proposed ISA
 * extensions; the decoder rejects them when npu.sfu.extensions is false). */
#define PCCX_CVO_TANH 0x8 /* element-wise tanh */
#define PCCX_CVO_MUL 0x9  /* element-wise multiply by the vector at dst */
#define PCCX_CVO_ADD 0xA  /* element-wise add of the vector at dst */
#define PCCX_CVO_MAX 0xB  /* element-wise max(x, 0) */
#define PCCX_CVO_LAST_DEFINED 0xB

/* L2: 128-bit words, BF16 elements are 2 bytes, 8 per word. */
#define PCCX_L2_WORD_BYTES 16u
#define PCCX_BF16_PER_L2_WORD 8u

#endif /* PCCX_ISA_H */
