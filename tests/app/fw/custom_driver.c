/* custom_driver: a user's own minimal uCA driver, built into a firmware
 * object without any of the project's driver sources. It defines uca_init,
 * uca_memset and uca_sync itself, directly over the uCA HAL that pccx-vp
 * supplies, and its uca_memset leaves a sim-control marker before each
 * issue. The e2e test finds those markers in the instruction trace: proof
 * that this code ran, not the driver built into pccx-vp.
 *
 * It fills head_scale[0..7] with (0x3f80, slot, 0xbf80), waits for the NPU
 * and checks the RETIRED counter. Returns 0 on success. */
#include <stdint.h>

#include "pccx_firmware.h"
#include "pccx_isa_encode.h"
#include "pccx_npu_regs.h"
#include "pccx_simctl.h"
#include "uCA_v1_api.h"
#include "uCA_v1_hal.h"

#define CUSTOM_MEMSETS 8u
#define CUSTOM_BANK_HEAD_SCALE 2u

/* Sim-control accesses, by register offset (no pccx_simctl_* helpers). */
static void simctl_write(uint32_t reg, uint32_t value) {
  uca_hal_write32(PCCX_SIMCTL_OFFSET + reg, value);
}

static void custom_marker(const char* text) {
  for (; *text != '\0'; ++text)
    simctl_write(PCCX_SIMCTL_MARKER_PUTC, (uint32_t)(unsigned char)*text);
  simctl_write(PCCX_SIMCTL_MARKER_EMIT, 1u);
}

static void custom_print(const char* text) {
  for (; *text != '\0'; ++text) simctl_write(PCCX_SIMCTL_PUTC, (uint32_t)(unsigned char)*text);
  simctl_write(PCCX_SIMCTL_PUTC, (uint32_t)'\n');
}

/* ---- the driver ---------------------------------------------------------- */

int uca_init(void) {
  return uca_hal_read_status() == 0xFFFFFFFFu ? -1 : 0;
}

void uca_memset(uint8_t dest_cache, uint8_t dest_addr, uint16_t a, uint16_t b, uint16_t c) {
  custom_marker("custom driver uca_memset");
  uca_hal_issue_instr(pccx_encode_memset(dest_cache, dest_addr, a, b, c, 0u));
}

int uca_sync(uint32_t timeout_us) {
  return uca_hal_wait_idle(timeout_us);
}

/* ---- the program --------------------------------------------------------- */

int pccx_firmware_main(void) {
  uint32_t slot;
  if (uca_init() != 0) return 10;
  for (slot = 0; slot < CUSTOM_MEMSETS; ++slot)
    uca_memset(CUSTOM_BANK_HEAD_SCALE, (uint8_t)slot, 0x3f80u, (uint16_t)slot, 0xbf80u);
  if (uca_sync(100) != 0) return 11;
  if (uca_hal_read32(PCCX_REG_RETIRED_LO) != CUSTOM_MEMSETS) return 12;
  custom_print("custom driver: 8 MEMSETs retired");
  return 0;
}
