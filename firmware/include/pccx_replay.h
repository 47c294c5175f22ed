/* The replay program (firmware/programs/replay.c): issues a raw
 * instruction stream through CMD_IN as a driver would, with the DMA
 * descriptors the stream needs, then waits for the NPU to go idle and for
 * every descriptor's status. `pccx-vp replay FILE.memh` builds the block
 * from a .memh file and a DMA file (docs/guides/cli.md); the built-in program's
 * entry reads it from DDR at PCCX_REPLAY_ADDR_DEFAULT.
 *
 * Block: a pccx_replay_header, the descriptors (pccx_replay_descriptor,
 * in submission order) at its descriptors_offset, the words (W x u64) at
 * its words_offset (8-aligned). All values little endian: both sides copy
 * the structs byte for byte, which holds because the platform and the
 * board are little endian. The block may sit at any address, so the
 * program copies each struct and word out of it.
 *
 * Flow control: before writing a word the program knows how many free
 * CMD_IN slots it has (CMD_DEPTH, then CMD_LEVEL when its count runs out);
 * with none free it checks STATUS for a latched error and otherwise writes
 * anyway, and the write is held until a slot frees (CMD_IN back-pressure).
 * A latched error stops the stream (or, with PCCX_REPLAY_F_KEEP_GOING, is
 * cleared and the stream goes on).
 *
 * What it reports, one pccx_simctl_print line each:
 *   "replay: npu-error seq S code C word 0xW"   an error read from ERR_*
 *   "replay: stopped after N words"              the stream stopped (an error)
 *   "replay: dma-error descriptor K errors 0xE"  a descriptor's status (ERR bits)
 *   "replay: dma-pending descriptor K"           no status came
 *   "replay: dma-blocked descriptor K"           K could not be submitted: its
 *                                                channel's status queue is full
 *                                                and the oldest never completes
 *   "replay: not-idle"                           the NPU did not go idle by the deadline
 *   "replay: bad block: ..."
 * and the markers "replay: stream" (before the first word), "replay: stream
 * end" (after the last) and "replay: idle". */
#ifndef PCCX_REPLAY_H
#define PCCX_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
#define PCCX_REPLAY_STATIC_ASSERT static_assert
#else
#define PCCX_REPLAY_STATIC_ASSERT _Static_assert
#endif

#define PCCX_REPLAY_ADDR_DEFAULT 0x10000000ull
#define PCCX_REPLAY_MAGIC 0x314C5052u /* "RPL1" */
#define PCCX_REPLAY_MAX_DESCRIPTORS 4096u
#define PCCX_REPLAY_MAX_BLOCK (1u << 20) /* the built-in entry's buffer */

#define PCCX_REPLAY_F_KEEP_GOING 1u /* clear NPU errors and go on */

typedef struct {
  uint32_t magic;              /* PCCX_REPLAY_MAGIC */
  uint32_t bytes;              /* of the whole block */
  uint32_t words;              /* W */
  uint32_t descriptors;        /* D */
  uint32_t flags;              /* PCCX_REPLAY_F_* */
  uint32_t descriptors_offset; /* in the block */
  uint32_t words_offset;       /* in the block, 8-aligned */
  uint32_t reserved;           /* 0 */
  uint64_t deadline_ns;        /* simulated ns by which the waits give up (0: none) */
} pccx_replay_header;

typedef struct {
  uint64_t addr;  /* DDR address */
  uint32_t bytes; /* transfer length */
  /* The index of the word it is submitted before (W: after the last word). */
  uint32_t before;
  uint8_t channel;   /* PCCX_DMA_* */
  uint8_t cls;       /* PCCX_DMA_CLASS_* */
  uint8_t tag;       /* 0 .. PCCX_DMA_TAG_MASK */
  uint8_t reserved0; /* 0 */
  uint32_t reserved; /* 0 */
} pccx_replay_descriptor;

PCCX_REPLAY_STATIC_ASSERT(offsetof(pccx_replay_header, magic) == 0u, "pccx_replay_header.magic");
PCCX_REPLAY_STATIC_ASSERT(offsetof(pccx_replay_header, bytes) == 4u, "pccx_replay_header.bytes");
PCCX_REPLAY_STATIC_ASSERT(offsetof(pccx_replay_header, words) == 8u, "pccx_replay_header.words");
PCCX_REPLAY_STATIC_ASSERT(offsetof(pccx_replay_header, descriptors) == 12u,
                          "pccx_replay_header.descriptors");
PCCX_REPLAY_STATIC_ASSERT(offsetof(pccx_replay_header, flags) == 16u, "pccx_replay_header.flags");
PCCX_REPLAY_STATIC_ASSERT(offsetof(pccx_replay_header, descriptors_offset) == 20u,
                          "pccx_replay_header.descriptors_offset");
PCCX_REPLAY_STATIC_ASSERT(offsetof(pccx_replay_header, words_offset) == 24u,
                          "pccx_replay_header.words_offset");
PCCX_REPLAY_STATIC_ASSERT(offsetof(pccx_replay_header, reserved) == 28u,
                          "pccx_replay_header.reserved");
PCCX_REPLAY_STATIC_ASSERT(offsetof(pccx_replay_header, deadline_ns) == 32u,
                          "pccx_replay_header.deadline_ns");
PCCX_REPLAY_STATIC_ASSERT(sizeof(pccx_replay_header) == 40u, "pccx_replay_header size");

PCCX_REPLAY_STATIC_ASSERT(offsetof(pccx_replay_descriptor, addr) == 0u,
                          "pccx_replay_descriptor.addr");
PCCX_REPLAY_STATIC_ASSERT(offsetof(pccx_replay_descriptor, bytes) == 8u,
                          "pccx_replay_descriptor.bytes");
PCCX_REPLAY_STATIC_ASSERT(offsetof(pccx_replay_descriptor, before) == 12u,
                          "pccx_replay_descriptor.before");
PCCX_REPLAY_STATIC_ASSERT(offsetof(pccx_replay_descriptor, channel) == 16u,
                          "pccx_replay_descriptor.channel");
PCCX_REPLAY_STATIC_ASSERT(offsetof(pccx_replay_descriptor, cls) == 17u,
                          "pccx_replay_descriptor.cls");
PCCX_REPLAY_STATIC_ASSERT(offsetof(pccx_replay_descriptor, tag) == 18u,
                          "pccx_replay_descriptor.tag");
PCCX_REPLAY_STATIC_ASSERT(offsetof(pccx_replay_descriptor, reserved0) == 19u,
                          "pccx_replay_descriptor.reserved0");
PCCX_REPLAY_STATIC_ASSERT(offsetof(pccx_replay_descriptor, reserved) == 20u,
                          "pccx_replay_descriptor.reserved");
PCCX_REPLAY_STATIC_ASSERT(sizeof(pccx_replay_descriptor) == 24u, "pccx_replay_descriptor size");

/* Status polls without progress (BYTES_DONE unchanged) after which a
 * descriptor counts as never completing. */
#define PCCX_REPLAY_STALL_POLLS 2000u

/* Exit codes. */
#define PCCX_REPLAY_EXIT_NO_NPU 1
#define PCCX_REPLAY_EXIT_BAD_BLOCK 2
#define PCCX_REPLAY_EXIT_NPU_ERROR 3
#define PCCX_REPLAY_EXIT_DMA 4
#define PCCX_REPLAY_EXIT_NOT_IDLE 5

/* Replays the block at `block` (bytes long). */
int pccx_replay_run(const uint8_t* block, uint32_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* PCCX_REPLAY_H */
