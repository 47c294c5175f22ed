/* uCA v1 public driver API over the uCA HAL.
 *
 * Every issue call checks its arguments, encodes one 64-bit pccx v002
 * instruction with pccx_isa_encode.h and hands it to uca_hal_issue_instr().
 * Unlike the original driver, nothing is masked silently: a value that does
 * not fit its field, or a MEMCPY route the ISA cannot express, issues
 * nothing and latches an API error that uca_sync() reports as
 * PCCX_SYNC_API_ERROR until pccx_uca_take_api_error() collects it.
 *
 * Freestanding: no libc beyond <stdint.h>/<stddef.h>. */
#include "uCA_v1_api.h"

#include <stddef.h>
#include <stdint.h>

#include "pccx_isa.h"
#include "pccx_isa_encode.h"
#include "pccx_uca_ext.h"
#include "pccx_uca_internal.h"
#include "uCA_v1_hal.h"

/* First API error since it was last taken (file-scope singleton, as the
 * documented driver keeps no context). */
static int g_api_error = PCCX_API_OK;

void pccx_uca_internal_set_api_error(int code) {
  if (g_api_error == PCCX_API_OK) {
    g_api_error = code;
  }
}

int pccx_uca_internal_peek_api_error(void) {
  return g_api_error;
}

int pccx_uca_internal_take_api_error(void) {
  int code = g_api_error;
  g_api_error = PCCX_API_OK;
  return code;
}

/* 1 if value fits in an unsigned field of `width` bits. */
static int fits(uint32_t value, unsigned width) {
  return width >= 32u || value < (1u << width);
}

int uca_init(void) {
  g_api_error = PCCX_API_OK;
  /* The HAL reads STATUS and fails when it reads all ones. */
  return uca_hal_init();
}

void uca_deinit(void) {
  uca_hal_deinit();
  g_api_error = PCCX_API_OK;
}

static void issue_matmul(uint32_t opcode, uint32_t dest_reg, uint32_t src_addr, uint8_t flags,
                         uint8_t size_ptr, uint8_t shape_ptr, uint8_t lanes) {
  if (!fits(dest_reg, PCCX_MM_DEST_W) || !fits(src_addr, PCCX_MM_SRC_W) ||
      !fits(flags, PCCX_MM_FLAGS_W) || !fits(size_ptr, PCCX_MM_SIZE_PTR_W) ||
      !fits(shape_ptr, PCCX_MM_SHAPE_PTR_W) || !fits(lanes, PCCX_MM_LANE_W)) {
    pccx_uca_internal_set_api_error(PCCX_API_FIELD_RANGE);
    return;
  }
  uca_hal_issue_instr(
      pccx_encode_matmul(opcode, dest_reg, src_addr, flags, size_ptr, shape_ptr, lanes, 0u));
}

void uca_gemv(uint32_t dest_reg, uint32_t src_addr, uint8_t flags, uint8_t size_ptr,
              uint8_t shape_ptr, uint8_t lanes) {
  issue_matmul(UCA_OP_GEMV, dest_reg, src_addr, flags, size_ptr, shape_ptr, lanes);
}

void uca_gemm(uint32_t dest_reg, uint32_t src_addr, uint8_t flags, uint8_t size_ptr,
              uint8_t shape_ptr, uint8_t lanes) {
  issue_matmul(UCA_OP_GEMM, dest_reg, src_addr, flags, size_ptr, shape_ptr, lanes);
}

void uca_cvo(uint8_t cvo_func, uint32_t src_addr, uint32_t dst_addr, uint16_t length, uint8_t flags,
             uint8_t async) {
  if (!fits(cvo_func, PCCX_CVO_FUNC_W) || !fits(src_addr, PCCX_CVO_SRC_W) ||
      !fits(dst_addr, PCCX_CVO_DST_W) || !fits(length, PCCX_CVO_LEN_W) ||
      !fits(flags, PCCX_CVO_FLAGS_W) || !fits(async, 1)) {
    pccx_uca_internal_set_api_error(PCCX_API_FIELD_RANGE);
    return;
  }
  uca_hal_issue_instr(pccx_encode_cvo(cvo_func, src_addr, dst_addr, length, flags, async));
}

/* Maps a route constant to the ISA's from_device/to_device bits by meaning
 * (ISA: 0 = NPU, 1 = host). Returns 0 for a route the ISA cannot express. */
static int route_bits(uint8_t route, uint32_t* from_host, uint32_t* to_host) {
  switch (route) {
    case UCA_ROUTE_HOST_TO_L2:
      *from_host = 1u;
      *to_host = 0u;
      return 1;
    case UCA_ROUTE_L2_TO_HOST:
      *from_host = 0u;
      *to_host = 1u;
      return 1;
    case PCCX_ROUTE_L2_TO_L2:
      *from_host = 0u;
      *to_host = 0u;
      return 1;
    case PCCX_ROUTE_KV_APPEND:
      *from_host = 1u;
      *to_host = 1u;
      return 1;
    default: return 0;
  }
}

void uca_memcpy(uint8_t route, uint32_t dest_addr, uint32_t src_addr, uint8_t shape_ptr,
                uint8_t async) {
  uint32_t from_host = 0u;
  uint32_t to_host = 0u;
  if (!route_bits(route, &from_host, &to_host)) {
    pccx_uca_internal_set_api_error(PCCX_API_BAD_ROUTE);
    return;
  }
  if (!fits(dest_addr, PCCX_MC_DEST_W) || !fits(src_addr, PCCX_MC_SRC_W) ||
      !fits(shape_ptr, PCCX_MC_SHAPE_PTR_W) || !fits(async, 1)) {
    pccx_uca_internal_set_api_error(PCCX_API_FIELD_RANGE);
    return;
  }
  /* aux_addr stays 0: host addresses come from the DMA descriptors. */
  uca_hal_issue_instr(
      pccx_encode_memcpy(from_host, to_host, dest_addr, src_addr, 0u, shape_ptr, async));
}

void uca_memset(uint8_t dest_cache, uint8_t dest_addr, uint16_t a, uint16_t b, uint16_t c) {
  if (!fits(dest_cache, PCCX_MS_CACHE_W) || !fits(dest_addr, PCCX_MS_SLOT_W)) {
    pccx_uca_internal_set_api_error(PCCX_API_FIELD_RANGE);
    return;
  }
  uca_hal_issue_instr(pccx_encode_memset(dest_cache, dest_addr, a, b, c, 0u));
}

int uca_sync(uint32_t timeout_us) {
  if (pccx_uca_internal_peek_api_error() != PCCX_API_OK) {
    return PCCX_SYNC_API_ERROR;
  }
  return uca_hal_wait_idle(timeout_us);
}
