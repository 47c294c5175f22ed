/* flood_cmd_in: issues valid MEMSETs forever and never looks at STATUS.
 * Writes into a full CMD_IN are held until the NPU frees a slot, so the
 * flood runs at the NPU's pace until simulation.max_time_ms. */
#include "pccx_firmware.h"
#include "uCA_v1_hal.h"

int pccx_firmware_main(void) {
  for (;;) uca_hal_issue_instr(0x3000000000000010ull); /* MEMSET fmap_shape[0] <- (0, 0, 1) */
  return 0;
}
