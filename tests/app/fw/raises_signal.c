/* raises_signal: after one MEMSET, raises SIGUSR1, whose default action
 * ends the process: the run must end instead, with the signal named. */
#include <signal.h>

#include "pccx_firmware.h"
#include "pccx_isa_encode.h"
#include "uCA_v1_hal.h"

int pccx_firmware_main(void) {
  uca_hal_issue_instr(pccx_encode_memset(0u, 0u, 0u, 0u, 1u, 0u));
  raise(SIGUSR1);
  return 0;
}
