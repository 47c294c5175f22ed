/* Vector building blocks of a decode step, written on the uCA API for the
 * SFU's limits: CVO instructions of at most `max_length` elements (the RTL
 * stream bridge holds 2,048), SCALE's scalar in the word before its vector,
 * REDUCE_SUM writing one word {sum, 0, ..., 0}, MUL/ADD combining with the
 * destination (docs/models/sfu.md). Each call issues instructions and returns; the
 * caller synchronises (uca_sync) where it needs the results.
 *
 * L2 arguments are 128-bit word addresses; vectors are BF16, 8 per word.
 * Functions return PCCX_OPS_OK or a negative PCCX_OPS_E_*; on an error
 * nothing has been issued. docs/guides/firmware.md, "Vector operations". */
#ifndef PCCX_OPS_H
#define PCCX_OPS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PCCX_OPS_OK 0
#define PCCX_OPS_E_ARG (-1)    /* zero length, bad function or misaligned chunking */
#define PCCX_OPS_E_LENGTH (-2) /* longer than the operation supports */
#define PCCX_OPS_E_DMA (-3)    /* a constant could not be staged through DDR */
#define PCCX_OPS_DEFAULT_CVO_MAX 2048u

/* The longest CVO the platform accepts (npu.sfu.max_length); a multiple of
 * 8, at least 8. Returns PCCX_OPS_E_ARG otherwise. */
int pccx_ops_set_cvo_max(uint32_t elements);
uint32_t pccx_ops_cvo_max(void);

/* An element-wise CVO (EXP, SQRT, GELU, SIN, COS, RECIP, TANH, MUL, ADD,
 * MAX) over n elements, split into pieces of cvo_max elements (word-aligned,
 * so src and dst advance by cvo_max / 8 words). REDUCE_SUM and SCALE are not
 * element-wise: PCCX_OPS_E_ARG. */
int pccx_cvo_long(uint8_t func, uint32_t src, uint32_t dst, uint32_t n, uint8_t flags,
                  uint8_t async);

/* Sum of n elements into word `dst` ({sum, 0, ..., 0}): the first piece
 * REDUCE_SUM, the others REDUCE_SUM with accm into the same word. `flags`
 * may add sub_emax. */
int pccx_reduce_sum_long(uint32_t src, uint32_t n, uint32_t dst, uint8_t flags);

/* Where pccx_rmsnorm works. `words` L2 words from `first` (at least
 * pccx_rmsnorm_words(n)), a free fmap_shape constant-cache slot, and 32
 * bytes of DDR (16-byte aligned) through which pccx_rmsnorm_prepare stages
 * two constants. `n` is set by pccx_rmsnorm_prepare. */
typedef struct {
  uint32_t first;     /* L2 word of the workspace */
  uint8_t shape_slot; /* fmap_shape slot it may overwrite */
  uint64_t ddr;       /* DDR scratch, 32 bytes */
  uint32_t n;         /* elements the constants were staged for (0: none) */
} pccx_rmsnorm_ws;

/* L2 words pccx_rmsnorm needs for n elements: 6 + ceil(n / 8). */
uint32_t pccx_rmsnorm_words(uint32_t n);

/* Stages 1/n and eps (BF16 bits) into the workspace through ACP_FMAP and
 * waits for them (uca_sync): once per vector length, not per norm. n <=
 * cvo_max. */
int pccx_rmsnorm_prepare(pccx_rmsnorm_ws* ws, uint32_t n, uint16_t eps_bf16);

/* out = gamma * x / sqrt(mean(x^2) + eps) (Gemma's RMSNorm: no +1 on
 * gamma) for the n the workspace was prepared for. x, gamma and out must
 * not overlap the workspace; out may be x. Issues 10 instructions and never
 * waits. */
int pccx_rmsnorm(const pccx_rmsnorm_ws* ws, uint32_t x, uint32_t gamma, uint32_t out, uint32_t n);

/* BF16 of f, round to nearest even; infinities and NaNs keep their class.
 * For constants the CPU stages for the NPU. */
uint16_t pccx_bf16_from_float(float f);

/* "No operand" for the optional arguments of pccx_rmsnorm_ex. */
#define PCCX_OPS_NONE 0xFFFFFFFFu

/* out = x / sqrt(mean(x^2) + eps), times gamma (a vector) unless gamma is
 * PCCX_OPS_NONE, times element 0 of word `scalar` unless that is
 * PCCX_OPS_NONE. The scalar must not lie in the workspace. Issues 10 or 11
 * instructions (one less without gamma, one more with the scalar). */
int pccx_rmsnorm_ex(const pccx_rmsnorm_ws* ws, uint32_t x, uint32_t gamma, uint32_t out, uint32_t n,
                    uint32_t scalar);

/* Word `dst` = {sqrt(mean(x^2) + eps), ...}: the magnitude a vector is
 * matched to. Issues 8 instructions. */
int pccx_rms_value(const pccx_rmsnorm_ws* ws, uint32_t x, uint32_t dst, uint32_t n);

#ifdef __cplusplus
}
#endif

#endif /* PCCX_OPS_H */
