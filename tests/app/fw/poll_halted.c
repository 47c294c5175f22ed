/* poll_halted: issues an illegal word (reserved opcode 0x5), so the NPU
 * latches ERR_UNKNOWN_OPCODE and halts issue, then waits for STATUS.ERROR
 * to go away by polling, without ever clearing it. Every poll costs an
 * MMIO read, so simulated time runs until simulation.max_time_ms ends the
 * run as failed. */
#include "pccx_firmware.h"
#include "pccx_npu_regs.h"
#include "uCA_v1_hal.h"

int pccx_firmware_main(void) {
  uca_hal_issue_instr(0x5000000000000000ull);
  while ((uca_hal_read_status() & PCCX_STAT_ERROR) == 0u) {
  }
  while ((uca_hal_read_status() & PCCX_STAT_ERROR) != 0u) {
  }
  return 0;
}
