/* divides_by_zero: an integer division by a count read as zero, SIGFPE in
 * firmware code. */
#include <stdint.h>

#include "pccx_firmware.h"
#include "pccx_npu_regs.h"
#include "uCA_v1_hal.h"

int pccx_firmware_main(void) {
  volatile uint32_t retired = uca_hal_read32(PCCX_REG_RETIRED_LO); /* 0: nothing ran */
  volatile uint32_t per = 1000u / retired;
  return (int)per;
}
