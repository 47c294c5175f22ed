/* dma_outside_ddr: programs HP0 with a 4 KiB descriptor at 0x1_0000_0000,
 * past the end of the 4 GiB DDR, waits for its status and returns 0
 * without clearing the channel's sticky ERR bits. */
#include "pccx_dma.h"
#include "pccx_firmware.h"
#include "uCA_v1_hal.h"

int pccx_firmware_main(void) {
  uca_hal_write32(PCCX_DMA_REG(0u, PCCX_DMA_REG_ADDR_LO), 0u);
  uca_hal_write32(PCCX_DMA_REG(0u, PCCX_DMA_REG_ADDR_HI), 1u);
  uca_hal_write32(PCCX_DMA_REG(0u, PCCX_DMA_REG_BYTES), 4096u);
  uca_hal_write32(PCCX_DMA_REG(0u, PCCX_DMA_REG_PUSH), 7u);
  while (uca_hal_read32(PCCX_DMA_REG(0u, PCCX_DMA_REG_STS_LVL)) == 0u) {
  }
  (void)uca_hal_read32(PCCX_DMA_REG(0u, PCCX_DMA_REG_STS_POP));
  return 0;
}
