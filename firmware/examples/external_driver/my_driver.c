/* my_driver: a minimal uCA v1 driver over the uCA HAL. Only what hello.c
 * needs: uca_init, uca_deinit, uca_memset, uca_sync, and printing/markers
 * through the sim-control device. The HAL functions (uca_hal_*) are
 * supplied by pccx-vp at load time; on the board, by a bare-metal HAL. */
#include <stdint.h>

#include "pccx_isa_encode.h"
#include "pccx_simctl.h"
#include "uCA_v1_api.h"
#include "uCA_v1_hal.h"

int uca_init(void) {
  /* STATUS reads all ones when nothing answers at the NPU's address. */
  return uca_hal_init();
}

void uca_deinit(void) {
  uca_hal_deinit();
}

void uca_memset(uint8_t dest_cache, uint8_t dest_addr, uint16_t a, uint16_t b, uint16_t c) {
  uca_hal_issue_instr(pccx_encode_memset(dest_cache, dest_addr, a, b, c, 0u));
}

int uca_sync(uint32_t timeout_us) {
  /* 0 idle, -1 timeout, -2 the NPU latched an error. */
  return uca_hal_wait_idle(timeout_us);
}

static void simctl_write(uint32_t reg, uint32_t value) {
  uca_hal_write32(PCCX_SIMCTL_OFFSET + reg, value);
}

void pccx_simctl_print(const char* line) {
  for (; *line != '\0'; ++line) simctl_write(PCCX_SIMCTL_PUTC, (uint32_t)(unsigned char)*line);
  simctl_write(PCCX_SIMCTL_PUTC, (uint32_t)'\n');
}

void pccx_simctl_marker(const char* text) {
  for (; *text != '\0'; ++text)
    simctl_write(PCCX_SIMCTL_MARKER_PUTC, (uint32_t)(unsigned char)*text);
  simctl_write(PCCX_SIMCTL_MARKER_EMIT, 1u);
}
