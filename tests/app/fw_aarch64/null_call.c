/* Calls through a null function pointer. */
#include "pccx_firmware.h"

typedef int (*handler)(void);
volatile handler pccx_null_handler;

int pccx_firmware_main(void) {
  return pccx_null_handler();
}
