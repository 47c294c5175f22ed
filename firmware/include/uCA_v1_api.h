/* uCA v1 public driver API.
 *
 * Signatures and constant values follow the documented uCA v1 API, so that
 * driver code written against it builds unchanged. Platform additions live
 * in pccx_*.h headers, never here. */
#ifndef UCA_V1_API_H
#define UCA_V1_API_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opcodes, instruction bits [63:60]. */
#define UCA_OP_GEMV 0x0
#define UCA_OP_GEMM 0x1
#define UCA_OP_MEMCPY 0x2
#define UCA_OP_MEMSET 0x3
#define UCA_OP_CVO 0x4

/* GEMV/GEMM flags (6 bits). */
#define UCA_FLAG_FINDEMAX (1U << 5)
#define UCA_FLAG_ACCM (1U << 4)
#define UCA_FLAG_W_SCALE (1U << 3)

/* CVO function codes (4 bits). */
#define UCA_CVO_EXP 0x0
#define UCA_CVO_SQRT 0x1
#define UCA_CVO_GELU 0x2
#define UCA_CVO_SIN 0x3
#define UCA_CVO_COS 0x4
#define UCA_CVO_REDUCE_SUM 0x5
#define UCA_CVO_SCALE 0x6
#define UCA_CVO_RECIP 0x7

/* CVO flags (5 bits). */
#define UCA_CVO_FLAG_SUB_EMAX (1U << 4)
#define UCA_CVO_FLAG_RECIP_SCALE (1U << 3)
#define UCA_CVO_FLAG_ACCM (1U << 2)

/* Data routes: upper nibble source, lower nibble destination. */
#define UCA_ROUTE_HOST_TO_L2 0x01
#define UCA_ROUTE_L2_TO_HOST 0x10
#define UCA_ROUTE_L2_TO_L1_GEMM 0x12
#define UCA_ROUTE_L2_TO_L1_GEMV 0x13
#define UCA_ROUTE_GEMV_RES_TO_L2 0x31
#define UCA_ROUTE_GEMM_RES_TO_L2 0x21
#define UCA_ROUTE_CVO_RES_TO_L2 0x41

int uca_init(void);
void uca_deinit(void);

void uca_gemv(uint32_t dest_reg, uint32_t src_addr, uint8_t flags, uint8_t size_ptr,
              uint8_t shape_ptr, uint8_t lanes);
void uca_gemm(uint32_t dest_reg, uint32_t src_addr, uint8_t flags, uint8_t size_ptr,
              uint8_t shape_ptr, uint8_t lanes);
void uca_cvo(uint8_t cvo_func, uint32_t src_addr, uint32_t dst_addr, uint16_t length, uint8_t flags,
             uint8_t async);
void uca_memcpy(uint8_t route, uint32_t dest_addr, uint32_t src_addr, uint8_t shape_ptr,
                uint8_t async);
void uca_memset(uint8_t dest_cache, uint8_t dest_addr, uint16_t a, uint16_t b, uint16_t c);

/* 0 when the NPU drained, -1 on timeout. Platform additions: -2 when the NPU
 * latched an error, -3 when an API call was rejected (see pccx_uca_ext.h). */
int uca_sync(uint32_t timeout_us);

#ifdef __cplusplus
}
#endif

#endif /* UCA_V1_API_H */
