/* replay: a raw instruction stream written to CMD_IN word by word, as a
 * driver issues it, with the DMA descriptors it needs; then the wait for
 * idle and for every descriptor's status. The block format, the flow
 * control and the lines it prints are in pccx_replay.h. Freestanding, so
 * the same program runs on the KV260. */
#include <stdint.h>

#include "pccx_dma.h"
#include "pccx_firmware.h"
#include "pccx_host_mem.h"
#include "pccx_replay.h"
#include "pccx_simctl.h"
#include "pccx_uca_ext.h"
#include "uCA_v1_api.h"

typedef struct {
  uint64_t addr;
  uint32_t bytes, before;
  unsigned channel, cls, tag;
} descriptor;

static descriptor g_desc[PCCX_REPLAY_MAX_DESCRIPTORS];
static uint32_t g_ndesc;
/* Per channel: descriptors in flight, oldest first (their indices), the
 * status queue depth, the class last written. */
static uint32_t g_queue[PCCX_DMA_CHANNELS][PCCX_REPLAY_MAX_DESCRIPTORS];
static uint32_t g_head[PCCX_DMA_CHANNELS], g_count[PCCX_DMA_CHANNELS];
static uint32_t g_status_depth[PCCX_DMA_CHANNELS], g_class[PCCX_DMA_CHANNELS];
static uint64_t g_deadline;
static int g_dma_failed, g_npu_failed;

/* The block may sit at any address: structs and words are copied out of
 * it (little endian, as the CPU). */
static void copy_in(void* dst, const uint8_t* src, uint32_t bytes) {
  __builtin_memcpy(dst, src, bytes);
}

/* "replay: <what> descriptor K" */
static void say_descriptor(const char* what, uint32_t k) {
  pccx_line l;
  pccx_line_start(&l, "replay: ");
  pccx_line_str(&l, what);
  pccx_line_str(&l, " descriptor ");
  pccx_line_dec(&l, k);
  pccx_simctl_print(l.text);
}

static int stopped_after(uint32_t sent, int code) {
  pccx_line l;
  pccx_line_start(&l, "replay: stopped after ");
  pccx_line_dec(&l, sent);
  pccx_line_str(&l, " words");
  pccx_simctl_print(l.text);
  return code;
}

static int bad_block(const char* why) {
  pccx_line l;
  pccx_line_start(&l, "replay: bad block: ");
  pccx_line_str(&l, why);
  pccx_simctl_print(l.text);
  return PCCX_REPLAY_EXIT_BAD_BLOCK;
}

/* The latched error as the registers give it; with keep_going it is
 * cleared so issue resumes. */
static void report_npu_error(int keep_going) {
  pccx_npu_error e;
  pccx_npu_read_error(&e);
  pccx_line l;
  pccx_line_start(&l, "replay: npu-error seq ");
  pccx_line_dec(&l, e.sequence);
  pccx_line_str(&l, " code ");
  pccx_line_dec(&l, e.code);
  pccx_line_str(&l, " word ");
  pccx_line_hex(&l, e.instruction);
  pccx_simctl_print(l.text);
  g_npu_failed = 1;
  if (keep_going) pccx_npu_clear_error();
}

/* Pops one status of `ch` if there is one: 1 popped, 0 none. */
static int pop_one(unsigned ch) {
  pccx_dma_status st;
  const int rc = pccx_dma_pop_status(ch, &st);
  if (rc == PCCX_DMA_E_EMPTY || g_count[ch] == 0u) return 0;
  const uint32_t k = g_queue[ch][g_head[ch]];
  g_head[ch] = (g_head[ch] + 1u) % PCCX_REPLAY_MAX_DESCRIPTORS;
  --g_count[ch];
  if (rc == PCCX_DMA_E_FAILED) {
    pccx_line l;
    pccx_line_start(&l, "replay: dma-error descriptor ");
    pccx_line_dec(&l, k);
    pccx_line_str(&l, " errors ");
    pccx_line_hex(&l, st.errors);
    pccx_simctl_print(l.text);
    g_dma_failed = 1;
  }
  return 1;
}

static void pop_ready(void) {
  for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch)
    while (g_count[ch] != 0u && pop_one(ch)) {
    }
}

/* Waits for the oldest status of `ch` while its bytes keep moving: 0 when
 * it came, -1 when PCCX_REPLAY_STALL_POLLS polls saw no progress or the
 * deadline passed. */
static int wait_one(unsigned ch) {
  uint64_t done = pccx_dma_bytes_done(ch);
  uint32_t idle_polls = 0;
  while (!pop_one(ch)) {
    const uint64_t now = pccx_dma_bytes_done(ch);
    if (now != done) {
      done = now;
      idle_polls = 0;
    } else if (++idle_polls >= PCCX_REPLAY_STALL_POLLS) {
      return -1;
    }
    if (g_deadline != 0u && pccx_simctl_time_ns() >= g_deadline) return -1;
  }
  return 0;
}

static int submit(uint32_t k) {
  const descriptor* d = &g_desc[k];
  const unsigned ch = d->channel;
  if (g_status_depth[ch] == 0u) {
    const uint32_t depth = uca_hal_read32(PCCX_DMA_REG(ch, PCCX_DMA_REG_DEPTH)) >> 16;
    g_status_depth[ch] = depth != 0u ? depth : 1u;
  }
  /* A full status queue holds the channel: make room first. */
  pop_ready();
  if (g_count[ch] >= g_status_depth[ch] && wait_one(ch) != 0) {
    say_descriptor("dma-pending", g_queue[ch][g_head[ch]]);
    say_descriptor("dma-blocked", k);
    return PCCX_REPLAY_EXIT_DMA;
  }
  if (g_class[ch] != d->cls) {
    pccx_dma_set_class(ch, d->cls);
    g_class[ch] = d->cls;
  }
  pccx_dma_submit(ch, d->addr, d->bytes, d->tag);
  g_queue[ch][(g_head[ch] + g_count[ch]) % PCCX_REPLAY_MAX_DESCRIPTORS] = k;
  ++g_count[ch];
  return 0;
}

static uint32_t remaining_us(void) {
  if (g_deadline == 0u) return 0xFFFFFFFFu;
  const uint64_t now = pccx_simctl_time_ns();
  if (now >= g_deadline) return 0u;
  const uint64_t us = (g_deadline - now) / 1000u;
  return us > 0xFFFFFFFFull ? 0xFFFFFFFFu : (uint32_t)us;
}

int pccx_replay_run(const uint8_t* block, uint32_t bytes) {
  if (uca_init() != 0) {
    pccx_simctl_print("replay: the NPU does not answer");
    return PCCX_REPLAY_EXIT_NO_NPU;
  }
  pccx_replay_header h;
  if (bytes < sizeof h) return bad_block("no replay header");
  copy_in(&h, block, sizeof h);
  if (h.magic != PCCX_REPLAY_MAGIC) return bad_block("no replay header");
  const uint32_t total = h.bytes, nwords = h.words;
  const uint32_t flags = h.flags, desc_off = h.descriptors_offset, word_off = h.words_offset;
  g_ndesc = h.descriptors;
  g_deadline = h.deadline_ns;
  if (total > bytes || g_ndesc > PCCX_REPLAY_MAX_DESCRIPTORS ||
      desc_off + (uint64_t)g_ndesc * sizeof(pccx_replay_descriptor) > total ||
      word_off + (uint64_t)nwords * sizeof(uint64_t) > total || word_off % sizeof(uint64_t) != 0u)
    return bad_block("sizes and offsets do not fit the block");
  for (uint32_t k = 0; k < g_ndesc; ++k) {
    pccx_replay_descriptor r;
    copy_in(&r, block + desc_off + k * sizeof r, sizeof r);
    descriptor* d = &g_desc[k];
    d->addr = r.addr;
    d->bytes = r.bytes;
    d->before = r.before;
    d->channel = r.channel;
    d->cls = r.cls;
    d->tag = r.tag;
    if (d->channel >= PCCX_DMA_CHANNELS || d->cls > PCCX_DMA_CLASS_LAST ||
        d->tag > PCCX_DMA_TAG_MASK || d->before > nwords ||
        (k > 0u && d->before < g_desc[k - 1u].before))
      return bad_block("a descriptor's channel, class, tag or place is out of range");
  }
  for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch) {
    g_head[ch] = g_count[ch] = g_status_depth[ch] = 0u;
    g_class[ch] = PCCX_DMA_CLASS_LAST + 1u;
  }
  g_dma_failed = g_npu_failed = 0;
  const int keep_going = (flags & PCCX_REPLAY_F_KEEP_GOING) != 0u;

  const uint32_t depth = uca_hal_read32(PCCX_REG_CMD_DEPTH);
  uint32_t credit = 0, next = 0, sent = 0;
  int stopped = 0;
  pccx_simctl_marker("replay: stream");
  for (uint32_t i = 0; i < nwords && !stopped; ++i) {
    while (next < g_ndesc && g_desc[next].before == i)
      if (submit(next++) != 0) return stopped_after(sent, PCCX_REPLAY_EXIT_DMA);
    while (credit == 0u) {
      credit = depth - uca_hal_read32(PCCX_REG_CMD_LEVEL);
      if (credit != 0u) break;
      if (uca_hal_read_status() & PCCX_STAT_ERROR) {
        report_npu_error(keep_going);
        if (!keep_going) {
          stopped = 1;
          break;
        }
        continue;
      }
      pop_ready();
      credit = 1u; /* the write is held until a slot frees */
    }
    if (stopped) break;
    uint64_t word;
    copy_in(&word, block + word_off + i * sizeof word, sizeof word);
    uca_hal_issue_instr(word);
    --credit;
    ++sent;
  }
  if (stopped) return stopped_after(sent, PCCX_REPLAY_EXIT_NPU_ERROR);
  while (next < g_ndesc)
    if (submit(next++) != 0) return PCCX_REPLAY_EXIT_DMA;
  pccx_simctl_marker("replay: stream end");

  for (;;) {
    const int rc = uca_hal_wait_idle(remaining_us());
    if (rc == 0) break;
    if (rc == PCCX_SYNC_NPU_ERROR) {
      report_npu_error(keep_going);
      if (keep_going) continue;
      return stopped_after(sent, PCCX_REPLAY_EXIT_NPU_ERROR);
    }
    pccx_simctl_print("replay: not-idle");
    return PCCX_REPLAY_EXIT_NOT_IDLE;
  }
  pccx_simctl_marker("replay: idle");

  for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch)
    while (g_count[ch] != 0u)
      if (wait_one(ch) != 0) {
        for (uint32_t n = 0; n < g_count[ch]; ++n)
          say_descriptor("dma-pending",
                         g_queue[ch][(g_head[ch] + n) % PCCX_REPLAY_MAX_DESCRIPTORS]);
        g_dma_failed = 1;
        g_count[ch] = 0u;
      }
  uca_deinit();
  if (g_npu_failed) return PCCX_REPLAY_EXIT_NPU_ERROR;
  return g_dma_failed ? PCCX_REPLAY_EXIT_DMA : 0;
}

int pccx_firmware_main(void) {
  static uint8_t block[PCCX_REPLAY_MAX_BLOCK];
  pccx_replay_header h;
  /* The magic and the size first. */
  pccx_host_read(PCCX_REPLAY_ADDR_DEFAULT, &h, (uint32_t)offsetof(pccx_replay_header, words));
  const uint32_t bytes = h.bytes;
  if (h.magic != PCCX_REPLAY_MAGIC || bytes < sizeof h || bytes > PCCX_REPLAY_MAX_BLOCK)
    return bad_block("no replay block at 0x10000000");
  pccx_host_read(PCCX_REPLAY_ADDR_DEFAULT, block, bytes);
  return pccx_replay_run(block, bytes);
}
