/* pccx NPU MMIO register bank: the single source of register offsets, bits
 * and error codes for the firmware and the models.
 *
 * 0x00..0x08 are the uCA HAL registers; everything from 0x0C up is defined
 * by the platform. All registers are 32 bits wide. 64-bit counters are read
 * LO first: reading LO latches HI so the pair is consistent. */
#ifndef PCCX_NPU_REGS_H
#define PCCX_NPU_REGS_H

#include "uCA_v1_hal.h"

/* Block offsets inside the NPU window (base UCA_MMIO_BASE_ADDR). */
#define PCCX_NPU_REGS_SIZE 0x1000u
#define PCCX_DMA_PAGE_OFFSET(n) (0x1000u * ((n) + 1u)) /* HP0..HP3, ACP_FMAP, ACP_RESULT */

/* STATUS bits beyond the HAL's BUSY/DONE. ERROR is write-1-to-clear. */
#define PCCX_STAT_ERROR (1u << 2)
#define PCCX_STAT_CMD_FULL (1u << 3)

#define PCCX_REG_ERR_CODE 0x0C     /* R: PCCX_ERR_* of the latched error */
#define PCCX_REG_ERR_INSTR_LO 0x10 /* R: faulting instruction word [31:0] */
#define PCCX_REG_ERR_INSTR_HI 0x14 /* R: faulting instruction word [63:32] */
#define PCCX_REG_ERR_SEQ 0x18      /* R: sequence number of the faulting instruction */
#define PCCX_REG_CMD_LEVEL 0x1C    /* R: words waiting in CMD_IN */
#define PCCX_REG_CMD_DEPTH 0x20    /* R: CMD_IN capacity */
#define PCCX_REG_RETIRED_LO 0x24   /* R: instructions retired */
#define PCCX_REG_RETIRED_HI 0x28
#define PCCX_REG_ISSUED_LO 0x2C /* R: instructions accepted into CMD_IN */
#define PCCX_REG_ISSUED_HI 0x30
#define PCCX_REG_ID 0x38      /* R: PCCX_NPU_ID */
#define PCCX_REG_VERSION 0x3C /* R: PCCX_NPU_VERSION */

/* Access rules of a register table's rows. */
#define PCCX_ACCESS_R 0     /* read-only */
#define PCCX_ACCESS_W 1     /* write-only */
#define PCCX_ACCESS_RW 2    /* read/write */
#define PCCX_ACCESS_R_W1C 3 /* read; writing 1 clears a bit */

/* The register table: X(name, offset, access), one row per register in
 * offset order (the performance counters follow at PCCX_REG_PERF_BASE). The
 * models build their register bank from it and docs/reference/registers.md
 * is checked against it, so the driver, the models and the documentation
 * cannot disagree on a name, an offset or an access rule. */
#define PCCX_NPU_REGISTERS(X)                           \
  X(INSTR_LO, UCA_REG_INSTR_LO, PCCX_ACCESS_W)          \
  X(INSTR_HI, UCA_REG_INSTR_HI, PCCX_ACCESS_W)          \
  X(STATUS, UCA_REG_STATUS, PCCX_ACCESS_R_W1C)          \
  X(ERR_CODE, PCCX_REG_ERR_CODE, PCCX_ACCESS_R)         \
  X(ERR_INSTR_LO, PCCX_REG_ERR_INSTR_LO, PCCX_ACCESS_R) \
  X(ERR_INSTR_HI, PCCX_REG_ERR_INSTR_HI, PCCX_ACCESS_R) \
  X(ERR_SEQ, PCCX_REG_ERR_SEQ, PCCX_ACCESS_R)           \
  X(CMD_LEVEL, PCCX_REG_CMD_LEVEL, PCCX_ACCESS_R)       \
  X(CMD_DEPTH, PCCX_REG_CMD_DEPTH, PCCX_ACCESS_R)       \
  X(RETIRED_LO, PCCX_REG_RETIRED_LO, PCCX_ACCESS_R)     \
  X(RETIRED_HI, PCCX_REG_RETIRED_HI, PCCX_ACCESS_R)     \
  X(ISSUED_LO, PCCX_REG_ISSUED_LO, PCCX_ACCESS_R)       \
  X(ISSUED_HI, PCCX_REG_ISSUED_HI, PCCX_ACCESS_R)       \
  X(ID, PCCX_REG_ID, PCCX_ACCESS_R)                     \
  X(VERSION, PCCX_REG_VERSION, PCCX_ACCESS_R)

#define PCCX_NPU_ID 0x50434358u      /* "PCCX" */
#define PCCX_NPU_VERSION 0x00020000u /* v002 */

/* Performance counters, 64 bits each (LO at the offset, HI at +4), counted
 * in core clock cycles unless named otherwise. */
#define PCCX_REG_PERF_BASE 0x40
#define PCCX_PERF_COUNT 40
#define PCCX_REG_PERF_LO(i) (PCCX_REG_PERF_BASE + 8u * (i))
#define PCCX_REG_PERF_HI(i) (PCCX_REG_PERF_BASE + 8u * (i) + 4u)

#define PCCX_PERF_CYCLES 0             /* core cycles since reset */
#define PCCX_PERF_MACS 1               /* multiply-accumulates done */
#define PCCX_PERF_GEMV_BUSY 2          /* GEMV busy cycles */
#define PCCX_PERF_GEMM_BUSY 3          /* GEMM busy cycles */
#define PCCX_PERF_SFU_BUSY 4           /* SFU busy cycles */
#define PCCX_PERF_DMA_BUSY 5           /* DMA (MEMCPY) busy cycles */
#define PCCX_PERF_DDR_RD_BYTES 6       /* DDR bytes read by the NPU */
#define PCCX_PERF_DDR_WR_BYTES 7       /* DDR bytes written by the NPU */
#define PCCX_PERF_HAZARD_STALL 8       /* issue cycles lost to L2 range hazards */
#define PCCX_PERF_UNIT_STALL 9         /* issue cycles lost to a busy unit */
#define PCCX_PERF_CMD_EMPTY 10         /* issue cycles with CMD_IN empty */
#define PCCX_PERF_SFU_ELEMENTS 11      /* elements the SFU processed */
#define PCCX_PERF_GEMV_WEIGHT_STALL 12 /* GEMV cycles waiting for weights */
#define PCCX_PERF_GEMV_MACS 13         /* MACs done by the GEMV engine */
#define PCCX_PERF_GEMM_MACS 14         /* MACs done by the GEMM array */
#define PCCX_PERF_GEMM_WEIGHT_STALL 15 /* GEMM cycles waiting for weight tiles */
#define PCCX_PERF_SFU_CHAINED 16       /* CVOs fed by the direct GEMV -> SFU path */
/* Instructions retired without error, per engine. */
#define PCCX_PERF_GEMV_INSTRUCTIONS 17
#define PCCX_PERF_GEMM_INSTRUCTIONS 18
#define PCCX_PERF_SFU_INSTRUCTIONS 19
#define PCCX_PERF_DMA_INSTRUCTIONS 20
/* Busy cycles an engine spent waiting for its L2 operands. */
#define PCCX_PERF_GEMV_L2_STALL 21   /* activation load into the L1s */
#define PCCX_PERF_GEMM_L2_STALL 22   /* activation slices not yet in the buffer */
#define PCCX_PERF_SFU_INPUT_STALL 23 /* elements late from L2 or the GEMV path */
/* Cycles an instruction for the engine waited at issue on an L2 hazard. */
#define PCCX_PERF_GEMV_HAZARD_STALL 24
#define PCCX_PERF_GEMM_HAZARD_STALL 25
#define PCCX_PERF_SFU_HAZARD_STALL 26
#define PCCX_PERF_DMA_HAZARD_STALL 27
/* Cycles with no instruction on the engine (cycles - busy). */
#define PCCX_PERF_GEMV_IDLE 28
#define PCCX_PERF_GEMM_IDLE 29
#define PCCX_PERF_SFU_IDLE 30
#define PCCX_PERF_DMA_IDLE 31
#define PCCX_PERF_GEMV_DEQUANT_STALL 32 /* GEMV cycles waiting for the KV dequantize stage */
/* 33..39 are free. */

/* Error codes latched in ERR_CODE. */
#define PCCX_ERR_NONE 0x00
#define PCCX_ERR_UNKNOWN_OPCODE 0x01   /* opcode 0x5..0xF */
#define PCCX_ERR_RESERVED_BITS 0x02    /* a reserved field is nonzero */
#define PCCX_ERR_UNKNOWN_CVO_FUNC 0x03 /* undefined or disabled cvo_func */
#define PCCX_ERR_L2_RANGE 0x04         /* an L2 range ends beyond the last word */
#define PCCX_ERR_ZERO_LENGTH 0x05      /* length or a shape extent is zero */
#define PCCX_ERR_LENGTH_TOO_LARGE 0x06 /* length above the unit's limit */
#define PCCX_ERR_UNWRITTEN_SLOT 0x07   /* shape/size slot never written */
#define PCCX_ERR_INVALID_ROUTE 0x08    /* MEMCPY route not available */
#define PCCX_ERR_INVALID_CACHE 0x09    /* MEMSET bank not present */
#define PCCX_ERR_INVALID_LANES 0x0A    /* parallel_lane above the core count */
#define PCCX_ERR_UNIT_UNAVAILABLE 0x0B /* no execution unit for this opcode */
#define PCCX_ERR_UNIT_FAULT 0x0C       /* the unit failed while executing */
#define PCCX_ERR_DMA_ADDRESS 0x0D      /* DMA address outside DDR */

#endif /* PCCX_NPU_REGS_H */
