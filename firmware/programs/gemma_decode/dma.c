/* DMA bookkeeping: descriptors whose status is not yet popped, per channel,
 * and the class each channel was last set to. */
#include "gemma_decode_internal.h"

#define SYNC_TIMEOUT_US 2000000000u
#define STATUS_POLLS 200000000u
/* Polls of a DMA status between looks at the NPU: a wait this long (13 ms
 * of 200 ns reads) only happens when the NPU stopped taking bytes, and a
 * normal decode never pays for the extra read. */
#define POLLS_PER_NPU_CHECK 65536u
#define OUTSTANDING_MAX 4u

static uint32_t g_outstanding[PCCX_DMA_CHANNELS];
static unsigned g_class[PCCX_DMA_CHANNELS];

void gd_dma_reset(void) {
  for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch) {
    g_outstanding[ch] = 0u;
    g_class[ch] = PCCX_DMA_CLASS_LAST + 1u;
  }
}

/* A channel's next status. A halted NPU takes no more bytes, so its
 * channels never finish: a long wait looks at STATUS.ERROR and stops at
 * the first cause instead of polling on. */
static int wait_status(unsigned ch, pccx_dma_status* st) {
  int r = PCCX_DMA_E_TIMEOUT;
  for (uint32_t polled = 0; polled < STATUS_POLLS && r == PCCX_DMA_E_TIMEOUT;
       polled += POLLS_PER_NPU_CHECK) {
    r = pccx_dma_wait_status(ch, st, POLLS_PER_NPU_CHECK);
    if (r == PCCX_DMA_E_TIMEOUT && (uca_hal_read_status() & PCCX_STAT_ERROR) != 0u) return 1;
  }
  return r == PCCX_DMA_OK ? 0 : -1;
}

static int pop_one(unsigned ch) {
  pccx_dma_status st;
  st.errors = 0;
  const int r = wait_status(ch, &st);
  if (r > 0) return gd_fail_npu_error();
  if (r != 0 || st.errors != 0) {
    pccx_line l;
    gd_line_start(&l, "DMA channel ");
    pccx_line_dec(&l, ch);
    pccx_line_str(&l, ": no status or error bits ");
    pccx_line_dec(&l, st.errors);
    return gd_fail(&l, GD_EXIT_DMA);
  }
  --g_outstanding[ch];
  return 0;
}

/* Keeps at most OUTSTANDING_MAX - room descriptors unpopped on `ch`. */
static int make_room(unsigned ch, uint32_t room) {
  while (g_outstanding[ch] + room > OUTSTANDING_MAX)
    if (pop_one(ch) != 0) return -1;
  return 0;
}

int gd_submit(unsigned ch, uint64_t addr, uint32_t bytes, unsigned cls) {
  if (make_room(ch, 1u) != 0) return -1;
  if (g_class[ch] != cls) {
    pccx_dma_set_class(ch, cls);
    g_class[ch] = cls;
  }
  if (pccx_dma_submit(ch, addr, bytes, 1u) != PCCX_DMA_OK)
    return gd_fail_msg("a DMA descriptor was refused", GD_EXIT_DMA);
  ++g_outstanding[ch];
  return 0;
}

static int drain_all(void) {
  for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch)
    while (g_outstanding[ch] != 0u)
      if (pop_one(ch) != 0) return -1;
  return 0;
}

/* Rows [r0, r0 + n) of a matrix (r0 a multiple of F): row r from part
 * r mod F on that part's channel, CLASS weights. */
int gd_stream_rows(const gd_block_matrix* m, uint32_t r0, uint32_t n) {
  const uint32_t F = gd_m.wf;
  for (uint32_t f = 0; f < F && f < n; ++f) {
    const uint32_t rows = (n - f + F - 1u) / F;
    if (gd_submit(gd_m.wch[f], m->part[f] + (uint64_t)(r0 / F) * m->record_bytes,
                  rows * m->record_bytes, PCCX_DMA_CLASS_WEIGHTS) != 0)
      return -1;
  }
  return 0;
}

/* Row r alone, for a 1-row GEMV: its record on the first channel (a GEMV's
 * row 0 comes from its first FIFO). */
int gd_stream_row(const gd_block_matrix* m, uint32_t r) {
  const uint64_t at = m->part[r % gd_m.wf] + (uint64_t)(r / gd_m.wf) * m->record_bytes;
  return gd_submit(gd_m.wch[0], at, m->record_bytes, PCCX_DMA_CLASS_WEIGHTS);
}

/* The weights of a GEMM over columns [n0, n0 + n) and inputs [k0, k0 + k)
 * of a matrix, cut from its row records on HP0 (even columns) and HP1
 * (odd), CLASS weights (docs/models/gemm.md, "Weight stream"). */
int gd_stream_gemm(const gd_block_matrix* m, uint32_t n0, uint32_t n, uint32_t k0, uint32_t k) {
  pccx_dma_records r;
  for (unsigned f = 0; f < GD_MAX_WEIGHT_STREAMS; ++f) r.part[f] = m->part[f];
  r.parts = m->parts;
  r.record_bytes = m->record_bytes;
  r.scaled = gd_m.weight_scales;
  for (unsigned ch = PCCX_DMA_HP0; ch <= PCCX_DMA_HP1; ++ch) {
    if (make_room(ch, 2u) != 0) return -1;
    if (g_class[ch] != PCCX_DMA_CLASS_WEIGHTS) {
      pccx_dma_set_class(ch, PCCX_DMA_CLASS_WEIGHTS);
      g_class[ch] = PCCX_DMA_CLASS_WEIGHTS;
    }
  }
  const int pushed = pccx_dma_submit_gemm_weights(&r, n0, n, k0, k, 1u);
  if (pushed < 0)
    return gd_fail_msg("the GEMM's weights cannot be cut from the records", GD_EXIT_DMA);
  for (unsigned ch = PCCX_DMA_HP0; ch <= PCCX_DMA_HP1 && ch < n; ++ch)
    g_outstanding[ch] += (uint32_t)pushed;
  return 0;
}

/* One KV stream (layer, head, K|V) split over the weight channels. */
int gd_stream_kv(const pccx_kv_handle* h, uint32_t index, uint32_t head, int is_value) {
  unsigned pushed[GD_MAX_WEIGHT_STREAMS] = {0u, 0u, 0u, 0u};
  for (uint32_t f = 0; f < gd_m.wf; ++f)
    if (make_room(gd_m.wch[f], 2u) != 0) return -1;
  const int64_t r =
      pccx_kv_submit_stream_split(h, index, head, is_value, gd_m.wch, gd_m.wf, 1u, pushed);
  if (r < 0) return gd_fail_msg(pccx_kv_strerror((int)r), GD_EXIT_KV);
  for (uint32_t f = 0; f < gd_m.wf; ++f) {
    g_class[gd_m.wch[f]] = PCCX_DMA_CLASS_KV_READ;
    g_outstanding[gd_m.wch[f]] += pushed[f];
  }
  return 0;
}

int gd_finish_token(void) {
  const int rc = uca_sync(SYNC_TIMEOUT_US);
  if (rc == PCCX_SYNC_NPU_ERROR) return gd_fail_npu_error();
  if (rc != 0) return gd_fail_msg("uca_sync timed out", GD_EXIT_TIMEOUT);
  return drain_all();
}
