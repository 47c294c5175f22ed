/* unconsumed_weights: streams 4 KiB of weights into the HP2 FIFO, waits
 * for the descriptor and returns 0 without any instruction taking them: the
 * end check must fail the run. */
#include "pccx_dma.h"
#include "pccx_firmware.h"
#include "uCA_v1_api.h"

int pccx_firmware_main(void) {
  pccx_dma_status st;
  if (uca_init() != 0) return 1;
  if (pccx_dma_submit(PCCX_DMA_HP2, 0x10000000ull, 4096u, 1u) != PCCX_DMA_OK) return 2;
  if (pccx_dma_wait_status(PCCX_DMA_HP2, &st, 100000u) != PCCX_DMA_OK) return 3;
  return uca_sync(1000) == 0 ? 0 : 4;
}
