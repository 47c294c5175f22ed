/* bad_write_readonly: writes the read-only register ERR_CODE: a bus error
 * that ends the run as failed. */
#include "pccx_firmware.h"
#include "pccx_npu_regs.h"
#include "uCA_v1_hal.h"

int pccx_firmware_main(void) {
  uca_hal_write32(PCCX_REG_ERR_CODE, 0u);
  return 0;
}
