// Recording uCA HAL (recording_hal.h).
#include "recording_hal.h"

#include "uCA_v1_hal.h"

namespace kvdrv {
namespace {
std::vector<mmio_write>& writes() {
  static std::vector<mmio_write> w;
  return w;
}
}  // namespace

void hal_reset() {
  writes().clear();
}
const std::vector<mmio_write>& hal_writes() {
  return writes();
}

}  // namespace kvdrv

extern "C" {
int uca_hal_init(void) {
  return 0;
}
void uca_hal_deinit(void) {}
void uca_hal_write32(uint32_t offset, uint32_t val) {
  kvdrv::writes().push_back({offset, val});
}
uint32_t uca_hal_read32(uint32_t) {
  return 0;
}
void uca_hal_issue_instr(uint64_t instr) {
  uca_hal_write32(UCA_REG_INSTR_LO, static_cast<uint32_t>(instr));
  uca_hal_write32(UCA_REG_INSTR_HI, static_cast<uint32_t>(instr >> 32));
}
uint32_t uca_hal_read_status(void) {
  return 0;
}
int uca_hal_wait_idle(uint32_t) {
  return 0;
}
}
