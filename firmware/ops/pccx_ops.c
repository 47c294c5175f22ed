#include "pccx_ops.h"

#include "pccx_dma.h"
#include "pccx_host_mem.h"
#include "pccx_isa.h"
#include "pccx_uca_ext.h"
#include "uCA_v1_api.h"

static uint32_t g_cvo_max = PCCX_OPS_DEFAULT_CVO_MAX;

int pccx_ops_set_cvo_max(uint32_t elements) {
  if (elements < 8u || elements % 8u != 0u || elements > 65535u) {
    return PCCX_OPS_E_ARG;
  }
  g_cvo_max = elements;
  return PCCX_OPS_OK;
}

uint32_t pccx_ops_cvo_max(void) {
  return g_cvo_max;
}

static int elementwise(uint8_t func) {
  return func != UCA_CVO_REDUCE_SUM && func != UCA_CVO_SCALE && func <= PCCX_CVO_LAST_DEFINED;
}

int pccx_cvo_long(uint8_t func, uint32_t src, uint32_t dst, uint32_t n, uint8_t flags,
                  uint8_t async) {
  uint32_t done = 0u;
  if (n == 0u || !elementwise(func)) {
    return PCCX_OPS_E_ARG;
  }
  while (done < n) {
    const uint32_t len = n - done < g_cvo_max ? n - done : g_cvo_max;
    const uint32_t words = done / 8u;
    /* The last piece keeps `async`; earlier ones never hold issue. */
    uca_cvo(func, src + words, dst + words, (uint16_t)len, flags,
            done + len < n ? (uint8_t)1u : async);
    done += len;
  }
  return PCCX_OPS_OK;
}

int pccx_reduce_sum_long(uint32_t src, uint32_t n, uint32_t dst, uint8_t flags) {
  uint32_t done = 0u;
  if (n == 0u || (flags & UCA_CVO_FLAG_ACCM) != 0u) {
    return PCCX_OPS_E_ARG;
  }
  while (done < n) {
    const uint32_t len = n - done < g_cvo_max ? n - done : g_cvo_max;
    const uint8_t f = (uint8_t)(flags | (done == 0u ? 0u : UCA_CVO_FLAG_ACCM));
    uca_cvo(UCA_CVO_REDUCE_SUM, src + done / 8u, dst, (uint16_t)len, f, 1u);
    done += len;
  }
  return PCCX_OPS_OK;
}

uint32_t pccx_rmsnorm_words(uint32_t n) {
  return 6u + (n + 7u) / 8u;
}

uint16_t pccx_bf16_from_float(float f) {
  union {
    float f;
    uint32_t u;
  } v;
  v.f = f;
  if ((v.u & 0x7F800000u) == 0x7F800000u) return (uint16_t)(v.u >> 16); /* inf, NaN */
  return (uint16_t)((v.u + 0x7FFFu + ((v.u >> 16) & 1u)) >> 16);
}

/* Workspace words: 0 [1/n], 1 sum (REDUCE_SUM), 2 [eps], 3 mean, 4 spare,
 * 5 [1/rms], 6.. the vector (squares, then the copy SCALE reads). */
int pccx_rmsnorm_prepare(pccx_rmsnorm_ws* ws, uint32_t n, uint16_t eps_bf16) {
  uint16_t consts[16];
  unsigned i;
  pccx_dma_status st;
  if (ws == 0 || n == 0u || (ws->ddr & 15u) != 0u) {
    return PCCX_OPS_E_ARG;
  }
  if (n > g_cvo_max) {
    return PCCX_OPS_E_LENGTH;
  }
  /* DDR word 0 = [1/n] to workspace word 0, DDR word 1 = [eps] to word 2. */
  for (i = 0; i < 16u; ++i) {
    consts[i] = 0u;
  }
  consts[0] = pccx_bf16_from_float(1.0f / (float)n);
  consts[8] = eps_bf16;
  pccx_host_write(ws->ddr, consts, sizeof consts);
  uca_memset(0, ws->shape_slot, 1, 1, 8);
  if (pccx_dma_submit(PCCX_DMA_ACP_FMAP, ws->ddr, 16u, 0u) != PCCX_DMA_OK ||
      pccx_dma_submit(PCCX_DMA_ACP_FMAP, ws->ddr + 16u, 16u, 0u) != PCCX_DMA_OK) {
    return PCCX_OPS_E_DMA;
  }
  uca_memcpy(UCA_ROUTE_HOST_TO_L2, ws->first + 0u, 0u, ws->shape_slot, 1u);
  uca_memcpy(UCA_ROUTE_HOST_TO_L2, ws->first + 2u, 0u, ws->shape_slot, 1u);
  if (uca_sync(100000u) != 0 || pccx_dma_wait_status(PCCX_DMA_ACP_FMAP, &st, 1000u) != 0 ||
      pccx_dma_wait_status(PCCX_DMA_ACP_FMAP, &st, 1000u) != 0) {
    return PCCX_OPS_E_DMA;
  }
  ws->n = n;
  return PCCX_OPS_OK;
}

/* mean(x^2) + eps into workspace word 3, then its square root. */
static void rms_into_word3(const pccx_rmsnorm_ws* ws, uint32_t x, uint32_t n) {
  const uint32_t w = ws->first;
  /* Squares: copy x, then MUL(x, copy). */
  uca_memset(0, ws->shape_slot, 1, 1, (uint16_t)n);
  uca_memcpy(PCCX_ROUTE_L2_TO_L2, w + 6u, x, ws->shape_slot, 1u);
  uca_cvo(PCCX_CVO_MUL, x, w + 6u, (uint16_t)n, 0u, 1u);
  uca_cvo(UCA_CVO_REDUCE_SUM, w + 6u, w + 1u, (uint16_t)n, 0u, 1u);
  uca_cvo(UCA_CVO_SCALE, w + 0u, w + 3u, 1u, 0u, 1u); /* mean = sum / n */
  uca_cvo(PCCX_CVO_ADD, w + 2u, w + 3u, 1u, 0u, 1u);  /* + eps */
  uca_cvo(UCA_CVO_SQRT, w + 3u, w + 3u, 1u, 0u, 1u);  /* rms */
}

int pccx_rmsnorm_ex(const pccx_rmsnorm_ws* ws, uint32_t x, uint32_t gamma, uint32_t out, uint32_t n,
                    uint32_t scalar) {
  uint32_t w;
  if (ws == 0 || n == 0u || ws->n != n) {
    return PCCX_OPS_E_ARG;
  }
  w = ws->first;
  rms_into_word3(ws, x, n);
  uca_cvo(UCA_CVO_RECIP, w + 3u, w + 5u, 1u, 0u, 1u); /* 1 / rms, before the vector */
  if (scalar != PCCX_OPS_NONE) {
    uca_cvo(PCCX_CVO_MUL, scalar, w + 5u, 1u, 0u, 1u);
  }
  uca_memcpy(PCCX_ROUTE_L2_TO_L2, w + 6u, x, ws->shape_slot, 1u);
  uca_cvo(UCA_CVO_SCALE, w + 5u, out, (uint16_t)n, 0u, 1u);
  if (gamma != PCCX_OPS_NONE) {
    uca_cvo(PCCX_CVO_MUL, gamma, out, (uint16_t)n, 0u, 1u);
  }
  return PCCX_OPS_OK;
}

int pccx_rmsnorm(const pccx_rmsnorm_ws* ws, uint32_t x, uint32_t gamma, uint32_t out, uint32_t n) {
  return pccx_rmsnorm_ex(ws, x, gamma, out, n, PCCX_OPS_NONE);
}

int pccx_rms_value(const pccx_rmsnorm_ws* ws, uint32_t x, uint32_t dst, uint32_t n) {
  if (ws == 0 || n == 0u || ws->n != n) {
    return PCCX_OPS_E_ARG;
  }
  rms_into_word3(ws, x, n);
  uca_memset(0, ws->shape_slot, 1, 1, 8u);
  uca_memcpy(PCCX_ROUTE_L2_TO_L2, dst, ws->first + 3u, ws->shape_slot, 1u);
  return PCCX_OPS_OK;
}
