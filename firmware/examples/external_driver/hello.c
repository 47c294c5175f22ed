/* hello: a firmware program for pccx-vp from an outside project. It sets
 * four fmap_shape slots with MEMSET, waits for the NPU, checks how many
 * instructions retired and says hello. Returns 0 on success. */
#include <stdint.h>

#include "my_driver.h"
#include "pccx_firmware.h"
#include "pccx_npu_regs.h"
#include "pccx_simctl.h"
#include "uCA_v1_api.h"
#include "uCA_v1_hal.h"

int pccx_firmware_main(void) {
  uint8_t slot;
  if (uca_init() != 0) return 1;
  pccx_simctl_marker("hello: set shapes");
  for (slot = 0; slot < 4; ++slot) uca_memset(0, slot, 1, 2048, (uint16_t)(slot + 1));
  if (uca_sync(100) != 0) return 2;
  if (uca_hal_read32(PCCX_REG_RETIRED_LO) != 4u) return 3;
  pccx_simctl_print("hello from an external driver: 4 MEMSETs retired");
  uca_deinit();
  return 0;
}
