/* calls_abort: a driver's fatal-error path (an assert that failed) calls
 * abort() in the middle of a run. */
#include <stdlib.h>

#include "pccx_firmware.h"
#include "pccx_isa_encode.h"
#include "uCA_v1_hal.h"

int pccx_firmware_main(void) {
  uca_hal_issue_instr(pccx_encode_memset(0u, 0u, 0u, 0u, 1u, 0u));
  abort();
}
