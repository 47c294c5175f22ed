// What the GEMV and GEMM units share: the checks of their parameters and of
// a matmul instruction, the numerics of the W4A8 datapath (INT8 activations
// quantised per row from BF16, INT4 weights, BF16 result words) and the way
// a unit takes weight bytes from a FIFO. Both engines must agree on these to
// the bit, so they live in one place.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <systemc>
#include <vector>

#include "models/memory/dma/stream_fifo.h"
#include "models/memory/l2/l2_memory.h"
#include "infra/time/decoupled_clock.h"
#include "models/npu/core/execution_unit.h"

namespace pccx::npu::matmul {

// Why a unit refuses an instruction before taking any time.
struct refusal {
  uint32_t err;
  std::string detail;
};
// The checks every matmul passes first: opcode `op` with a matmul body, a
// weight shape (M, N, K) without a zero extent, and X*Y*Z activations equal
// to M*K. `unit` names the refusing unit in the detail.
std::optional<refusal> check_instruction(const dispatched_instruction& d, isa::opcode op,
                                         const std::string& unit);

// Runs the timed stages of an instruction that passed its checks: a fresh
// quantum, `t0` and `end` at the kernel time, then `stages()`, which moves
// `end` to its last L2 access. An L2 range error stops them: the result is
// then PCCX_ERR_L2_RANGE with "<unit>: <op>: <message>".
template <class Stages>
std::optional<refusal> run_stages(decoupled_clock& clock, const char* unit, const char* op,
                                  sc_core::sc_time& t0, sc_core::sc_time& end, Stages&& stages) {
  clock.reset();
  t0 = end = sc_core::sc_time_stamp();
  try {
    stages();
  } catch (const mem::l2_range_error& e) {
    return refusal{PCCX_ERR_L2_RANGE, std::string(unit) + ": " + op + ": " + e.what()};
  }
  return std::nullopt;
}

// The constructor checks both units make first: a positive core period and
// no null weight FIFO. Throws std::invalid_argument naming `unit`.
void check_unit_params(const std::string& unit, const sc_core::sc_time& core_period,
                       const std::vector<mem::stream_fifo*>& fifos);

inline uint32_t ceil_div(uint64_t a, uint64_t b) {
  return static_cast<uint32_t>((a + b - 1) / b);
}

// One INT4 weight: the low (k even) or high (k odd) nibble of `byte`, two's
// complement.
inline int int4(uint8_t byte, bool high) {
  const int v = high ? (byte >> 4) : (byte & 0xF);
  return v >= 8 ? v - 16 : v;
}

// Unpacks n INT4 weights (two per byte, low nibble first) into int16 values.
void unpack_int4(const uint8_t* packed, uint32_t n, int16_t* out);

// Sum of a[i] * b[i] over n pairs of int8 values held in int16 (exact:
// |sum| < 2^31 for n < 2^17). Inline, and on int16 so that the compiler
// turns it into multiply-add vector instructions without any -march flag.
inline int32_t dot_int16(const int16_t* a, const int16_t* b, uint32_t n) {
  int32_t sum = 0;
  for (uint32_t i = 0; i < n; ++i) sum += int32_t{a[i]} * int32_t{b[i]};
  return sum;
}

// Whether an instruction computes values: its L2 and every weight FIFO carry
// bytes (simulation.mode functional; a timing-only memory carries none).
bool computes_values(const mem::l2_memory& l2,
                     const std::vector<mem::stream_fifo*>& fifos);

// Throws l2_range_error unless L2 words [first, first + words) exist; `what`
// names them in the message ("GEMV result").
void check_l2_range(const mem::l2_memory& l2, const std::string& what, uint32_t first,
                    uint32_t words);

// Rows x K BF16 activations quantised to INT8, symmetric per row: scale =
// max|x| / 127 (1 for an all-zero row), q = x / scale rounded half to even
// and clamped to +-127.
struct int8_rows {
  std::vector<int8_t> q;     // rows x K, row-major
  std::vector<float> scale;  // one per row
};
// `act` holds the activations as packed little-endian BF16 (L2 words).
int8_rows quantise_rows(const uint8_t* act, uint32_t rows, uint32_t k);

// The elements [first, last) of an M*N row-major result that BF16 result
// word w holds; the last word may hold fewer than 8.
struct word_span {
  uint64_t first, last;
};
word_span elements_of_word(uint32_t w, uint64_t elements);
// The highest output column (element index mod n) among the elements of
// result word w: the word is complete once that column is.
uint32_t last_column_of_word(uint32_t w, uint64_t elements, uint32_t n);

// Result words grouped by the step that completes them (a counting sort):
// the words of step s, in word order, are order[begin[s] .. begin[s + 1]).
// step_of[w] < steps; fill is scratch. The vectors are the caller's, kept
// between instructions.
void group_words_by_step(const std::vector<uint32_t>& step_of, uint32_t steps,
                         std::vector<uint32_t>& begin, std::vector<uint32_t>& order,
                         std::vector<uint32_t>& fill);

// Forms result word w in place: each element y[i], plus (accm) the BF16
// value the word held, rounded once to BF16; elements past the end of the
// result are zeroed.
void form_result_word(uint8_t* word, uint32_t w, const std::vector<float>& y, bool accm);

// Takes `bytes` from `fifo` for a consumer whose local time is `at`; returns
// when they are available (>= at). When the FIFO does not hold them yet the
// thread synchronises to `at` and blocks, so the producer can catch up.
// Inline: the engines take a record this way millions of times per token.
sc_core::sc_time wait_for_weights(decoupled_clock& clock, mem::stream_fifo& fifo, uint64_t bytes,
                                  uint8_t* buf, const sc_core::sc_time& at);
inline sc_core::sc_time take_weights(decoupled_clock& clock, mem::stream_fifo& fifo,
                                     uint64_t bytes, uint8_t* buf, const sc_core::sc_time& at) {
  if (auto t = fifo.try_pop(bytes, buf, at)) return *t;
  return wait_for_weights(clock, fifo, bytes, buf, at);
}

}  // namespace pccx::npu::matmul
