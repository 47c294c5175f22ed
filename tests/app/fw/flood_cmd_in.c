/* flood_cmd_in: issues valid MEMSETs forever and never looks at STATUS.
 * Writes into a full CMD_IN are held until the NPU frees a slot, so the
 * flood runs at the NPU's pace until simulation.max_time_ms. */
#include "pccx_firmware.h"
#include "pccx_isa_encode.h"
#include "uCA_v1_hal.h"

int pccx_firmware_main(void) {
  /* MEMSET fmap_shape[0] <- (0, 0, 1) */
  for (;;) uca_hal_issue_instr(pccx_encode_memset(0u, 0u, 0u, 0u, 1u, 0u));
  return 0;
}
