/* bad_read_unmapped: reads HAL offset 0x00200000, i.e. address 0xA0200000
 * with the default memory map, where no device is mapped: a bus error that
 * ends the run as failed. */
#include "pccx_firmware.h"
#include "uCA_v1_hal.h"

int pccx_firmware_main(void) {
  (void)uca_hal_read32(0x00200000u);
  return 0;
}
