/* stall_full_fifo: halts the NPU with an illegal word, then writes one word
 * more than CMD_IN holds without clearing the error. The INSTR_HI write of
 * the last word waits for a free FIFO slot that never comes, and nothing
 * else can happen: the platform ends the run at that write, naming the NPU
 * error that halted it. */
#include <stdint.h>

#include "pccx_firmware.h"
#include "pccx_isa_encode.h"
#include "pccx_npu_regs.h"
#include "uCA_v1_hal.h"

int pccx_firmware_main(void) {
  uint32_t depth;
  uint32_t i;
  uca_hal_issue_instr(0x5000000000000000ull);
  if (uca_hal_wait_idle(100) != -2) return 10; /* the error must be latched */
  depth = uca_hal_read32(PCCX_REG_CMD_DEPTH);
  /* MEMSET fmap_shape[0] <- (0, 0, 0), one more than CMD_IN holds */
  for (i = 0; i <= depth; ++i) uca_hal_issue_instr(pccx_encode_memset(0u, 0u, 0u, 0u, 0u, 0u));
  return 11; /* not reached: the last write never completes */
}
