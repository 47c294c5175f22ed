/* pccx KV-cache ring manager (driver side): where the K and V records of
 * every token live in DDR, which tokens are valid, and the DMA descriptors
 * that stream one (layer, head, K|V) of them. Implemented in
 * firmware/kv/pccx_kv.c, freestanding C11; docs/models/kv-driver.md is the
 * reference.
 *
 * The NPU knows nothing of eviction: it only sees the descriptors this
 * driver produces. The layout and the rules are defined by the platform.
 *
 * Layout. One ring per layer, layers back to back from ddr_base. Inside a
 * layer, for each KV head: a K array of max_tokens records, then a V array
 * of max_tokens records. A record is k_record_bytes (K) or v_record_bytes
 * (V), each a multiple of 16 (the KV format decides them).
 *
 * Positions. Tokens have logical positions 0, 1, 2, ... in append order.
 * With S sinks and a cap of C = max_tokens records per stream, position p
 * lives in slot p when p < S (sinks, pinned), else in slot
 * S + (p - S) mod (C - S): once C tokens are held, the next one overwrites
 * the oldest non-sink token.
 *
 * Valid set after n appended tokens: the sinks [0, min(S, n)) and the
 * non-sink positions [max(S, evicted, n - R), n) with
 * R = min(C - S, W) for a window W > 0, R = C - S for W = 0. */
#ifndef PCCX_KV_H
#define PCCX_KV_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Results. Functions returning int return PCCX_KV_OK (pccx_kv_segments: a
 * segment count) or one of these negative codes; pccx_kv_strerror names
 * them. */
#define PCCX_KV_OK 0
#define PCCX_KV_E_ARG (-1)        /* NULL pointer, or is_value not 0 or 1, or a DMA tag above 15 */
#define PCCX_KV_E_SHAPE (-2)      /* layers or kv_heads is 0 */
#define PCCX_KV_E_RECORD (-3)     /* a record size is 0 or not a multiple of 16 */
#define PCCX_KV_E_CAP (-4)        /* max_tokens is 0 */
#define PCCX_KV_E_SINKS (-5)      /* sinks >= max_tokens */
#define PCCX_KV_E_REGION (-6)     /* ddr_base not a multiple of 16, or base + size past 2^64 */
#define PCCX_KV_E_NO_SPACE (-7)   /* the rings need more than ddr_size (pccx_kv_required_bytes) */
#define PCCX_KV_E_STREAM (-8)     /* one stream exceeds a DMA descriptor (PCCX_KV_STREAM_MAX) */
#define PCCX_KV_E_NOT_READY (-9)  /* pccx_kv_init has not succeeded on this handle */
#define PCCX_KV_E_RANGE (-10)     /* layer or head out of range */
#define PCCX_KV_E_EVICT (-11)     /* eviction beyond the write position */
#define PCCX_KV_E_EMPTY (-12)     /* no token appended yet */
#define PCCX_KV_E_POSITION (-13)  /* the position counter is exhausted (2^32 - 1 tokens) */
#define PCCX_KV_E_NOT_VALID (-14) /* position or stream index outside the valid set */
#define PCCX_KV_E_STATE (-15)     /* sinks changed after tokens were appended */
#define PCCX_KV_E_CHANNEL (-16)   /* not an HP channel (PCCX_DMA_HP0..HP3) */

/* Default number of sinks (pinned first tokens). */
#define PCCX_KV_DEFAULT_SINKS 4u
/* Largest stream (max_tokens x record bytes) one DMA descriptor can carry:
 * the 32-bit BYTES register, rounded down to the 16-byte alignment. */
#define PCCX_KV_STREAM_MAX 0xFFFFFFF0u

#define PCCX_KV_K 0 /* is_value: the K stream */
#define PCCX_KV_V 1 /* is_value: the V stream */

/* The handle. Fill the configuration with pccx_kv_configure (or field by
 * field), adjust sinks and window, then call pccx_kv_init. The state fields
 * belong to the driver. */
typedef struct {
  /* configuration */
  uint32_t layers;         /* L: KV-storing layers */
  uint32_t kv_heads;       /* H: KV heads per layer */
  uint32_t k_record_bytes; /* bytes of one K record (multiple of 16) */
  uint32_t v_record_bytes; /* bytes of one V record (multiple of 16) */
  uint64_t ddr_base;       /* first byte of the rings (multiple of 16) */
  uint64_t ddr_size;       /* bytes available from ddr_base */
  uint32_t sinks;          /* S: pinned first tokens (default 4) */
  uint32_t window;         /* W: non-sink tokens kept, 0 = as many as the cap allows */
  /* state, set by pccx_kv_init */
  uint32_t max_tokens;   /* C: records per stream */
  uint32_t ready;        /* 1 after a successful pccx_kv_init */
  uint64_t head_stride;  /* bytes per head: C x (K + V record bytes) */
  uint64_t layer_stride; /* bytes per layer: H x head_stride */
  uint32_t appended;     /* n: tokens appended = position of the next token */
  uint32_t evicted;      /* non-sink positions below this are dropped */
} pccx_kv_handle;

/* One contiguous run of records in DDR. */
typedef struct {
  uint64_t addr;   /* DDR address of the first record */
  uint32_t bytes;  /* tokens x record bytes */
  uint32_t tokens; /* records in the run */
} pccx_kv_segment;

/* ---- configuration and layout ---- */

/* Sets the configuration fields, sinks = PCCX_KV_DEFAULT_SINKS, window = 0,
 * and marks the handle not ready. Checks nothing (pccx_kv_init does). */
int pccx_kv_configure(pccx_kv_handle* h, uint32_t layers, uint32_t kv_heads,
                      uint32_t k_record_bytes, uint32_t v_record_bytes, uint64_t ddr_base,
                      uint64_t ddr_size);
/* Sinks S. Before init: stored, checked by init. After init: S must be
 * below max_tokens (PCCX_KV_E_SINKS) and no token may have been appended
 * (PCCX_KV_E_STATE), since S moves every slot. */
int pccx_kv_set_sinks(pccx_kv_handle* h, uint32_t sinks);
uint32_t pccx_kv_sinks(const pccx_kv_handle* h);
/* Window W, any time. It is a view: shrinking it hides the oldest non-sink
 * tokens, growing it shows them again as long as the ring still holds them.
 * pccx_kv_evict drops tokens for good. */
int pccx_kv_set_window(pccx_kv_handle* h, uint32_t window);
uint32_t pccx_kv_window(const pccx_kv_handle* h);

/* Bytes the rings need: layers x kv_heads x max_tokens x (k + v record
 * bytes), or UINT64_MAX when that does not fit 64 bits. */
uint64_t pccx_kv_required_bytes(uint32_t layers, uint32_t kv_heads, uint32_t k_record_bytes,
                                uint32_t v_record_bytes, uint32_t max_tokens);

/* Checks the configuration, lays out the rings for max_tokens records per
 * stream and empties the cache (no token appended, nothing evicted). Checks
 * in this order: E_ARG, E_SHAPE, E_RECORD, E_CAP, E_SINKS, E_REGION,
 * E_NO_SPACE, E_STREAM. On an error the handle is not ready. */
int pccx_kv_init(pccx_kv_handle* h, uint32_t max_tokens);
/* Empties the cache, keeping the layout (a new sequence). */
int pccx_kv_reset(pccx_kv_handle* h);
uint32_t pccx_kv_max_tokens(const pccx_kv_handle* h); /* 0 when not ready */

/* ---- appending ---- */

/* Appends one token for all layers: its position is the number of tokens
 * appended so far (stored in *pos unless pos is NULL). The token is valid
 * at once, so each layer's streams include it; write its records (with
 * pccx_kv_append_slot) before streaming that layer. When the ring is full
 * the oldest non-sink token leaves the valid set here and its slot is the
 * new token's. */
int pccx_kv_append_token(pccx_kv_handle* h, uint32_t* pos);
/* DDR address of the K (is_value = 0) or V (1) record of the newest token
 * in (layer, head). PCCX_KV_E_EMPTY before the first append. */
int pccx_kv_append_slot(const pccx_kv_handle* h, uint32_t layer, uint32_t head, int is_value,
                        uint64_t* ddr_addr);
/* DDR address of the record of a valid position (PCCX_KV_E_NOT_VALID
 * otherwise). */
int pccx_kv_slot_addr(const pccx_kv_handle* h, uint32_t layer, uint32_t head, int is_value,
                      uint32_t pos, uint64_t* ddr_addr);
/* Slot (record index in a stream) of a position; no validity check. */
uint32_t pccx_kv_slot_of(const pccx_kv_handle* h, uint32_t pos);

/* ---- eviction and the valid set ---- */

/* Drops the non-sink positions below upto_idx. Monotonic: an upto_idx at
 * or below what is already dropped, or below the window start, changes
 * nothing and returns PCCX_KV_OK. Sinks are never evicted. upto_idx beyond
 * the number of appended tokens is PCCX_KV_E_EVICT (nothing changes). */
int pccx_kv_evict(pccx_kv_handle* h, uint32_t upto_idx);
uint32_t pccx_kv_tokens(const pccx_kv_handle* h);       /* appended (n) */
uint32_t pccx_kv_valid_tokens(const pccx_kv_handle* h); /* size of the valid set */
/* First valid non-sink position, max(S, evicted, n - R); equal to n when no
 * non-sink token is valid. */
uint32_t pccx_kv_window_start(const pccx_kv_handle* h);

/* The valid records of one stream as at most two contiguous DDR segments.
 * Returns the number of segments (0, 1 or 2) or a negative PCCX_KV_E_*.
 * Not wrapped: the sinks and the window, joined into one segment when they
 * are adjacent. Wrapped: [window start slot, end of the ring), then
 * [slot 0, end of the window), which begins with the sinks. Every stream
 * of the handle lists its tokens in the same order. */
int pccx_kv_segments(const pccx_kv_handle* h, uint32_t layer, uint32_t head, int is_value,
                     pccx_kv_segment out[2]);
/* Logical position of the i-th token of the stream order of
 * pccx_kv_segments (0 <= i < pccx_kv_valid_tokens). */
int pccx_kv_stream_position(const pccx_kv_handle* h, uint32_t i, uint32_t* pos);
/* The inverse: index *i in the stream order of a valid position
 * (PCCX_KV_E_NOT_VALID otherwise). */
int pccx_kv_stream_index(const pccx_kv_handle* h, uint32_t pos, uint32_t* i);

/* ---- DMA ---- */

/* Streams the valid records of one (layer, head, K|V) on an HP channel:
 * sets the channel's CLASS to PCCX_DMA_CLASS_KV_READ and pushes one
 * descriptor per segment (at most two), all with `tag`. The class stays
 * set for later pushes on that channel. An empty stream writes nothing.
 * Returns the number of bytes queued (>= 0), or a negative PCCX_KV_E_*;
 * *descriptors (unless NULL) receives the number of descriptors pushed,
 * each of which reports one status. */
int64_t pccx_kv_submit_stream(const pccx_kv_handle* h, uint32_t layer, uint32_t head, int is_value,
                              unsigned channel, unsigned tag, unsigned* descriptors);

/* Streams the valid records of one (layer, head, K|V) split over several
 * HP channels, as the GEMV engine takes a KV stream from its F weight FIFOs:
 * the R tokens of the stream order are cut into F contiguous parts, part f
 * = tokens floor(f R / F) .. floor((f + 1) R / F) - 1, streamed on
 * channels[f] (each part one or two descriptors; at most three in all, as
 * the stream has at most one break). Sets each channel's CLASS to
 * PCCX_DMA_CLASS_KV_READ. Returns the bytes queued or a negative
 * PCCX_KV_E_*; *descriptors (unless NULL) receives the descriptors pushed
 * on each channel (array of `count`). */
int64_t pccx_kv_submit_stream_split(const pccx_kv_handle* h, uint32_t layer, uint32_t head,
                                    int is_value, const unsigned* channels, unsigned count,
                                    unsigned tag, unsigned* descriptors);

/* Name of a PCCX_KV_* result ("PCCX_KV_E_NO_SPACE: ..."). */
const char* pccx_kv_strerror(int code);

#ifdef __cplusplus
}
#endif

#endif /* PCCX_KV_H */
