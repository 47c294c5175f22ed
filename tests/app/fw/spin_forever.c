/* spin_forever: issues one MEMSET, then loops forever without any call
 * into the platform, so simulated time never advances again; only the
 * wall-clock limit (simulation.max_wall_s) can end the run. */
#include "pccx_firmware.h"
#include "pccx_isa_encode.h"
#include "uCA_v1_hal.h"

int pccx_firmware_main(void) {
  volatile uint32_t spins = 0u;
  uca_hal_issue_instr(pccx_encode_memset(0u, 0u, 0u, 0u, 1u, 0u)); /* fmap_shape[0] <- (0, 0, 1) */
  for (;;) spins = spins + 1u;
  return 0;
}
