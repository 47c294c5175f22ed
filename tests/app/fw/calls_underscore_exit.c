/* calls_underscore_exit: ends with _exit(3), which skips even the C
 * library's own clean-up: the run must still end failed, with a message. */
#include <unistd.h>

#include "pccx_firmware.h"
#include "uCA_v1_api.h"

int pccx_firmware_main(void) {
  if (uca_init() != 0) return 1;
  _exit(3);
}
