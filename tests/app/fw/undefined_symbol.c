/* undefined_symbol: calls uca_memset without linking any driver. pccx-vp
 * exports only the uca_hal_* HAL, not the uCA driver it has built in for
 * its own programs, so loading this object fails (bad input). */
#include "pccx_firmware.h"
#include "uCA_v1_api.h"

int pccx_firmware_main(void) {
  uca_memset(0, 0, 1, 1, 1);
  return 0;
}
