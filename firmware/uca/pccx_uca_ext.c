/* Platform additions to the uCA v1 API (pccx_uca_ext.h): error registers,
 * counters and the API error latch. Freestanding. */
#include "pccx_uca_ext.h"

#include <stddef.h>
#include <stdint.h>

#include "pccx_npu_regs.h"
#include "pccx_uca_internal.h"
#include "uCA_v1_hal.h"

int pccx_npu_read_error(pccx_npu_error* out) {
  uint32_t status = uca_hal_read32(UCA_REG_STATUS);
  uint32_t code = uca_hal_read32(PCCX_REG_ERR_CODE);
  uint32_t lo = uca_hal_read32(PCCX_REG_ERR_INSTR_LO);
  uint32_t hi = uca_hal_read32(PCCX_REG_ERR_INSTR_HI);
  uint32_t seq = uca_hal_read32(PCCX_REG_ERR_SEQ);
  if (out != NULL) {
    out->code = code;
    out->instruction = ((uint64_t)hi << 32) | (uint64_t)lo;
    out->sequence = seq;
  }
  return (status & PCCX_STAT_ERROR) != 0u ? 1 : 0;
}

void pccx_npu_clear_error(void) {
  /* STATUS.ERROR is write-1-to-clear; the other bits ignore writes. */
  uca_hal_write32(UCA_REG_STATUS, PCCX_STAT_ERROR);
}

uint64_t pccx_npu_read_counter(uint32_t index) {
  uint32_t lo;
  uint32_t hi;
  if (index >= PCCX_PERF_COUNT) {
    return 0u;
  }
  /* LO first: reading LO latches HI. */
  lo = uca_hal_read32(PCCX_REG_PERF_LO(index));
  hi = uca_hal_read32(PCCX_REG_PERF_HI(index));
  return ((uint64_t)hi << 32) | (uint64_t)lo;
}

uint64_t pccx_npu_retired(void) {
  uint32_t lo = uca_hal_read32(PCCX_REG_RETIRED_LO);
  uint32_t hi = uca_hal_read32(PCCX_REG_RETIRED_HI);
  return ((uint64_t)hi << 32) | (uint64_t)lo;
}

uint64_t pccx_npu_issued(void) {
  uint32_t lo = uca_hal_read32(PCCX_REG_ISSUED_LO);
  uint32_t hi = uca_hal_read32(PCCX_REG_ISSUED_HI);
  return ((uint64_t)hi << 32) | (uint64_t)lo;
}

int pccx_uca_take_api_error(void) {
  return pccx_uca_internal_take_api_error();
}
