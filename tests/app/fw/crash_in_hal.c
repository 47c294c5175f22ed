/* crash_in_hal: hands the platform a bad buffer: pccx_host_write copies
 * 64 bytes from address 0x20 into DDR. */
#include <stdint.h>

#include "pccx_firmware.h"
#include "pccx_host_mem.h"

int pccx_firmware_main(void) {
  const void* volatile bad = (const void*)(uintptr_t)0x20u;
  pccx_host_write(0x10000000u, bad, 64u);
  return 0;
}
