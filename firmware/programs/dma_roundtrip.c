/* dma_roundtrip: moves a buffer DDR -> L2 -> L2 -> DDR through the ACP
 * channels and MEMCPY, and checks every byte that comes back.
 *
 *   1. the CPU writes a 4 KiB pattern into DDR (pccx_host_write);
 *   2. ACP_FMAP streams it, MEMCPY host->L2 puts it at L2 word 0x100;
 *   3. MEMCPY L2->L2 copies it to word 0x400;
 *   4. MEMCPY L2->host pushes it into ACP_RESULT, whose descriptor writes it
 *      back to DDR at another address; the CPU reads and compares it.
 *
 * Returns 0 on success, or the number of the failed step. It needs
 * simulation.mode=functional: in timing-only mode no bytes move. */
#include "pccx_dma.h"
#include "pccx_firmware.h"
#include "pccx_host_mem.h"
#include "pccx_simctl.h"
#include "pccx_uca_ext.h"
#include "uCA_v1_api.h"

#define BYTES 4096u
#define SRC_DDR 0x10000000ull
#define DST_DDR 0x18000000ull
#define L2_IN 0x100u
#define L2_COPY 0x400u
#define SHAPE_SLOT 7u

static uint8_t pattern[BYTES];
static uint8_t readback[BYTES];

int pccx_firmware_main(void) {
  if (uca_init() != 0) return 1;
  for (uint32_t i = 0; i < BYTES; ++i) pattern[i] = (uint8_t)(i * 7u + (i >> 8));
  pccx_host_write(SRC_DDR, pattern, BYTES);

  /* 4096 bytes = 2048 BF16 elements = 256 words: fmap shape (1, 1, 2048). */
  uca_memset(0, SHAPE_SLOT, 1, 1, BYTES / 2u);

  pccx_simctl_marker("dma_roundtrip: DDR -> L2");
  if (pccx_dma_submit(PCCX_DMA_ACP_FMAP, SRC_DDR, BYTES, 1) != PCCX_DMA_OK) return 2;
  uca_memcpy(UCA_ROUTE_HOST_TO_L2, L2_IN, 0, SHAPE_SLOT, 0);

  pccx_simctl_marker("dma_roundtrip: L2 -> L2");
  uca_memcpy(PCCX_ROUTE_L2_TO_L2, L2_COPY, L2_IN, SHAPE_SLOT, 1);

  pccx_simctl_marker("dma_roundtrip: L2 -> DDR");
  if (pccx_dma_submit(PCCX_DMA_ACP_RESULT, DST_DDR, BYTES, 2) != PCCX_DMA_OK) return 3;
  uca_memcpy(UCA_ROUTE_L2_TO_HOST, 0, L2_COPY, SHAPE_SLOT, 1);
  if (uca_sync(100000) != 0) return 4;

  pccx_dma_status st;
  if (pccx_dma_wait_status(PCCX_DMA_ACP_FMAP, &st, 1000) != PCCX_DMA_OK || st.tag != 1) return 5;
  if (pccx_dma_wait_status(PCCX_DMA_ACP_RESULT, &st, 1000) != PCCX_DMA_OK || st.tag != 2) return 6;

  pccx_host_read(DST_DDR, readback, BYTES);
  int mismatches = 0;
  for (uint32_t i = 0; i < BYTES; ++i) mismatches += readback[i] != pattern[i];
  if (mismatches == 0)
    pccx_simctl_print("dma_roundtrip: 4096 bytes came back intact");
  else
    pccx_simctl_print("dma_roundtrip: data mismatch");
  uca_deinit();
  return mismatches == 0 ? 0 : 7;
}
