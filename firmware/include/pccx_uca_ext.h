/* Platform additions to the uCA v1 API: error registers, counters and the
 * MEMCPY routes the documented route constants cannot express. */
#ifndef PCCX_UCA_EXT_H
#define PCCX_UCA_EXT_H

#include <stdint.h>

#include "pccx_npu_regs.h"
#include "uCA_v1_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Additional MEMCPY routes for uca_memcpy. */
#define PCCX_ROUTE_L2_TO_L2 0x11  /* on-chip move, ISA from=0 to=0 */
#define PCCX_ROUTE_KV_APPEND 0x1F /* L2 -> DDR ring slot with quantize, ISA from=1 to=1 */

/* uca_sync / uca_hal_wait_idle results beyond 0 and -1. */
#define PCCX_SYNC_NPU_ERROR (-2)
#define PCCX_SYNC_API_ERROR (-3)

/* API errors (a call the encoder refused, nothing issued). */
#define PCCX_API_OK 0
#define PCCX_API_BAD_ROUTE 1   /* uca_memcpy route the ISA cannot express */
#define PCCX_API_FIELD_RANGE 2 /* a value does not fit its instruction field */

typedef struct {
  uint32_t code;        /* PCCX_ERR_* */
  uint64_t instruction; /* faulting word */
  uint32_t sequence;    /* its sequence number */
} pccx_npu_error;

/* Reads the latched error; returns 1 if ERROR is set, 0 otherwise. */
int pccx_npu_read_error(pccx_npu_error* out);
/* Clears a latched error; the NPU resumes issue with the next word. */
void pccx_npu_clear_error(void);
/* Reads a 64-bit performance counter PCCX_PERF_*. */
uint64_t pccx_npu_read_counter(uint32_t index);
uint64_t pccx_npu_retired(void);
/* Instructions accepted into CMD_IN so far: the sequence number the next
 * instruction will get. */
uint64_t pccx_npu_issued(void);
/* First API error since the last call, then PCCX_API_OK. */
int pccx_uca_take_api_error(void);

#ifdef __cplusplus
}
#endif

#endif /* PCCX_UCA_EXT_H */
