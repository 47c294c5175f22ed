/* Firmware helpers for the DMA (DataMover) channel pages (pccx_dma.h), over
 * the uCA HAL. Freestanding: no libc beyond <stdint.h>/<stddef.h>. */
#include "pccx_dma.h"

#include <stddef.h>
#include <stdint.h>

#include "uCA_v1_hal.h"

static int valid_channel(unsigned channel) {
  return channel < PCCX_DMA_CHANNELS;
}

int pccx_dma_submit(unsigned channel, uint64_t ddr_addr, uint32_t bytes, unsigned tag) {
  if (!valid_channel(channel)) {
    return PCCX_DMA_E_CHANNEL;
  }
  if (tag > PCCX_DMA_TAG_MASK) {
    return PCCX_DMA_E_TAG;
  }
  uca_hal_write32(PCCX_DMA_REG(channel, PCCX_DMA_REG_ADDR_LO), (uint32_t)ddr_addr);
  uca_hal_write32(PCCX_DMA_REG(channel, PCCX_DMA_REG_ADDR_HI), (uint32_t)(ddr_addr >> 32));
  uca_hal_write32(PCCX_DMA_REG(channel, PCCX_DMA_REG_BYTES), bytes);
  /* Held by the channel while its descriptor queue is full. */
  uca_hal_write32(PCCX_DMA_REG(channel, PCCX_DMA_REG_PUSH), (uint32_t)tag);
  return PCCX_DMA_OK;
}

int pccx_dma_submit_2d(unsigned channel, uint64_t ddr_addr, uint32_t row_bytes, uint32_t rows,
                       uint32_t stride, unsigned tag) {
  if (!valid_channel(channel)) {
    return PCCX_DMA_E_CHANNEL;
  }
  if (tag > PCCX_DMA_TAG_MASK) {
    return PCCX_DMA_E_TAG;
  }
  uca_hal_write32(PCCX_DMA_REG(channel, PCCX_DMA_REG_ROWS), rows);
  uca_hal_write32(PCCX_DMA_REG(channel, PCCX_DMA_REG_STRIDE), stride);
  uca_hal_write32(PCCX_DMA_REG(channel, PCCX_DMA_REG_ADDR_LO), (uint32_t)ddr_addr);
  uca_hal_write32(PCCX_DMA_REG(channel, PCCX_DMA_REG_ADDR_HI), (uint32_t)(ddr_addr >> 32));
  uca_hal_write32(PCCX_DMA_REG(channel, PCCX_DMA_REG_BYTES), row_bytes);
  uca_hal_write32(PCCX_DMA_REG(channel, PCCX_DMA_REG_PUSH), (uint32_t)tag | PCCX_DMA_PUSH_2D);
  return PCCX_DMA_OK;
}

int pccx_dma_submit_gemm_weights(const pccx_dma_records* r, uint32_t n0, uint32_t n, uint32_t k0,
                                 uint32_t k, unsigned tag) {
  const uint32_t lead = r->scaled ? 2u : 0u;
  const uint32_t chunk = (lead + (k + 1u) / 2u + 15u) / 16u * 16u;
  unsigned f;
  if (tag > PCCX_DMA_TAG_MASK) {
    return PCCX_DMA_E_TAG;
  }
  if ((n0 & 1u) != 0u || k0 % 32u != 0u || n == 0u || k == 0u ||
      (r->parts != 1u && r->parts != 2u)) {
    return PCCX_DMA_E_LAYOUT;
  }
  for (f = 0; f < 2u && f < n; ++f) {
    /* Column n0 + f + 2s: with two parts record (n0 / 2 + s) of part f,
     * with one part record n0 + f + 2s. */
    const uint32_t columns = (n - f + 1u) / 2u;
    const uint64_t first = r->parts == 2u ? r->part[f] + (uint64_t)(n0 / 2u) * r->record_bytes
                                          : r->part[0] + (uint64_t)(n0 + f) * r->record_bytes;
    const uint32_t stride = r->record_bytes * (2u / r->parts);
    const unsigned ch = f == 0u ? PCCX_DMA_HP0 : PCCX_DMA_HP1;
    if (r->scaled) {
      pccx_dma_submit_2d(ch, first, 16u, columns, stride, tag);
    }
    pccx_dma_submit_2d(ch, first + k0 / 2u, chunk, columns, stride, tag);
  }
  return r->scaled ? 2 : 1;
}

int pccx_dma_set_class(unsigned channel, unsigned cls) {
  if (!valid_channel(channel)) {
    return PCCX_DMA_E_CHANNEL;
  }
  if (cls > PCCX_DMA_CLASS_LAST) {
    return PCCX_DMA_E_CLASS;
  }
  uca_hal_write32(PCCX_DMA_REG(channel, PCCX_DMA_REG_CLASS), (uint32_t)cls);
  return PCCX_DMA_OK;
}

int pccx_dma_pop_status(unsigned channel, pccx_dma_status* out) {
  uint32_t s;
  if (!valid_channel(channel)) {
    return PCCX_DMA_E_CHANNEL;
  }
  s = uca_hal_read32(PCCX_DMA_REG(channel, PCCX_DMA_REG_STS_POP));
  if ((s & PCCX_DMA_STS_VALID) == 0u) {
    return PCCX_DMA_E_EMPTY;
  }
  if (out != NULL) {
    out->tag = (unsigned)PCCX_DMA_STS_TAG(s);
    out->errors = PCCX_DMA_STS_ERR(s);
  }
  return PCCX_DMA_STS_ERR(s) != 0u ? PCCX_DMA_E_FAILED : PCCX_DMA_OK;
}

int pccx_dma_wait_status(unsigned channel, pccx_dma_status* out, uint32_t max_polls) {
  uint32_t i;
  for (i = 0; i < max_polls; ++i) {
    int r = pccx_dma_pop_status(channel, out);
    if (r != PCCX_DMA_E_EMPTY) {
      return r;
    }
  }
  return valid_channel(channel) ? PCCX_DMA_E_TIMEOUT : PCCX_DMA_E_CHANNEL;
}

uint32_t pccx_dma_error(unsigned channel) {
  if (!valid_channel(channel)) {
    return 0u;
  }
  return uca_hal_read32(PCCX_DMA_REG(channel, PCCX_DMA_REG_ERR));
}

void pccx_dma_clear_error(unsigned channel) {
  if (!valid_channel(channel)) {
    return;
  }
  uca_hal_write32(PCCX_DMA_REG(channel, PCCX_DMA_REG_ERR), PCCX_DMA_ERR_ALL);
}

uint32_t pccx_dma_flags(unsigned channel) {
  if (!valid_channel(channel)) {
    return 0u;
  }
  return uca_hal_read32(PCCX_DMA_REG(channel, PCCX_DMA_REG_FLAGS));
}

uint32_t pccx_dma_pending(unsigned channel) {
  if (!valid_channel(channel)) {
    return 0u;
  }
  return uca_hal_read32(PCCX_DMA_REG(channel, PCCX_DMA_REG_CMD_LVL));
}

uint64_t pccx_dma_bytes_done(unsigned channel) {
  uint32_t lo;
  uint32_t hi;
  if (!valid_channel(channel)) {
    return 0u;
  }
  /* LO first: reading LO latches HI. */
  lo = uca_hal_read32(PCCX_DMA_REG(channel, PCCX_DMA_REG_BYTES_DONE_LO));
  hi = uca_hal_read32(PCCX_DMA_REG(channel, PCCX_DMA_REG_BYTES_DONE_HI));
  return ((uint64_t)hi << 32) | (uint64_t)lo;
}
