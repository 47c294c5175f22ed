/* The replay program (firmware/programs/replay.c): issues a raw
 * instruction stream through CMD_IN as a driver would, with the DMA
 * descriptors the stream needs, then waits for the NPU to go idle and for
 * every descriptor's status. `pccx-vp replay FILE.memh` builds the block
 * from a .memh file and a DMA file (docs/guides/cli.md); the built-in program's
 * entry reads it from DDR at PCCX_REPLAY_ADDR_DEFAULT.
 *
 * Block, little endian:
 *   0 u32 magic PCCX_REPLAY_MAGIC ("RPL1")   4 u32 total bytes
 *   8 u32 words W   12 u32 descriptors D   16 u32 flags (PCCX_REPLAY_F_*)
 *  20 u32 offset of the descriptors   24 u32 offset of the words (8-aligned)
 *  28 u32 0   32 u64 deadline: simulated ns by which the waits give up (0: none)
 * Descriptor (PCCX_REPLAY_DESC_BYTES): u64 DDR address, u32 bytes, u32
 *   before (the index of the word it is submitted before; W: after the
 *   last word), u8 channel (PCCX_DMA_*), u8 class (PCCX_DMA_CLASS_*), u8
 *   tag, u8 0, u32 0. Descriptors are listed in submission order.
 * Words: W x u64.
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

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PCCX_REPLAY_ADDR_DEFAULT 0x10000000ull
#define PCCX_REPLAY_MAGIC 0x314C5052u /* "RPL1" */
#define PCCX_REPLAY_HEADER_BYTES 40u
#define PCCX_REPLAY_DESC_BYTES 24u
#define PCCX_REPLAY_MAX_DESCRIPTORS 4096u
#define PCCX_REPLAY_MAX_BLOCK (1u << 20) /* the built-in entry's buffer */

#define PCCX_REPLAY_F_KEEP_GOING 1u /* clear NPU errors and go on */

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
