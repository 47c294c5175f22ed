/* api_doc_ffn: the FFN example of the upstream uCA API documentation, written
 * here in the same shape, call for call:
 *
 *   y = W_down · GELU(W_up · x),  x: 4,096 BF16,  W_up, W_down: 4,096 x 4,096
 *
 *   uca_memset(1, 0, 1, 4096, 4096)        weight_shape[0] = W_up (M, N, K)
 *   uca_memset(1, 1, 1, 4096, 4096)        weight_shape[1] = W_down
 *   uca_gemv(0x100, 0x000, 0, 0, 0, 0x0F)  h = W_up · x, "all four cores"
 *   uca_cvo(GELU, 0x100, 0x200, 4096, 0, 0)
 *   uca_gemv(0x300, 0x200, 0, 0, 1, 0x0F)  y = W_down · GELU(h)
 *   uca_sync(100000)
 *
 * The documentation leaves out where the weights come from. On the platform
 * they stream from DDR through the GEMV's weight FIFOs (output row r from
 * HP2 for even r, HP3 for odd r), so the program queues one descriptor per
 * FIFO before each GEMV, over zeroed DDR: the values are not the point, the
 * instruction stream is. It runs in the default configuration with the
 * departures from the platform's strict reading reported as warnings
 * (lanes 0x0F as a core mask, no activation shape slot, a GELU longer than
 * the SFU's 2,048) and the lint's own (x was never loaded into the L2).
 * Returns 0 when uca_sync reports idle, 1 when the NPU does not answer, 2
 * on a sync failure. */
#include <stdint.h>

#include "pccx_dma.h"
#include "pccx_firmware.h"
#include "uCA_v1_api.h"

#define FFN_D 4096u
/* One INT4 row record of K = 4,096 inputs, no scales: 2,048 bytes. */
#define FFN_ROW_BYTES (FFN_D / 2u)
#define FFN_FIFO_BYTES ((FFN_D / 2u) * FFN_ROW_BYTES) /* half of the rows per FIFO */
#define FFN_W_UP 0x20000000ull
#define FFN_W_DOWN (FFN_W_UP + 2ull * FFN_FIFO_BYTES)

/* The rows of one weight matrix: even rows on HP2, odd rows on HP3. */
static void stream_weights(uint64_t base) {
  pccx_dma_submit(PCCX_DMA_HP2, base, FFN_FIFO_BYTES, 0u);
  pccx_dma_submit(PCCX_DMA_HP3, base + FFN_FIFO_BYTES, FFN_FIFO_BYTES, 0u);
}

int pccx_firmware_main(void) {
  if (uca_init() != 0) return 1;
  uca_memset(1, 0, 1, 4096, 4096);
  uca_memset(1, 1, 1, 4096, 4096);
  stream_weights(FFN_W_UP);
  uca_gemv(0x0100, 0x0000, 0, 0, 0, 0x0F);
  uca_cvo(UCA_CVO_GELU, 0x0100, 0x0200, 4096, 0, 0);
  stream_weights(FFN_W_DOWN);
  uca_gemv(0x0300, 0x0200, 0, 0, 1, 0x0F);
  return uca_sync(100000) == 0 ? 0 : 2;
}
