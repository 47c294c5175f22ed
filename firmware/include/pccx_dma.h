/* pccx DMA (DataMover) channel pages: the single source of their register
 * offsets, bits and codes for the firmware and the models, and the firmware
 * helpers over the uCA HAL (firmware/dma/pccx_dma.c).
 *
 * Six channels, one 4 KiB page each at PCCX_DMA_PAGE_OFFSET(n) from the NPU
 * base (pccx_npu_regs.h): HP0..HP3 and ACP_FMAP read DDR into their stream
 * FIFO, ACP_RESULT drains its stream FIFO into DDR. Every register is 32 bits
 * wide and aligned. The page layout is defined by the platform (the pccx
 * bare-metal helper pages inspired it, with a 64-bit address instead of the
 * packed 72-bit DataMover command). See docs/models/memory-dma-l2.md.
 *
 * A descriptor is {64-bit DDR address, byte count, 4-bit tag, traffic class}:
 * write ADDR_LO, ADDR_HI, BYTES, then PUSH with the tag. A PUSH with
 * PCCX_DMA_PUSH_2D set makes it two-dimensional: ROWS rows of BYTES bytes,
 * row r at ADDR + r x STRIDE, one status for the whole (a row per column of
 * a matrix whose records are strided in DDR). A PUSH into a full
 * descriptor queue is held (the bus write completes only when a slot frees),
 * like an INSTR_HI write into a full CMD_IN. Descriptors are checked when the
 * channel takes them; a bad one is dropped with an error status, a sticky
 * ERR bit and a warning, and the channel goes on with the next. */
#ifndef PCCX_DMA_H
#define PCCX_DMA_H

#include <stddef.h>
#include <stdint.h>

#include "pccx_npu_regs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Channels (page n at PCCX_DMA_PAGE_OFFSET(n)). */
#define PCCX_DMA_HP0 0u
#define PCCX_DMA_HP1 1u
#define PCCX_DMA_HP2 2u
#define PCCX_DMA_HP3 3u
#define PCCX_DMA_ACP_FMAP 4u   /* DDR -> L2 (MEMCPY host->L2) */
#define PCCX_DMA_ACP_RESULT 5u /* L2 -> DDR (MEMCPY L2->host) */
#define PCCX_DMA_CHANNELS 6u
#define PCCX_DMA_PAGE_SIZE 0x1000u

/* Register offsets inside a channel page. */
#define PCCX_DMA_REG_ADDR_LO 0x00       /* RW: descriptor DDR address [31:0] */
#define PCCX_DMA_REG_ADDR_HI 0x04       /* RW: descriptor DDR address [63:32] */
#define PCCX_DMA_REG_BYTES 0x08         /* RW: descriptor byte count */
#define PCCX_DMA_REG_PUSH 0x0C          /* W: [3:0] tag; pushes {ADDR, BYTES, tag, CLASS} */
#define PCCX_DMA_REG_STS_POP 0x10       /* R: pops the oldest status (PCCX_DMA_STS_*) */
#define PCCX_DMA_REG_FLAGS 0x14         /* R: PCCX_DMA_FLAG_* */
#define PCCX_DMA_REG_CMD_LVL 0x18       /* R: descriptors waiting in the queue */
#define PCCX_DMA_REG_STS_LVL 0x1C       /* R: status entries ready to pop */
#define PCCX_DMA_REG_ERR 0x20           /* R/W1C: sticky PCCX_DMA_ERR_* bits */
#define PCCX_DMA_REG_CLASS 0x24         /* RW: traffic class of the following PUSHes */
#define PCCX_DMA_REG_BYTES_DONE_LO 0x28 /* R: bytes moved (LO read latches HI) */
#define PCCX_DMA_REG_BYTES_DONE_HI 0x2C
#define PCCX_DMA_REG_DEPTH 0x30  /* R: [15:0] descriptor queue depth, [31:16] status depth */
#define PCCX_DMA_REG_INFO 0x34   /* R: [0] direction (1 = stream -> DDR), [11:8] DDR port */
#define PCCX_DMA_REG_ROWS 0x38   /* RW: rows of a 2-D descriptor (0 and 1: one row) */
#define PCCX_DMA_REG_STRIDE 0x3C /* RW: bytes from one row's start to the next's */

/* The page's register table: X(name, offset, access), in offset order
 * (PCCX_ACCESS_* of pccx_npu_regs.h); the models build each page from it and
 * docs/models/memory-dma-l2.md is checked against it. */
#define PCCX_DMA_REGISTERS(X)                                 \
  X(ADDR_LO, PCCX_DMA_REG_ADDR_LO, PCCX_ACCESS_RW)            \
  X(ADDR_HI, PCCX_DMA_REG_ADDR_HI, PCCX_ACCESS_RW)            \
  X(BYTES, PCCX_DMA_REG_BYTES, PCCX_ACCESS_RW)                \
  X(PUSH, PCCX_DMA_REG_PUSH, PCCX_ACCESS_W)                   \
  X(STS_POP, PCCX_DMA_REG_STS_POP, PCCX_ACCESS_R)             \
  X(FLAGS, PCCX_DMA_REG_FLAGS, PCCX_ACCESS_R)                 \
  X(CMD_LVL, PCCX_DMA_REG_CMD_LVL, PCCX_ACCESS_R)             \
  X(STS_LVL, PCCX_DMA_REG_STS_LVL, PCCX_ACCESS_R)             \
  X(ERR, PCCX_DMA_REG_ERR, PCCX_ACCESS_R_W1C)                 \
  X(CLASS, PCCX_DMA_REG_CLASS, PCCX_ACCESS_RW)                \
  X(BYTES_DONE_LO, PCCX_DMA_REG_BYTES_DONE_LO, PCCX_ACCESS_R) \
  X(BYTES_DONE_HI, PCCX_DMA_REG_BYTES_DONE_HI, PCCX_ACCESS_R) \
  X(DEPTH, PCCX_DMA_REG_DEPTH, PCCX_ACCESS_R)                 \
  X(INFO, PCCX_DMA_REG_INFO, PCCX_ACCESS_R)                   \
  X(ROWS, PCCX_DMA_REG_ROWS, PCCX_ACCESS_RW)                  \
  X(STRIDE, PCCX_DMA_REG_STRIDE, PCCX_ACCESS_RW)

/* PUSH: tag in [3:0]; [4] 2D (take ROWS and STRIDE; clear: one row of
 * BYTES whatever ROWS holds); bits [31:5] are ignored. */
#define PCCX_DMA_TAG_MASK 0xFu
#define PCCX_DMA_PUSH_2D (1u << 4)

/* STS_POP: bit 31 VALID (0 = the status queue was empty, the whole word is
 * then 0), [15:8] the PCCX_DMA_ERR_* bits of this descriptor (0 = OK),
 * [3:0] its tag. */
#define PCCX_DMA_STS_VALID (1u << 31)
#define PCCX_DMA_STS_EMPTY 0u
#define PCCX_DMA_STS_TAG(s) ((s)&0xFu)
#define PCCX_DMA_STS_ERR(s) (((s) >> 8) & 0xFFu)

/* FLAGS. */
#define PCCX_DMA_FLAG_CMD_EMPTY (1u << 0)
#define PCCX_DMA_FLAG_CMD_FULL (1u << 1)
#define PCCX_DMA_FLAG_STS_EMPTY (1u << 2)
#define PCCX_DMA_FLAG_STS_FULL (1u << 3)
#define PCCX_DMA_FLAG_BUSY (1u << 4)  /* a descriptor queued or being moved */
#define PCCX_DMA_FLAG_ERROR (1u << 5) /* ERR != 0 */

/* ERR bits (sticky, write 1 to clear); the same bits tag an error status. */
#define PCCX_DMA_ERR_RANGE (1u << 0)       /* [addr, addr+bytes) not inside DDR */
#define PCCX_DMA_ERR_ZERO_LENGTH (1u << 1) /* BYTES = 0 */
#define PCCX_DMA_ERR_ALIGN_ADDR (1u << 2)  /* address not a multiple of dma.alignment_bytes */
#define PCCX_DMA_ERR_ALIGN_LEN (1u << 3)   /* length not a multiple of dma.alignment_bytes */
#define PCCX_DMA_ERR_BUS (1u << 4)         /* DDR answered a transaction with an error */
#define PCCX_DMA_ERR_CLASS (1u << 5)       /* CLASS write above PCCX_DMA_CLASS_LAST (ignored) */
#define PCCX_DMA_ERR_ALL 0x3Fu

/* INFO. */
#define PCCX_DMA_INFO_TO_DDR (1u << 0)
#define PCCX_DMA_INFO_PORT(v) (((v) >> 8) & 0xFu) /* 0..3 HP0..HP3, 4 ACP */

/* Traffic classes (the DDR controller's accounting order). Defaults: HP
 * channels weights, ACP channels activations. */
#define PCCX_DMA_CLASS_WEIGHTS 0u
#define PCCX_DMA_CLASS_KV_READ 1u
#define PCCX_DMA_CLASS_KV_WRITE 2u
#define PCCX_DMA_CLASS_KV_METADATA 3u
#define PCCX_DMA_CLASS_ACTIVATIONS 4u
#define PCCX_DMA_CLASS_HOST 5u
#define PCCX_DMA_CLASS_LAST 5u

/* Offset of register `reg` of channel `ch` from the NPU base (HAL offset). */
#define PCCX_DMA_REG(ch, reg) (PCCX_DMA_PAGE_OFFSET(ch) + (reg))

/* Firmware helper results. */
#define PCCX_DMA_OK 0
#define PCCX_DMA_E_CHANNEL (-1) /* no such channel */
#define PCCX_DMA_E_TAG (-2)     /* tag above 15 */
#define PCCX_DMA_E_CLASS (-3)   /* class above PCCX_DMA_CLASS_LAST */
#define PCCX_DMA_E_EMPTY (-4)   /* no status to pop */
#define PCCX_DMA_E_FAILED (-5)  /* the popped status carries an error */
#define PCCX_DMA_E_TIMEOUT (-6) /* pccx_dma_wait_status gave up */
#define PCCX_DMA_E_LAYOUT (-7)  /* records a GEMM stream cannot be cut from (below) */

typedef struct {
  unsigned tag;    /* 0..15 */
  uint32_t errors; /* PCCX_DMA_ERR_* bits of this descriptor, 0 = OK */
} pccx_dma_status;

/* Queues one descriptor on `channel`: DDR address, byte count, tag 0..15.
 * Blocks (the PUSH write is held) while the descriptor queue is full.
 * Returns PCCX_DMA_OK, or PCCX_DMA_E_CHANNEL / PCCX_DMA_E_TAG without
 * touching the hardware. Descriptor errors (range, length, alignment) are
 * found by the channel and reported through the status queue and ERR. */
int pccx_dma_submit(unsigned channel, uint64_t ddr_addr, uint32_t bytes, unsigned tag);
/* The same for a 2-D descriptor: `rows` rows of `row_bytes`, row r at
 * ddr_addr + r x stride, moved in order as one descriptor (one status).
 * Writes ROWS and STRIDE first; a later pccx_dma_submit is one row again. */
int pccx_dma_submit_2d(unsigned channel, uint64_t ddr_addr, uint32_t row_bytes, uint32_t rows,
                       uint32_t stride, unsigned tag);
/* A matrix's row records in DDR as the GEMV streams them (and the DDR plan
 * lays them out): row n in part n mod parts, at part[n mod parts] +
 * (n / parts) x record_bytes; a record is, when scaled, one BF16 scale,
 * then the row's INT4 weights (even input in the low nibble), padded to 16
 * bytes (docs/models/gemv.md). */
typedef struct {
  uint64_t part[4];
  uint32_t parts;        /* 1 or 2 can feed the GEMM; 4 cannot (below) */
  uint32_t record_bytes; /* a multiple of 16 */
  uint32_t scaled;       /* 1: every record starts with its scale */
} pccx_dma_records;

/* The weight stream of a GEMM over output columns [n0, n0 + n) and inputs
 * [k0, k0 + k) of these records (docs/models/gemm.md, "Weight stream"): on
 * HP0 the even columns, on HP1 the odd, each channel a 2-D descriptor of
 * 16-byte scale beats (scaled records only) and one of the columns'
 * chunks, pad16(lead + ceil(k / 2)) bytes from record byte k0 / 2 (lead 2
 * when scaled). A channel without columns (n = 1: HP1) gets none. The
 * caller sets the channels' CLASS and pops the statuses. Returns the
 * descriptors pushed per used channel (1 or 2), PCCX_DMA_E_TAG, or
 * PCCX_DMA_E_LAYOUT without touching the hardware: n0 odd, k0 not a
 * multiple of 32, n or k zero, or 4 parts (a channel's columns n mod 2
 * alternate between two parts: no single stride). */
int pccx_dma_submit_gemm_weights(const pccx_dma_records* r, uint32_t n0, uint32_t n, uint32_t k0,
                                 uint32_t k, unsigned tag);

/* Traffic class (PCCX_DMA_CLASS_*) of the descriptors pushed from now on. */
int pccx_dma_set_class(unsigned channel, unsigned cls);
/* Pops the oldest status into *out (may be NULL). Returns PCCX_DMA_OK,
 * PCCX_DMA_E_FAILED (the descriptor failed; out->errors says why),
 * PCCX_DMA_E_EMPTY or PCCX_DMA_E_CHANNEL. */
int pccx_dma_pop_status(unsigned channel, pccx_dma_status* out);
/* Polls STS_POP until a status arrives or `max_polls` reads found none
 * (each read costs one AXI-Lite round trip); same results as pop_status,
 * PCCX_DMA_E_TIMEOUT when none came. */
int pccx_dma_wait_status(unsigned channel, pccx_dma_status* out, uint32_t max_polls);
/* Sticky ERR bits of the channel (0 for an unknown channel). */
uint32_t pccx_dma_error(unsigned channel);
/* Clears every ERR bit of the channel. */
void pccx_dma_clear_error(unsigned channel);
/* FLAGS, CMD_LVL and BYTES_DONE of the channel (0 for an unknown channel). */
uint32_t pccx_dma_flags(unsigned channel);
uint32_t pccx_dma_pending(unsigned channel);
uint64_t pccx_dma_bytes_done(unsigned channel);

#ifdef __cplusplus
}
#endif

#endif /* PCCX_DMA_H */
