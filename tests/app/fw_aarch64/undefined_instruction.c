/* Executes an undefined instruction (UDF #0): the run fails naming it. */
#include "pccx_firmware.h"

int pccx_firmware_main(void) {
  __asm__ volatile(".inst 0x00000000");
  return 0;
}
