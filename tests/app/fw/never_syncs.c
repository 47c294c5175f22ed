/* never_syncs: issues work and returns 0 at once, without waiting for the
 * NPU: a long CVO (EXP over 2,048 elements) is still executing when the
 * firmware ends, so the run's time and results would be incomplete. */
#include "pccx_firmware.h"
#include "uCA_v1_api.h"

int pccx_firmware_main(void) {
  if (uca_init() != 0) return 1;
  uca_cvo(UCA_CVO_EXP, 0x100u, 0x400u, 2048u, 0u, 0u);
  return 0;
}
