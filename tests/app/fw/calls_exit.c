/* calls_exit: issues work and calls exit(0) instead of returning: the run
 * must end failed with a message saying so, its outputs written, not end
 * pccx-vp with exit code 0. */
#include <stdlib.h>

#include "pccx_firmware.h"
#include "uCA_v1_api.h"

int pccx_firmware_main(void) {
  if (uca_init() != 0) return 1;
  uca_memset(0, 0, 1, 1, 64);
  exit(0);
}
