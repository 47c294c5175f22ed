/* The application CPU's access to DDR, for firmware that places weights,
 * KV caches and activations before the NPU streams them.
 *
 * Like the uCA HAL, this layer is supplied by whoever runs the firmware: on
 * the KV260 DDR is plain memory at its physical address
 * (firmware/hal/kv260/pccx_host_mem_kv260.c); on the virtual platform each
 * call is a timed transfer through the CPU's port of the DDR controller,
 * accounted as traffic class "host". Addresses are DDR byte addresses as the
 * NPU's DMA descriptors use them. */
#ifndef PCCX_HOST_MEM_H
#define PCCX_HOST_MEM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void pccx_host_write(uint64_t ddr_addr, const void* src, uint32_t bytes);
void pccx_host_read(uint64_t ddr_addr, void* dst, uint32_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* PCCX_HOST_MEM_H */
