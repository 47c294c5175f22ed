/* ffn_example: the feed-forward block of one token on the NPU,
 *
 *   y = W_down · GELU(W_gate · x),   x, y: D BF16,  W_gate: F x D,  W_down: D x F,
 *
 * with INT4 weights (one BF16 scale per row) streamed from DDR, the uCA API
 * sequence MEMSET shapes, MEMCPY x host->L2, GEMV gate, CVO GELU, GEMV down,
 * MEMCPY y L2->host, uca_sync.
 *
 * The host describes the problem in a parameter block at DDR FFN_PARAM_ADDR
 * before the program runs (little endian, 48 bytes):
 *
 *   0  u32 magic   FFN_PARAM_MAGIC ("FFN1")
 *   4  u32 D       model width, a multiple of 8, 8..65535
 *   8  u32 F       hidden width, 1..65535
 *  12  u32 flags   0
 *  16  u64 x       D BF16 (2·D bytes)
 *  24  u64 w_gate  F row records of K = D, even rows first, then odd rows
 *  32  u64 w_down  D row records of K = F, even rows first, then odd rows
 *  40  u64 y       2·D bytes, written by the program
 *
 * A row record is the GEMV engine's (docs/models/gemv.md) with w_scale: one BF16
 * scale, then ceil(K/2) bytes of INT4 pairs, zero padded to a multiple of 16
 * bytes (npu.gemv.scale_group = 0). The engine takes output row n from weight
 * FIFO n mod 2, so the even rows stream through HP2 and the odd rows through
 * HP3; the block's layout lets each stream be one descriptor. All addresses
 * are multiples of 16.
 *
 * Returns 0 on success. On a failure the program prints the reason and ends
 * the run through the sim-control EXIT register with one of the FFN_EXIT_*
 * codes below. It needs simulation.mode=functional for values. Freestanding:
 * it builds for the KV260 like every program here. */
#include <stdint.h>

#include "pccx_dma.h"
#include "pccx_firmware.h"
#include "pccx_host_mem.h"
#include "pccx_simctl.h"
#include "pccx_uca_ext.h"
#include "uCA_v1_api.h"

#define FFN_PARAM_ADDR 0x10000000ull
#define FFN_PARAM_BYTES 48u
#define FFN_PARAM_MAGIC 0x314E4646u /* bytes 'F' 'F' 'N' '1' */

/* Exit codes. */
#define FFN_EXIT_NO_NPU 1
#define FFN_EXIT_BAD_MAGIC 2
#define FFN_EXIT_BAD_SIZE 3
#define FFN_EXIT_L2_FIT 4
#define FFN_EXIT_BAD_ADDRESS 5
#define FFN_EXIT_NPU_ERROR 6
#define FFN_EXIT_TIMEOUT 7
#define FFN_EXIT_API_ERROR 8
#define FFN_EXIT_DMA 9

/* The v002 L2 (npu.l2.words) and CVO length limit (npu.sfu.max_length). */
#define FFN_L2_WORDS 114688u
#define FFN_CVO_MAX 2048u
#define FFN_SHAPE_MAX 65535u /* MEMSET fields are 16 bits */
#define FFN_L2_BASE 0x100u   /* first L2 word used */

/* Constant-cache slots. */
#define SLOT_FMAP_D 1u /* fmap_shape (1, 1, D): x, gate activations, y */
#define SLOT_FMAP_F 2u /* fmap_shape (1, 1, F): down activations */
#define SLOT_W_GATE 1u /* weight_shape (1, F, D) */
#define SLOT_W_DOWN 2u /* weight_shape (1, D, F) */
#define CACHE_FMAP 0u
#define CACHE_WEIGHT 1u

/* DMA descriptor tags. */
#define TAG_X 1u
#define TAG_GATE 2u
#define TAG_DOWN 3u
#define TAG_Y 4u

#define STATUS_POLLS 100000u

typedef struct {
  uint32_t magic, d, f, flags;
  uint64_t x, w_gate, w_down, y;
} ffn_params;

static void start(pccx_line* l, const char* what) {
  pccx_line_start(l, "ffn_example: ");
  pccx_line_str(l, what);
}

/* Prints the line and ends the run with `code`. */
static int fail(pccx_line* l, int code) {
  pccx_simctl_print(l->text);
  pccx_simctl_exit(code);
  return code;
}

static uint32_t le32(const uint8_t* p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint64_t le64(const uint8_t* p) {
  return (uint64_t)le32(p) | ((uint64_t)le32(p + 4) << 32);
}

static uint32_t words_of(uint32_t elements) {
  return (elements + 7u) / 8u;
}

/* Bytes of one row record of K inputs with one BF16 scale. */
static uint32_t record_bytes(uint32_t k) {
  return (2u + (k + 1u) / 2u + 15u) / 16u * 16u;
}

/* Checks the block; on a problem prints why and returns the exit code. */
static int check_params(const ffn_params* p) {
  pccx_line l;
  if (p->magic != FFN_PARAM_MAGIC) {
    start(&l, "bad parameter block at ");
    pccx_line_hex(&l, FFN_PARAM_ADDR);
    pccx_line_str(&l, ": magic ");
    pccx_line_hex(&l, p->magic);
    pccx_line_str(&l, ", expected ");
    pccx_line_hex(&l, FFN_PARAM_MAGIC);
    pccx_line_str(&l, " (\"FFN1\")");
    return fail(&l, FFN_EXIT_BAD_MAGIC);
  }
  if (p->d == 0 || p->f == 0 || p->d % 8u != 0) {
    start(&l, "bad sizes D = ");
    pccx_line_dec(&l, p->d);
    pccx_line_str(&l, ", F = ");
    pccx_line_dec(&l, p->f);
    pccx_line_str(&l, ": D must be a positive multiple of 8 and F positive");
    return fail(&l, FFN_EXIT_BAD_SIZE);
  }
  /* x, gate outputs, GELU outputs and y side by side in L2. */
  const uint64_t l2_end =
      FFN_L2_BASE + 2ull * (((uint64_t)p->d + 7u) / 8u) + 2ull * (((uint64_t)p->f + 7u) / 8u);
  if (l2_end > FFN_L2_WORDS) {
    start(&l, "D = ");
    pccx_line_dec(&l, p->d);
    pccx_line_str(&l, ", F = ");
    pccx_line_dec(&l, p->f);
    pccx_line_str(&l, " do not fit L2: ");
    pccx_line_dec(&l, l2_end - FFN_L2_BASE);
    pccx_line_str(&l, " words needed from word ");
    pccx_line_hex(&l, FFN_L2_BASE);
    pccx_line_str(&l, ", the L2 has ");
    pccx_line_dec(&l, FFN_L2_WORDS);
    return fail(&l, FFN_EXIT_L2_FIT);
  }
  if (p->d > FFN_SHAPE_MAX || p->f > FFN_SHAPE_MAX) {
    start(&l, "D = ");
    pccx_line_dec(&l, p->d);
    pccx_line_str(&l, ", F = ");
    pccx_line_dec(&l, p->f);
    pccx_line_str(&l, ": a shape extent above 65535 does not fit the MEMSET fields");
    return fail(&l, FFN_EXIT_BAD_SIZE);
  }
  if (p->flags != 0 || ((p->x | p->w_gate | p->w_down | p->y) & 15u) != 0) {
    start(&l, "bad parameter block: flags ");
    pccx_line_hex(&l, p->flags);
    pccx_line_str(&l, " must be 0 and every address a multiple of 16 (x ");
    pccx_line_hex(&l, p->x);
    pccx_line_str(&l, ", w_gate ");
    pccx_line_hex(&l, p->w_gate);
    pccx_line_str(&l, ", w_down ");
    pccx_line_hex(&l, p->w_down);
    pccx_line_str(&l, ", y ");
    pccx_line_hex(&l, p->y);
    pccx_line_str(&l, ")");
    return fail(&l, FFN_EXIT_BAD_ADDRESS);
  }
  return 0;
}

/* Queues the two weight streams of a matrix with `rows` records of `k`
 * inputs: even rows on HP2, odd rows on HP3. */
static int submit_weights(uint64_t base, uint32_t rows, uint32_t k, unsigned tag) {
  const uint32_t rec = record_bytes(k);
  const uint32_t even = (rows + 1u) / 2u, odd = rows / 2u;
  if (pccx_dma_submit(PCCX_DMA_HP2, base, even * rec, tag) != PCCX_DMA_OK) return -1;
  if (odd != 0 &&
      pccx_dma_submit(PCCX_DMA_HP3, base + (uint64_t)even * rec, odd * rec, tag) != PCCX_DMA_OK)
    return -1;
  return 0;
}

/* Pops the status of the descriptor tagged `tag` on `channel`; 0 if it
 * completed without error. */
static int expect_status(unsigned channel, unsigned tag, const char* what) {
  pccx_dma_status st;
  st.tag = 0;
  st.errors = 0;
  const int rc = pccx_dma_wait_status(channel, &st, STATUS_POLLS);
  if (rc == PCCX_DMA_OK && st.tag == tag) return 0;
  pccx_line l;
  start(&l, "DMA ");
  pccx_line_str(&l, what);
  if (rc == PCCX_DMA_E_TIMEOUT) {
    pccx_line_str(&l, ": no status");
  } else {
    pccx_line_str(&l, ": status tag ");
    pccx_line_dec(&l, st.tag);
    pccx_line_str(&l, ", error bits ");
    pccx_line_hex(&l, st.errors);
  }
  return fail(&l, FFN_EXIT_DMA);
}

int pccx_firmware_main(void) {
  pccx_line l;
  if (uca_init() != 0) {
    start(&l, "NPU does not answer");
    return fail(&l, FFN_EXIT_NO_NPU);
  }

  uint8_t raw[FFN_PARAM_BYTES];
  pccx_host_read(FFN_PARAM_ADDR, raw, FFN_PARAM_BYTES);
  ffn_params p;
  p.magic = le32(raw + 0);
  p.d = le32(raw + 4);
  p.f = le32(raw + 8);
  p.flags = le32(raw + 12);
  p.x = le64(raw + 16);
  p.w_gate = le64(raw + 24);
  p.w_down = le64(raw + 32);
  p.y = le64(raw + 40);
  const int bad = check_params(&p);
  if (bad != 0) return bad;

  const uint32_t D = p.d, F = p.f;
  const uint32_t l2_x = FFN_L2_BASE;
  const uint32_t l2_h = l2_x + words_of(D);
  const uint32_t l2_g = l2_h + words_of(F);
  const uint32_t l2_y = l2_g + words_of(F);

  pccx_simctl_marker("ffn_example: shapes");
  uca_memset(CACHE_FMAP, SLOT_FMAP_D, 1, 1, (uint16_t)D);
  uca_memset(CACHE_FMAP, SLOT_FMAP_F, 1, 1, (uint16_t)F);
  uca_memset(CACHE_WEIGHT, SLOT_W_GATE, 1, (uint16_t)F, (uint16_t)D);
  uca_memset(CACHE_WEIGHT, SLOT_W_DOWN, 1, (uint16_t)D, (uint16_t)F);

  pccx_simctl_marker("ffn_example: x to L2, weight streams");
  if (pccx_dma_submit(PCCX_DMA_ACP_FMAP, p.x, 2u * D, TAG_X) != PCCX_DMA_OK ||
      submit_weights(p.w_gate, F, D, TAG_GATE) != 0 ||
      submit_weights(p.w_down, D, F, TAG_DOWN) != 0 ||
      pccx_dma_submit(PCCX_DMA_ACP_RESULT, p.y, 2u * D, TAG_Y) != PCCX_DMA_OK) {
    start(&l, "a DMA descriptor was refused");
    return fail(&l, FFN_EXIT_DMA);
  }
  uca_memcpy(UCA_ROUTE_HOST_TO_L2, l2_x, 0, SLOT_FMAP_D, 0);

  pccx_simctl_marker("ffn_example: GEMV gate");
  uca_gemv(l2_h, l2_x, UCA_FLAG_W_SCALE, SLOT_FMAP_D, SLOT_W_GATE, 0);

  pccx_simctl_marker("ffn_example: GELU");
  for (uint32_t off = 0; off < F; off += FFN_CVO_MAX) {
    const uint32_t len = F - off < FFN_CVO_MAX ? F - off : FFN_CVO_MAX;
    uca_cvo(UCA_CVO_GELU, l2_h + off / 8u, l2_g + off / 8u, (uint16_t)len, 0, 0);
  }

  pccx_simctl_marker("ffn_example: GEMV down");
  uca_gemv(l2_y, l2_g, UCA_FLAG_W_SCALE, SLOT_FMAP_F, SLOT_W_DOWN, 0);

  pccx_simctl_marker("ffn_example: y to DDR");
  uca_memcpy(UCA_ROUTE_L2_TO_HOST, 0, l2_y, SLOT_FMAP_D, 0);

  /* Generous: 10 ms plus 1 us per 256 weight bytes of simulated time. */
  const uint64_t weight_bytes = (uint64_t)F * record_bytes(D) + (uint64_t)D * record_bytes(F);
  const int rc = uca_sync((uint32_t)(10000u + weight_bytes / 256u));
  if (rc == PCCX_SYNC_NPU_ERROR) {
    pccx_npu_error err;
    (void)pccx_npu_read_error(&err);
    start(&l, "NPU error ");
    pccx_line_hex(&l, err.code);
    pccx_line_str(&l, " on instruction #");
    pccx_line_dec(&l, err.sequence);
    pccx_line_str(&l, " (word ");
    pccx_line_hex(&l, err.instruction);
    pccx_line_str(&l, ")");
    return fail(&l, FFN_EXIT_NPU_ERROR);
  }
  if (rc == PCCX_SYNC_API_ERROR) {
    start(&l, "the driver refused a call, API error ");
    pccx_line_dec(&l, (uint64_t)pccx_uca_take_api_error());
    return fail(&l, FFN_EXIT_API_ERROR);
  }
  if (rc != 0) {
    start(&l, "uca_sync timed out");
    return fail(&l, FFN_EXIT_TIMEOUT);
  }

  /* Every descriptor completed; y is in DDR once ACP_RESULT reports it. */
  if (expect_status(PCCX_DMA_ACP_FMAP, TAG_X, "x (ACP_FMAP)") ||
      expect_status(PCCX_DMA_HP2, TAG_GATE, "W_gate even rows (HP2)") ||
      (F > 1u && expect_status(PCCX_DMA_HP3, TAG_GATE, "W_gate odd rows (HP3)")) ||
      expect_status(PCCX_DMA_HP2, TAG_DOWN, "W_down even rows (HP2)") ||
      expect_status(PCCX_DMA_HP3, TAG_DOWN, "W_down odd rows (HP3)") ||
      expect_status(PCCX_DMA_ACP_RESULT, TAG_Y, "y (ACP_RESULT)"))
    return FFN_EXIT_DMA;

  start(&l, "y = W_down * GELU(W_gate * x), D = ");
  pccx_line_dec(&l, D);
  pccx_line_str(&l, ", F = ");
  pccx_line_dec(&l, F);
  pccx_line_str(&l, ": ");
  pccx_line_dec(&l, pccx_npu_read_counter(PCCX_PERF_GEMV_MACS));
  pccx_line_str(&l, " MACs, done at ");
  pccx_line_dec(&l, pccx_simctl_time_ns());
  pccx_line_str(&l, " ns");
  pccx_simctl_print(l.text);
  uca_deinit();
  return 0;
}
