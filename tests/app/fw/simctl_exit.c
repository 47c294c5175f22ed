/* simctl_exit: ends the run through the sim-control EXIT register with
 * code 0. The code after the write must never run: its return value 7 and
 * its print would otherwise show. */
#include "pccx_firmware.h"
#include "pccx_simctl.h"
#include "uCA_v1_api.h"

int pccx_firmware_main(void) {
  if (uca_init() != 0) return 1;
  pccx_simctl_print("simctl_exit: before EXIT");
  pccx_simctl_exit(0);
  pccx_simctl_print("simctl_exit: after EXIT");
  return 7;
}
