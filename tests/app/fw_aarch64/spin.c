/* Spins without touching a device: only the wall-clock limit ends it. */
#include "pccx_firmware.h"

volatile unsigned pccx_spin_counter;

int pccx_firmware_main(void) {
  for (;;) ++pccx_spin_counter;
}
