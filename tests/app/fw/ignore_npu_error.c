/* ignore_npu_error: issues an illegal word (reserved opcode 0x5), sees
 * uca_hal_wait_idle report the latched error (-2), and returns 0 without
 * reading or clearing it. */
#include "pccx_firmware.h"
#include "uCA_v1_hal.h"

int pccx_firmware_main(void) {
  uca_hal_issue_instr(0x5000000000000000ull);
  (void)uca_hal_wait_idle(100u);
  return 0;
}
