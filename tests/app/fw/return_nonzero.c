/* return_nonzero: a program built with the project's uCA driver sources
 * that prints a line and returns 3, which pccx-vp reports as a failed run. */
#include "pccx_firmware.h"
#include "pccx_simctl.h"
#include "uCA_v1_api.h"

int pccx_firmware_main(void) {
  if (uca_init() != 0) return 1;
  pccx_simctl_print("return_nonzero: returning 3");
  uca_deinit();
  return 3;
}
