/* Returns 7 from pccx_firmware_main: kv260_start.c stores it, the run ends. */
#include "pccx_firmware.h"

int pccx_firmware_main(void) {
  return 7;
}
