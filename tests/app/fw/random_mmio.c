/* random_mmio: writes pseudo-random values to pseudo-random word offsets
 * of the 2 MiB above the NPU base (a fixed LCG, so every run hits the same
 * addresses) until one of them is not a writable register. */
#include <stdint.h>

#include "pccx_firmware.h"
#include "uCA_v1_hal.h"

int pccx_firmware_main(void) {
  uint32_t x = 12345u;
  for (int i = 0; i < 100000; ++i) {
    x = x * 1664525u + 1013904223u;
    const uint32_t offset = (x >> 8) & 0x1FFFFCu;
    /* Skip the instruction registers: a random word there is an NPU error,
     * not a bus error, and this firmware is about the address map. */
    if (offset < 0x8u) continue;
    uca_hal_write32(offset, x);
  }
  return 0;
}
