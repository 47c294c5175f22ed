/* sync_timeout_then_issue: gives the NPU 1 us to finish a GEMV whose weights
 * never come (no HP descriptor), ignores the timeout and issues a MEMSET as
 * if the GEMV were done: the driver lint's WARN_ISSUE_AFTER_SYNC_TIMEOUT. It
 * then waits properly (the GEMV still cannot finish) and returns 0. */
#include "pccx_firmware.h"
#include "uCA_v1_api.h"

int pccx_firmware_main(void) {
  if (uca_init() != 0) return 1;
  uca_memset(0, 0, 1, 1, 64);  /* fmap_shape[0]: 64 activations */
  uca_memset(1, 1, 1, 8, 64);  /* weight_shape[1]: M = 1, N = 8, K = 64 */
  uca_gemv(0x100, 0x0, 0, 0, 1, 0);
  (void)uca_sync(1);           /* times out: the GEMV waits for weights */
  uca_memset(0, 2, 1, 1, 8);   /* the suspicious issue */
  return 0;
}
