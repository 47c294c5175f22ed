/* error_recovery: issues illegal instructions on purpose and checks that
 * the NPU latches each error (code, word, sequence number), stops issue,
 * and resumes after the driver clears it. Returns 0 on success, or the
 * number of the first failed check. */
#include "pccx_firmware.h"
#include "pccx_isa_encode.h"
#include "pccx_simctl.h"
#include "pccx_uca_ext.h"
#include "uCA_v1_api.h"

static int expect_error(uint64_t word, uint32_t code) {
  uca_hal_issue_instr(word);
  if (uca_sync(100) != PCCX_SYNC_NPU_ERROR) return 0;
  pccx_npu_error err;
  if (!pccx_npu_read_error(&err)) return 0;
  if (err.code != code || err.instruction != word) return 0;
  pccx_npu_clear_error();
  return 1;
}

int pccx_firmware_main(void) {
  if (uca_init() != 0) return 1;
  pccx_simctl_marker("error_recovery: unknown opcode");
  if (!expect_error(0x5000000000000000ull, PCCX_ERR_UNKNOWN_OPCODE)) return 2;
  pccx_simctl_marker("error_recovery: MEMSET reserved bits");
  if (!expect_error(pccx_encode_memset(0u, 0u, 0u, 0u, 0u, 1u), PCCX_ERR_RESERVED_BITS)) return 3;
  pccx_simctl_marker("error_recovery: CVO zero length");
  if (!expect_error(pccx_encode_cvo(UCA_CVO_EXP, 0u, 0u, 0u, 0u, 0u), PCCX_ERR_ZERO_LENGTH))
    return 4;
  pccx_simctl_marker("error_recovery: NPU still serves");
  uca_memset(0, 5, 1, 2, 3);
  if (uca_sync(100) != 0) return 5;
  if (pccx_npu_retired() != 1) return 6;
  pccx_simctl_print("error_recovery: all errors latched, cleared and recovered");
  return 0;
}
