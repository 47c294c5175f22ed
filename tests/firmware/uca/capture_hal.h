/* Test-only uCA HAL: records every issued instruction word and every MMIO
 * write and read, and answers reads from a settable register table. Links
 * against pccx_fw_uca in place of a real HAL. Not thread-safe. */
#ifndef PCCX_TESTS_CAPTURE_HAL_H
#define PCCX_TESTS_CAPTURE_HAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CAPTURE_MAX_EVENTS 4096u

typedef struct {
  uint32_t offset;
  uint32_t value;
} capture_access;

/* Forgets everything recorded, zeroes the register table, restores the
 * default wait_idle result (0). */
void capture_reset(void);

/* Value uca_hal_read32(offset) and uca_hal_read_status() return. */
void capture_set_reg(uint32_t offset, uint32_t value);
/* Result of uca_hal_wait_idle(). */
void capture_set_wait_result(int result);

size_t capture_issued_count(void);
uint64_t capture_issued(size_t index);
size_t capture_write_count(void);
capture_access capture_write(size_t index);
size_t capture_read_count(void);
capture_access capture_read(size_t index); /* offset and the value returned */

unsigned capture_init_calls(void);
unsigned capture_deinit_calls(void);
unsigned capture_wait_calls(void);
uint32_t capture_last_wait_timeout(void);
/* 1 if more events happened than CAPTURE_MAX_EVENTS could record. */
int capture_overflowed(void);

#ifdef __cplusplus
}
#endif

#endif /* PCCX_TESTS_CAPTURE_HAL_H */
