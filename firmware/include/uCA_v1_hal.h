/* uCA v1 hardware abstraction layer.
 *
 * Source-compatible with the documented uCA v1 HAL. Two back ends implement
 * it: the virtual platform's (each access is a TLM transaction from the
 * firmware CPU) and the KV260 bare-metal one (volatile pointer MMIO). */
#ifndef UCA_V1_HAL_H
#define UCA_V1_HAL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UCA_MMIO_BASE_ADDR 0xA0000000UL

#define UCA_REG_INSTR_LO 0x00
#define UCA_REG_INSTR_HI 0x04
#define UCA_REG_STATUS 0x08

#define UCA_STAT_BUSY (1U << 0)
#define UCA_STAT_DONE (1U << 1)

/* Returns 0 when the NPU answers, -1 when STATUS reads all ones. */
int uca_hal_init(void);
void uca_hal_deinit(void);
void uca_hal_write32(uint32_t offset, uint32_t val);
uint32_t uca_hal_read32(uint32_t offset);
/* Writes INSTR_LO then INSTR_HI; the HI write pushes the word into CMD_IN. */
void uca_hal_issue_instr(uint64_t instr);
uint32_t uca_hal_read_status(void);
/* 0 when idle, -1 on timeout, -2 when the NPU latched an error
 * (platform addition: the error never clears by itself). */
int uca_hal_wait_idle(uint32_t timeout_us);

#ifdef __cplusplus
}
#endif

#endif /* UCA_V1_HAL_H */
