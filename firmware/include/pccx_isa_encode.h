/* pccx v002 instruction encoder: the one place where the 64-bit words are
 * assembled, for the uCA driver, the models' encode() and the tests.
 *
 * One function per instruction format. Each takes the format's fields as
 * arguments and returns the word, built with PCCX_FIELD_PUT and the field
 * positions of pccx_isa.h. A value wider than its field is masked to the
 * field's width, never spilled into a neighbour; nothing is range checked
 * here. Callers that must reject such values check them first (the driver
 * latches an API error, the decoder reports ERR_*).
 *
 * Reserved fields (GEMV/GEMM rsv, MEMCPY aux_addr, MEMSET rsv) are
 * arguments so that tests can build illegal words; a legal instruction
 * passes 0.
 *
 * Plain C11 and C++17, freestanding: no libc beyond <stdint.h>. */
#ifndef PCCX_ISA_ENCODE_H
#define PCCX_ISA_ENCODE_H

#include <stdint.h>

#include "pccx_isa.h"
#include "uCA_v1_api.h"

/* The opcode field alone, every other bit zero. Also gives the word of a
 * reserved opcode (0x5..0xF). */
static inline uint64_t pccx_encode_opcode(uint32_t opcode) {
  return PCCX_FIELD_PUT(opcode, PCCX_OPCODE_LSB, PCCX_OPCODE_W);
}

/* GEMV (UCA_OP_GEMV) and GEMM (UCA_OP_GEMM): one layout, opcode chosen by
 * the caller. */
static inline uint64_t pccx_encode_matmul(uint32_t opcode, uint32_t dest_reg, uint32_t src_addr,
                                          uint32_t flags, uint32_t size_ptr, uint32_t shape_ptr,
                                          uint32_t lanes, uint32_t rsv) {
  return pccx_encode_opcode(opcode) | PCCX_FIELD_PUT(dest_reg, PCCX_MM_DEST_LSB, PCCX_MM_DEST_W) |
         PCCX_FIELD_PUT(src_addr, PCCX_MM_SRC_LSB, PCCX_MM_SRC_W) |
         PCCX_FIELD_PUT(flags, PCCX_MM_FLAGS_LSB, PCCX_MM_FLAGS_W) |
         PCCX_FIELD_PUT(size_ptr, PCCX_MM_SIZE_PTR_LSB, PCCX_MM_SIZE_PTR_W) |
         PCCX_FIELD_PUT(shape_ptr, PCCX_MM_SHAPE_PTR_LSB, PCCX_MM_SHAPE_PTR_W) |
         PCCX_FIELD_PUT(lanes, PCCX_MM_LANE_LSB, PCCX_MM_LANE_W) |
         PCCX_FIELD_PUT(rsv, PCCX_MM_RSV_LSB, PCCX_MM_RSV_W);
}

/* MEMCPY (UCA_OP_MEMCPY); from_host/to_host are the from_device/to_device
 * bits (0 = NPU, 1 = host). */
static inline uint64_t pccx_encode_memcpy(uint32_t from_host, uint32_t to_host, uint32_t dest,
                                          uint32_t src, uint32_t aux_addr, uint32_t shape_ptr,
                                          uint32_t async) {
  return pccx_encode_opcode(UCA_OP_MEMCPY) | PCCX_FIELD_PUT(from_host, PCCX_MC_FROM_LSB, 1) |
         PCCX_FIELD_PUT(to_host, PCCX_MC_TO_LSB, 1) |
         PCCX_FIELD_PUT(dest, PCCX_MC_DEST_LSB, PCCX_MC_DEST_W) |
         PCCX_FIELD_PUT(src, PCCX_MC_SRC_LSB, PCCX_MC_SRC_W) |
         PCCX_FIELD_PUT(aux_addr, PCCX_MC_AUX_LSB, PCCX_MC_AUX_W) |
         PCCX_FIELD_PUT(shape_ptr, PCCX_MC_SHAPE_PTR_LSB, PCCX_MC_SHAPE_PTR_W) |
         PCCX_FIELD_PUT(async, PCCX_MC_ASYNC_LSB, 1);
}

/* MEMSET (UCA_OP_MEMSET): dest_cache bank, slot (dest_addr) and the three
 * 16-bit values. */
static inline uint64_t pccx_encode_memset(uint32_t cache, uint32_t slot, uint32_t a, uint32_t b,
                                          uint32_t c, uint32_t rsv) {
  return pccx_encode_opcode(UCA_OP_MEMSET) |
         PCCX_FIELD_PUT(cache, PCCX_MS_CACHE_LSB, PCCX_MS_CACHE_W) |
         PCCX_FIELD_PUT(slot, PCCX_MS_SLOT_LSB, PCCX_MS_SLOT_W) |
         PCCX_FIELD_PUT(a, PCCX_MS_A_LSB, PCCX_MS_VALUE_W) |
         PCCX_FIELD_PUT(b, PCCX_MS_B_LSB, PCCX_MS_VALUE_W) |
         PCCX_FIELD_PUT(c, PCCX_MS_C_LSB, PCCX_MS_VALUE_W) |
         PCCX_FIELD_PUT(rsv, PCCX_MS_RSV_LSB, PCCX_MS_RSV_W);
}

/* CVO (UCA_OP_CVO). */
static inline uint64_t pccx_encode_cvo(uint32_t func, uint32_t src, uint32_t dst, uint32_t length,
                                       uint32_t flags, uint32_t async) {
  return pccx_encode_opcode(UCA_OP_CVO) | PCCX_FIELD_PUT(func, PCCX_CVO_FUNC_LSB, PCCX_CVO_FUNC_W) |
         PCCX_FIELD_PUT(src, PCCX_CVO_SRC_LSB, PCCX_CVO_SRC_W) |
         PCCX_FIELD_PUT(dst, PCCX_CVO_DST_LSB, PCCX_CVO_DST_W) |
         PCCX_FIELD_PUT(length, PCCX_CVO_LEN_LSB, PCCX_CVO_LEN_W) |
         PCCX_FIELD_PUT(flags, PCCX_CVO_FLAGS_LSB, PCCX_CVO_FLAGS_W) |
         PCCX_FIELD_PUT(async, PCCX_CVO_ASYNC_LSB, 1);
}

#endif /* PCCX_ISA_ENCODE_H */
