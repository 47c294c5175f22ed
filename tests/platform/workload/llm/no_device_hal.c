/* A uCA HAL with no device behind it, for host tests that link the driver
 * library only for its arithmetic: writes are ignored, reads return 0. */
#include "uCA_v1_hal.h"

int uca_hal_init(void) {
  return 0;
}
void uca_hal_deinit(void) {}
void uca_hal_write32(uint32_t offset, uint32_t val) {
  (void)offset;
  (void)val;
}
uint32_t uca_hal_read32(uint32_t offset) {
  (void)offset;
  return 0;
}
void uca_hal_issue_instr(uint64_t instr) {
  (void)instr;
}
uint32_t uca_hal_read_status(void) {
  return 0;
}
int uca_hal_wait_idle(uint32_t timeout_us) {
  (void)timeout_us;
  return 0;
}
