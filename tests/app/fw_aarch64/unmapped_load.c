/* Loads from an address past the end of DDR, where nothing is mapped. */
#include <stdint.h>

#include "pccx_firmware.h"

int pccx_firmware_main(void) {
  return (int)*(volatile uint32_t*)(uintptr_t)0x200000000ull;
}
