/* gemv_bringup: the first GEMV a driver brings up, written as a driver
 * engineer would: a 32 x 64 INT4 weight matrix and 64 activations placed in
 * DDR, the activations moved into the L2 (ACP_FMAP descriptor + MEMCPY),
 * the weight rows streamed through the GEMV's two weight FIFOs (even rows on
 * HP2, odd rows on HP3), the shapes set with MEMSET, one GEMV, the result
 * moved back to DDR (ACP_RESULT + MEMCPY), then checked against the CPU's
 * own dot products. docs/guides/user-guide.md walks through it.
 *
 * Built three times: as `gemv_bringup`; with GEMV_BRINGUP_BUG defined as
 * `gemv_bringup_buggy`, which makes the classic mistake of writing the
 * weight shape as (M, K, N) instead of (M, N, K), so that the platform
 * fails the GEMV with a unit fault naming both shape slots; and with
 * GEMV_BRINGUP_ROUTE_BUG defined as `gemv_bringup_route_bug`, whose MEMCPYs
 * are encoded the way the upstream uCA_v1_api.c encodes them (from_device
 * = route[4], to_device = route[0]), which turns UCA_ROUTE_HOST_TO_L2 into
 * an L2->host move and UCA_ROUTE_L2_TO_HOST into a host->L2 one. Every
 * instruction is legal; only the driver lint names the mistake.
 *
 * Exit codes: 0 all outputs match, 1 no NPU, 2 DMA refused, 3 NPU error
 * (printed with its code and instruction number), 4 timeout, 5 mismatch. */
#include <stdint.h>

#include "pccx_dma.h"
#include "pccx_firmware.h"
#include "pccx_host_mem.h"
#include "pccx_simctl.h"
#include "pccx_uca_ext.h"
#include "uCA_v1_api.h"
#ifdef GEMV_BRINGUP_ROUTE_BUG
#include "pccx_isa_encode.h"
#include "uCA_v1_hal.h"
#endif

#define N_ROWS 32u
#define K_COLS 64u
#define DDR_WEIGHTS_EVEN 0x50000000ull
#define DDR_WEIGHTS_ODD 0x50010000ull
#define DDR_ACT 0x50020000ull
#define DDR_OUT 0x50030000ull
#define L2_ACT 0x40u
#define L2_OUT 0x80u
#ifdef GEMV_BRINGUP_ROUTE_BUG
/* The upstream encoding of a route: its nibbles' low bits as the ISA's
 * from/to bits. */
static void upstream_memcpy(uint8_t route, uint32_t dest, uint32_t src, uint8_t shape,
                            uint8_t async) {
  uca_hal_issue_instr(pccx_encode_memcpy((route >> 4) & 1u, route & 1u, dest, src, 0u, shape,
                                         async));
}
#define uca_memcpy upstream_memcpy
#endif

#define SLOT_ACT 2u
#define SLOT_W 3u
#define SLOT_OUT 4u

static int weight(uint32_t n, uint32_t k) {
  const uint32_t v = (n * 5u + k * 3u + (n * k) % 7u) % 15u;
  return (int)v - 7; /* -7 .. 7 */
}

static int activation(uint32_t k) {
  return k == 5u ? 127 : (int)((k * 29u) % 33u) - 16; /* max |x| = 127: INT8 exactly */
}

static uint16_t bf16_of_int(int32_t v) {
  union {
    float f;
    uint32_t u;
  } x;
  x.f = (float)v;
  return (uint16_t)((x.u + 0x7FFFu + ((x.u >> 16) & 1u)) >> 16);
}

static void print_error(void) {
  pccx_npu_error err;
  pccx_line l;
  (void)pccx_npu_read_error(&err);
  pccx_line_start(&l, "gemv_bringup: NPU error ");
  pccx_line_dec(&l, err.code);
  pccx_line_str(&l, " on instruction #");
  pccx_line_dec(&l, err.sequence);
  pccx_line_str(&l, " (see the log and the instruction trace)");
  pccx_simctl_print(l.text);
}

int pccx_firmware_main(void) {
  static uint8_t rows[2][N_ROWS / 2u * K_COLS / 2u];
  uint16_t act[K_COLS], out[N_ROWS];
  pccx_dma_status st;
  if (uca_init() != 0) return 1;

  /* Data in DDR: rows n mod 2 apart, two INT4 per byte (even k low). */
  for (uint32_t n = 0; n < N_ROWS; ++n)
    for (uint32_t k = 0; k < K_COLS; k += 2u)
      rows[n % 2u][(n / 2u) * (K_COLS / 2u) + k / 2u] =
          (uint8_t)((weight(n, k) & 0xF) | ((weight(n, k + 1u) & 0xF) << 4));
  for (uint32_t k = 0; k < K_COLS; ++k) act[k] = bf16_of_int(activation(k));
  pccx_host_write(DDR_WEIGHTS_EVEN, rows[0], sizeof rows[0]);
  pccx_host_write(DDR_WEIGHTS_ODD, rows[1], sizeof rows[1]);
  pccx_host_write(DDR_ACT, act, sizeof act);

  pccx_simctl_marker("gemv_bringup: shapes");
  uca_memset(0, SLOT_ACT, 1, 1, K_COLS);
#ifdef GEMV_BRINGUP_BUG
  uca_memset(1, SLOT_W, 1, K_COLS, N_ROWS); /* the bug: (M, K, N) */
#else
  uca_memset(1, SLOT_W, 1, N_ROWS, K_COLS); /* (M, N, K) */
#endif
  uca_memset(0, SLOT_OUT, 1, 1, N_ROWS);

  pccx_simctl_marker("gemv_bringup: activations in");
  if (pccx_dma_submit(PCCX_DMA_ACP_FMAP, DDR_ACT, sizeof act, 1u) != PCCX_DMA_OK) return 2;
  uca_memcpy(UCA_ROUTE_HOST_TO_L2, L2_ACT, 0, SLOT_ACT, 0);

  pccx_simctl_marker("gemv_bringup: GEMV");
  if (pccx_dma_submit(PCCX_DMA_HP2, DDR_WEIGHTS_EVEN, sizeof rows[0], 2u) != PCCX_DMA_OK ||
      pccx_dma_submit(PCCX_DMA_HP3, DDR_WEIGHTS_ODD, sizeof rows[1], 3u) != PCCX_DMA_OK)
    return 2;
  uca_gemv(L2_OUT, L2_ACT, 0, SLOT_ACT, SLOT_W, 0);

  pccx_simctl_marker("gemv_bringup: result out");
  if (pccx_dma_submit(PCCX_DMA_ACP_RESULT, DDR_OUT, sizeof out, 4u) != PCCX_DMA_OK) return 2;
  uca_memcpy(UCA_ROUTE_L2_TO_HOST, 0, L2_OUT, SLOT_OUT, 0);

  const int rc = uca_sync(100000u);
  if (rc == PCCX_SYNC_NPU_ERROR) {
    print_error();
    return 3;
  }
  if (rc != 0 || pccx_dma_wait_status(PCCX_DMA_ACP_RESULT, &st, 100000u) != PCCX_DMA_OK) return 4;

  pccx_host_read(DDR_OUT, out, sizeof out);
  for (uint32_t n = 0; n < N_ROWS; ++n) {
    int32_t dot = 0;
    for (uint32_t k = 0; k < K_COLS; ++k) dot += weight(n, k) * activation(k);
    if (out[n] != bf16_of_int(dot)) {
      pccx_line l;
      pccx_line_start(&l, "gemv_bringup: output ");
      pccx_line_dec(&l, n);
      pccx_line_str(&l, " differs from the CPU's dot product");
      pccx_simctl_print(l.text);
      return 5;
    }
  }
  pccx_simctl_print("gemv_bringup: 32 outputs match the CPU's dot products");
  uca_deinit();
  return 0;
}
