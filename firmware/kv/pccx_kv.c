/* KV-cache ring manager (pccx_kv.h, docs/models/kv-driver.md). Freestanding: no
 * libc beyond <stdint.h>/<stddef.h>; the only hardware access is through the
 * DMA helpers (pccx_dma.h). */
#include "pccx_kv.h"

#include <stddef.h>
#include <stdint.h>

#include "pccx_dma.h"

/* A run of consecutive slots of a stream, the same for every stream. */
typedef struct {
  uint32_t slot;
  uint32_t count;
} kv_run;

static uint32_t min_u32(uint32_t a, uint32_t b) {
  return a < b ? a : b;
}

static int is_ready(const pccx_kv_handle* h) {
  return h != NULL && h->ready == 1u;
}

/* C - S: slots of the non-sink part of a stream. Non-zero once ready. */
static uint32_t ring_slots(const pccx_kv_handle* h) {
  return h->max_tokens - h->sinks;
}

/* R: non-sink tokens the valid set can hold. */
static uint32_t reach(const pccx_kv_handle* h) {
  uint32_t r = ring_slots(h);
  if (h->window != 0u && h->window < r) {
    r = h->window;
  }
  return r;
}

/* max(S, evicted, n - R), at most n. */
static uint32_t window_start(const pccx_kv_handle* h) {
  uint32_t n = h->appended;
  uint32_t r = reach(h);
  uint32_t a = h->sinks;
  if (h->evicted > a) {
    a = h->evicted;
  }
  if (n > r && n - r > a) {
    a = n - r;
  }
  return a < n ? a : n;
}

static uint32_t slot_of(const pccx_kv_handle* h, uint32_t pos) {
  if (pos < h->sinks) {
    return pos;
  }
  return h->sinks + (pos - h->sinks) % ring_slots(h);
}

/* The valid slots in stream order; returns the number of runs (0..2). */
static int valid_runs(const pccx_kv_handle* h, kv_run runs[2]) {
  uint32_t n = h->appended;
  uint32_t ns = min_u32(h->sinks, n);
  uint32_t a = window_start(h);
  uint32_t m = n - a; /* non-sink tokens in the window */
  uint32_t sa;
  uint32_t first;
  if (m == 0u) {
    if (ns == 0u) {
      return 0;
    }
    runs[0].slot = 0u;
    runs[0].count = ns;
    return 1;
  }
  /* m > 0 means n > S, so ns == S here. */
  sa = slot_of(h, a);
  if (m <= h->max_tokens - sa) {
    if (ns == 0u) {
      runs[0].slot = sa;
      runs[0].count = m;
      return 1;
    }
    if (sa == ns) {
      runs[0].slot = 0u;
      runs[0].count = ns + m;
      return 1;
    }
    runs[0].slot = 0u;
    runs[0].count = ns;
    runs[1].slot = sa;
    runs[1].count = m;
    return 2;
  }
  /* Wrapped: [sa, C), then the sinks followed by the window's tail from
   * slot S. The tail ends at or before sa because m <= C - S. */
  first = h->max_tokens - sa;
  runs[0].slot = sa;
  runs[0].count = first;
  runs[1].slot = 0u;
  runs[1].count = ns + (m - first);
  return 2;
}

/* Checks the handle and the stream selectors. */
static int check_stream(const pccx_kv_handle* h, uint32_t layer, uint32_t head, int is_value) {
  if (h == NULL || (is_value != PCCX_KV_K && is_value != PCCX_KV_V)) {
    return PCCX_KV_E_ARG;
  }
  if (!is_ready(h)) {
    return PCCX_KV_E_NOT_READY;
  }
  if (layer >= h->layers || head >= h->kv_heads) {
    return PCCX_KV_E_RANGE;
  }
  return PCCX_KV_OK;
}

static uint64_t stream_base(const pccx_kv_handle* h, uint32_t layer, uint32_t head, int is_value) {
  uint64_t base = h->ddr_base + (uint64_t)layer * h->layer_stride + (uint64_t)head * h->head_stride;
  if (is_value == PCCX_KV_V) {
    base += (uint64_t)h->max_tokens * h->k_record_bytes;
  }
  return base;
}

static uint32_t record_bytes(const pccx_kv_handle* h, int is_value) {
  return is_value == PCCX_KV_V ? h->v_record_bytes : h->k_record_bytes;
}

/* a * b, or UINT64_MAX when the product does not fit. */
static uint64_t mul_sat(uint64_t a, uint64_t b) {
  if (a != 0u && b > UINT64_MAX / a) {
    return UINT64_MAX;
  }
  return a * b;
}

/* ---- configuration and layout ---- */

int pccx_kv_configure(pccx_kv_handle* h, uint32_t layers, uint32_t kv_heads,
                      uint32_t k_record_bytes, uint32_t v_record_bytes, uint64_t ddr_base,
                      uint64_t ddr_size) {
  if (h == NULL) {
    return PCCX_KV_E_ARG;
  }
  h->layers = layers;
  h->kv_heads = kv_heads;
  h->k_record_bytes = k_record_bytes;
  h->v_record_bytes = v_record_bytes;
  h->ddr_base = ddr_base;
  h->ddr_size = ddr_size;
  h->sinks = PCCX_KV_DEFAULT_SINKS;
  h->window = 0u;
  h->max_tokens = 0u;
  h->ready = 0u;
  h->head_stride = 0u;
  h->layer_stride = 0u;
  h->appended = 0u;
  h->evicted = 0u;
  return PCCX_KV_OK;
}

int pccx_kv_set_sinks(pccx_kv_handle* h, uint32_t sinks) {
  if (h == NULL) {
    return PCCX_KV_E_ARG;
  }
  if (is_ready(h)) {
    if (sinks >= h->max_tokens) {
      return PCCX_KV_E_SINKS;
    }
    if (h->appended != 0u) {
      return PCCX_KV_E_STATE;
    }
  }
  h->sinks = sinks;
  return PCCX_KV_OK;
}

uint32_t pccx_kv_sinks(const pccx_kv_handle* h) {
  return h != NULL ? h->sinks : 0u;
}

int pccx_kv_set_window(pccx_kv_handle* h, uint32_t window) {
  if (h == NULL) {
    return PCCX_KV_E_ARG;
  }
  h->window = window;
  return PCCX_KV_OK;
}

uint32_t pccx_kv_window(const pccx_kv_handle* h) {
  return h != NULL ? h->window : 0u;
}

uint64_t pccx_kv_required_bytes(uint32_t layers, uint32_t kv_heads, uint32_t k_record_bytes,
                                uint32_t v_record_bytes, uint32_t max_tokens) {
  uint64_t per_token = (uint64_t)k_record_bytes + (uint64_t)v_record_bytes;
  uint64_t head = mul_sat(per_token, max_tokens);
  uint64_t layer = mul_sat(head, kv_heads);
  return mul_sat(layer, layers);
}

int pccx_kv_init(pccx_kv_handle* h, uint32_t max_tokens) {
  uint64_t need;
  if (h == NULL) {
    return PCCX_KV_E_ARG;
  }
  h->ready = 0u;
  if (h->layers == 0u || h->kv_heads == 0u) {
    return PCCX_KV_E_SHAPE;
  }
  if (h->k_record_bytes == 0u || h->v_record_bytes == 0u || (h->k_record_bytes % 16u) != 0u ||
      (h->v_record_bytes % 16u) != 0u) {
    return PCCX_KV_E_RECORD;
  }
  if (max_tokens == 0u) {
    return PCCX_KV_E_CAP;
  }
  if (h->sinks >= max_tokens) {
    return PCCX_KV_E_SINKS;
  }
  if ((h->ddr_base % 16u) != 0u || h->ddr_size > UINT64_MAX - h->ddr_base) {
    return PCCX_KV_E_REGION;
  }
  need = pccx_kv_required_bytes(h->layers, h->kv_heads, h->k_record_bytes, h->v_record_bytes,
                                max_tokens);
  if (need > h->ddr_size) {
    return PCCX_KV_E_NO_SPACE;
  }
  if ((uint64_t)max_tokens * h->k_record_bytes > PCCX_KV_STREAM_MAX ||
      (uint64_t)max_tokens * h->v_record_bytes > PCCX_KV_STREAM_MAX) {
    return PCCX_KV_E_STREAM;
  }
  h->max_tokens = max_tokens;
  h->head_stride = (uint64_t)max_tokens * ((uint64_t)h->k_record_bytes + h->v_record_bytes);
  h->layer_stride = h->head_stride * h->kv_heads;
  h->appended = 0u;
  h->evicted = 0u;
  h->ready = 1u;
  return PCCX_KV_OK;
}

int pccx_kv_reset(pccx_kv_handle* h) {
  if (h == NULL) {
    return PCCX_KV_E_ARG;
  }
  if (!is_ready(h)) {
    return PCCX_KV_E_NOT_READY;
  }
  h->appended = 0u;
  h->evicted = 0u;
  return PCCX_KV_OK;
}

uint32_t pccx_kv_max_tokens(const pccx_kv_handle* h) {
  return is_ready(h) ? h->max_tokens : 0u;
}

/* ---- appending ---- */

int pccx_kv_append_token(pccx_kv_handle* h, uint32_t* pos) {
  if (h == NULL) {
    return PCCX_KV_E_ARG;
  }
  if (!is_ready(h)) {
    return PCCX_KV_E_NOT_READY;
  }
  if (h->appended == UINT32_MAX) {
    return PCCX_KV_E_POSITION;
  }
  if (pos != NULL) {
    *pos = h->appended;
  }
  ++h->appended;
  return PCCX_KV_OK;
}

int pccx_kv_append_slot(const pccx_kv_handle* h, uint32_t layer, uint32_t head, int is_value,
                        uint64_t* ddr_addr) {
  int r = check_stream(h, layer, head, is_value);
  if (r != PCCX_KV_OK) {
    return r;
  }
  if (ddr_addr == NULL) {
    return PCCX_KV_E_ARG;
  }
  if (h->appended == 0u) {
    return PCCX_KV_E_EMPTY;
  }
  *ddr_addr = stream_base(h, layer, head, is_value) +
              (uint64_t)slot_of(h, h->appended - 1u) * record_bytes(h, is_value);
  return PCCX_KV_OK;
}

int pccx_kv_slot_addr(const pccx_kv_handle* h, uint32_t layer, uint32_t head, int is_value,
                      uint32_t pos, uint64_t* ddr_addr) {
  int r = check_stream(h, layer, head, is_value);
  if (r != PCCX_KV_OK) {
    return r;
  }
  if (ddr_addr == NULL) {
    return PCCX_KV_E_ARG;
  }
  if (pos >= h->appended || (pos >= h->sinks && pos < window_start(h))) {
    return PCCX_KV_E_NOT_VALID;
  }
  *ddr_addr =
      stream_base(h, layer, head, is_value) + (uint64_t)slot_of(h, pos) * record_bytes(h, is_value);
  return PCCX_KV_OK;
}

uint32_t pccx_kv_slot_of(const pccx_kv_handle* h, uint32_t pos) {
  return is_ready(h) ? slot_of(h, pos) : 0u;
}

/* ---- eviction and the valid set ---- */

int pccx_kv_evict(pccx_kv_handle* h, uint32_t upto_idx) {
  if (h == NULL) {
    return PCCX_KV_E_ARG;
  }
  if (!is_ready(h)) {
    return PCCX_KV_E_NOT_READY;
  }
  if (upto_idx > h->appended) {
    return PCCX_KV_E_EVICT;
  }
  if (upto_idx > h->evicted) {
    h->evicted = upto_idx;
  }
  return PCCX_KV_OK;
}

uint32_t pccx_kv_tokens(const pccx_kv_handle* h) {
  return is_ready(h) ? h->appended : 0u;
}

uint32_t pccx_kv_valid_tokens(const pccx_kv_handle* h) {
  if (!is_ready(h)) {
    return 0u;
  }
  return min_u32(h->sinks, h->appended) + (h->appended - window_start(h));
}

uint32_t pccx_kv_window_start(const pccx_kv_handle* h) {
  return is_ready(h) ? window_start(h) : 0u;
}

int pccx_kv_segments(const pccx_kv_handle* h, uint32_t layer, uint32_t head, int is_value,
                     pccx_kv_segment out[2]) {
  kv_run runs[2];
  uint64_t base;
  uint32_t rec;
  int count;
  int i;
  int r = check_stream(h, layer, head, is_value);
  if (r != PCCX_KV_OK) {
    return r;
  }
  if (out == NULL) {
    return PCCX_KV_E_ARG;
  }
  base = stream_base(h, layer, head, is_value);
  rec = record_bytes(h, is_value);
  count = valid_runs(h, runs);
  for (i = 0; i < count; ++i) {
    out[i].addr = base + (uint64_t)runs[i].slot * rec;
    /* Fits: init checked max_tokens x record bytes <= PCCX_KV_STREAM_MAX. */
    out[i].bytes = runs[i].count * rec;
    out[i].tokens = runs[i].count;
  }
  return count;
}

int pccx_kv_stream_position(const pccx_kv_handle* h, uint32_t i, uint32_t* pos) {
  kv_run runs[2];
  int count;
  int k;
  if (h == NULL || pos == NULL) {
    return PCCX_KV_E_ARG;
  }
  if (!is_ready(h)) {
    return PCCX_KV_E_NOT_READY;
  }
  count = valid_runs(h, runs);
  for (k = 0; k < count; ++k) {
    if (i < runs[k].count) {
      uint32_t slot = runs[k].slot + i;
      uint32_t a;
      uint32_t off;
      if (slot < h->sinks) {
        *pos = slot;
        return PCCX_KV_OK;
      }
      /* A window slot: its distance from the window start's slot, around
       * the non-sink part of the ring. */
      a = window_start(h);
      off = slot - h->sinks;
      if (off < slot_of(h, a) - h->sinks) {
        off += ring_slots(h);
      }
      *pos = a + (off - (slot_of(h, a) - h->sinks));
      return PCCX_KV_OK;
    }
    i -= runs[k].count;
  }
  return PCCX_KV_E_NOT_VALID;
}

int pccx_kv_stream_index(const pccx_kv_handle* h, uint32_t pos, uint32_t* i) {
  kv_run runs[2];
  uint32_t slot;
  uint32_t before = 0u;
  int count;
  int k;
  if (h == NULL || i == NULL) {
    return PCCX_KV_E_ARG;
  }
  if (!is_ready(h)) {
    return PCCX_KV_E_NOT_READY;
  }
  if (pos >= h->appended || (pos >= h->sinks && pos < window_start(h))) {
    return PCCX_KV_E_NOT_VALID;
  }
  slot = slot_of(h, pos);
  count = valid_runs(h, runs);
  for (k = 0; k < count; ++k) {
    if (slot >= runs[k].slot && slot - runs[k].slot < runs[k].count) {
      *i = before + (slot - runs[k].slot);
      return PCCX_KV_OK;
    }
    before += runs[k].count;
  }
  return PCCX_KV_E_NOT_VALID;
}

/* ---- DMA ---- */

int64_t pccx_kv_submit_stream(const pccx_kv_handle* h, uint32_t layer, uint32_t head, int is_value,
                              unsigned channel, unsigned tag, unsigned* descriptors) {
  pccx_kv_segment seg[2];
  int64_t total = 0;
  int count;
  int i;
  if (descriptors != NULL) {
    *descriptors = 0u;
  }
  count = pccx_kv_segments(h, layer, head, is_value, seg);
  if (count < 0) {
    return count;
  }
  if (channel > PCCX_DMA_HP3) {
    return PCCX_KV_E_CHANNEL;
  }
  if (tag > PCCX_DMA_TAG_MASK) {
    return PCCX_KV_E_ARG;
  }
  if (count == 0) {
    return 0;
  }
  /* Arguments are checked above, so the helpers cannot refuse. */
  (void)pccx_dma_set_class(channel, PCCX_DMA_CLASS_KV_READ);
  for (i = 0; i < count; ++i) {
    (void)pccx_dma_submit(channel, seg[i].addr, seg[i].bytes, tag);
    total += seg[i].bytes;
  }
  if (descriptors != NULL) {
    *descriptors = (unsigned)count;
  }
  return total;
}

int64_t pccx_kv_submit_stream_split(const pccx_kv_handle* h, uint32_t layer, uint32_t head,
                                    int is_value, const unsigned* channels, unsigned count,
                                    unsigned tag, unsigned* descriptors) {
  pccx_kv_segment seg[2];
  int64_t total = 0;
  uint32_t record, tokens = 0u, f;
  int nseg, i;
  if (channels == NULL || count == 0u || count > 4u) {
    return PCCX_KV_E_ARG;
  }
  nseg = pccx_kv_segments(h, layer, head, is_value, seg);
  if (nseg < 0) {
    return nseg;
  }
  if (tag > PCCX_DMA_TAG_MASK) {
    return PCCX_KV_E_ARG;
  }
  for (f = 0u; f < count; ++f) {
    if (channels[f] > PCCX_DMA_HP3) {
      return PCCX_KV_E_CHANNEL;
    }
    if (descriptors != NULL) {
      descriptors[f] = 0u;
    }
  }
  record = is_value ? h->v_record_bytes : h->k_record_bytes;
  for (i = 0; i < nseg; ++i) {
    tokens += seg[i].tokens;
  }
  for (f = 0u; f < count; ++f) {
    /* Tokens [first, last) of the stream order go to channels[f]. */
    const uint32_t first = (uint32_t)(((uint64_t)f * tokens) / count);
    const uint32_t last = (uint32_t)(((uint64_t)(f + 1u) * tokens) / count);
    uint32_t base = 0u; /* stream index of the segment's first token */
    if (first == last) {
      continue;
    }
    (void)pccx_dma_set_class(channels[f], PCCX_DMA_CLASS_KV_READ);
    for (i = 0; i < nseg; ++i) {
      const uint32_t lo = first > base ? first : base;
      const uint32_t end = base + seg[i].tokens;
      const uint32_t hi = last < end ? last : end;
      if (lo < hi) {
        const uint64_t addr = seg[i].addr + (uint64_t)(lo - base) * record;
        const uint32_t bytes = (hi - lo) * record;
        (void)pccx_dma_submit(channels[f], addr, bytes, tag);
        total += bytes;
        if (descriptors != NULL) {
          ++descriptors[f];
        }
      }
      base = end;
    }
  }
  return total;
}

const char* pccx_kv_strerror(int code) {
  switch (code) {
    case PCCX_KV_OK: return "PCCX_KV_OK: success";
    case PCCX_KV_E_ARG: return "PCCX_KV_E_ARG: NULL pointer, bad K/V selector or DMA tag";
    case PCCX_KV_E_SHAPE: return "PCCX_KV_E_SHAPE: layers and kv_heads must be non-zero";
    case PCCX_KV_E_RECORD: return "PCCX_KV_E_RECORD: record sizes must be non-zero multiples of 16";
    case PCCX_KV_E_CAP: return "PCCX_KV_E_CAP: max_tokens must be non-zero";
    case PCCX_KV_E_SINKS: return "PCCX_KV_E_SINKS: sinks must be below max_tokens";
    case PCCX_KV_E_REGION:
      return "PCCX_KV_E_REGION: ddr_base must be a multiple of 16 and the region below 2^64";
    case PCCX_KV_E_NO_SPACE:
      return "PCCX_KV_E_NO_SPACE: the rings do not fit the DDR region (pccx_kv_required_bytes)";
    case PCCX_KV_E_STREAM:
      return "PCCX_KV_E_STREAM: one stream exceeds a DMA descriptor (PCCX_KV_STREAM_MAX)";
    case PCCX_KV_E_NOT_READY: return "PCCX_KV_E_NOT_READY: pccx_kv_init has not succeeded";
    case PCCX_KV_E_RANGE: return "PCCX_KV_E_RANGE: layer or head out of range";
    case PCCX_KV_E_EVICT: return "PCCX_KV_E_EVICT: eviction beyond the write position";
    case PCCX_KV_E_EMPTY: return "PCCX_KV_E_EMPTY: no token appended yet";
    case PCCX_KV_E_POSITION: return "PCCX_KV_E_POSITION: the position counter is exhausted";
    case PCCX_KV_E_NOT_VALID:
      return "PCCX_KV_E_NOT_VALID: position or stream index outside the valid set";
    case PCCX_KV_E_STATE: return "PCCX_KV_E_STATE: sinks cannot change after tokens were appended";
    case PCCX_KV_E_CHANNEL: return "PCCX_KV_E_CHANNEL: not an HP channel (PCCX_DMA_HP0..HP3)";
    default: return "unknown PCCX_KV result";
  }
}
