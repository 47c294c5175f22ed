/* crash_null: a wild pointer in driver code. After one MEMSET it stores
 * through address 0x10, which is not mapped in any process. */
#include <stdint.h>

#include "pccx_firmware.h"
#include "uCA_v1_hal.h"

int pccx_firmware_main(void) {
  volatile uint32_t* volatile wild = (volatile uint32_t*)(uintptr_t)0x10u;
  uca_hal_issue_instr(0x3000000000000010ull);
  *wild = 1u;
  return 0;
}
