/* KV260 bare metal: DDR is memory at its physical address. Byte copies
 * through volatile pointers keep the compiler from turning them into
 * library calls in a freestanding build; cache maintenance before DMA is
 * the caller's, as with any DMA buffer. */
#include <stddef.h>

#include "pccx_host_mem.h"

void pccx_host_write(uint64_t ddr_addr, const void* src, uint32_t bytes) {
  volatile uint8_t* dst = (volatile uint8_t*)(uintptr_t)ddr_addr;
  const uint8_t* s = (const uint8_t*)src;
  for (uint32_t i = 0; i < bytes; ++i) dst[i] = s[i];
}

void pccx_host_read(uint64_t ddr_addr, void* dst, uint32_t bytes) {
  const volatile uint8_t* src = (const volatile uint8_t*)(uintptr_t)ddr_addr;
  uint8_t* d = (uint8_t*)dst;
  for (uint32_t i = 0; i < bytes; ++i) d[i] = src[i];
}
