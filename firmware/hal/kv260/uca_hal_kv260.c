/* uCA v1 HAL for the KV260 (Zynq UltraScale+ A53), bare metal.
 *
 * The NPU's AXI-Lite bank is reached through volatile 32-bit accesses at
 * UCA_MMIO_BASE_ADDR + offset (the region must be mapped as Device memory,
 * which is what the A53 does with the MMU off). Freestanding: no libc. */
#include <stddef.h>
#include <stdint.h>

#include "pccx_npu_regs.h"
#include "uCA_v1_hal.h"

/* Busy-poll iterations per microsecond of timeout (the documented HAL's
 * count = timeout_us x 400, one STATUS read per iteration). */
#define KV260_POLLS_PER_US 400u

static volatile uint32_t* kv260_reg(uint32_t offset) {
  return (volatile uint32_t*)(uintptr_t)(UCA_MMIO_BASE_ADDR + (uintptr_t)offset);
}

void uca_hal_write32(uint32_t offset, uint32_t val) {
  *kv260_reg(offset) = val;
}

uint32_t uca_hal_read32(uint32_t offset) {
  return *kv260_reg(offset);
}

int uca_hal_init(void) {
  /* All ones means nothing answers at the base address (no bitstream). */
  return uca_hal_read32(UCA_REG_STATUS) == 0xFFFFFFFFu ? -1 : 0;
}

void uca_hal_deinit(void) {}

void uca_hal_issue_instr(uint64_t instr) {
  /* LO first: the HI write latches the 64-bit word into CMD_IN. */
  uca_hal_write32(UCA_REG_INSTR_LO, (uint32_t)(instr & 0xFFFFFFFFu));
  uca_hal_write32(UCA_REG_INSTR_HI, (uint32_t)(instr >> 32));
}

uint32_t uca_hal_read_status(void) {
  return uca_hal_read32(UCA_REG_STATUS);
}

int uca_hal_wait_idle(uint32_t timeout_us) {
  uint64_t polls = (uint64_t)timeout_us * KV260_POLLS_PER_US;
  uint64_t i;
  /* At least one read, so a zero timeout still samples STATUS once. */
  if (polls == 0u) {
    polls = 1u;
  }
  for (i = 0u; i < polls; ++i) {
    uint32_t status = uca_hal_read32(UCA_REG_STATUS);
    if ((status & PCCX_STAT_ERROR) != 0u) {
      return -2; /* PCCX_SYNC_NPU_ERROR: sticky until cleared */
    }
    if ((status & UCA_STAT_BUSY) == 0u) {
      return 0;
    }
  }
  return -1; /* timeout; the NPU is not reset */
}
