/* crash_null: a wild pointer in driver code. After one MEMSET it stores
 * through address 0x10, which is not mapped in any process. */
#include <stdint.h>

#include "pccx_firmware.h"
#include "pccx_isa_encode.h"
#include "uCA_v1_hal.h"

int pccx_firmware_main(void) {
  volatile uint32_t* volatile wild = (volatile uint32_t*)(uintptr_t)0x10u;
  uca_hal_issue_instr(pccx_encode_memset(0u, 0u, 0u, 0u, 1u, 0u)); /* fmap_shape[0] <- (0, 0, 1) */
  *wild = 1u;
  return 0;
}
