#include "models/npu/units/matmul_common.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <variant>

#include "models/npu/units/bf16.h"
#include "pccx_isa.h"

namespace pccx::npu::matmul {

std::optional<refusal> check_instruction(const dispatched_instruction& d, isa::opcode op,
                                         const std::string& unit) {
  const std::string what = isa::opcode_name(op);
  const auto* mm = std::get_if<isa::matmul_instr>(&d.ins.body);
  if (!mm || d.ins.op != op)
    return refusal{PCCX_ERR_UNIT_FAULT,
                   unit + " executes " + what + " only, not " + isa::opcode_name(d.ins.op)};
  const uint32_t M = d.shape[0], N = d.shape[1], K = d.shape[2];
  if (M == 0 || N == 0 || K == 0)
    return refusal{PCCX_ERR_ZERO_LENGTH, unit + ": " + what + " weight shape (M, N, K) = (" +
                                             std::to_string(M) + ", " + std::to_string(N) + ", " +
                                             std::to_string(K) + ") has a zero extent"};
  const uint64_t xyz = uint64_t{d.size[0]} * d.size[1] * d.size[2];
  if (xyz != uint64_t{M} * K)
    return refusal{PCCX_ERR_UNIT_FAULT,
                   unit + ": " + what + " activation size X*Y*Z = " + std::to_string(xyz) +
                       " (fmap_shape slot " + std::to_string(mm->size_ptr) +
                       ") != M*K = " + std::to_string(uint64_t{M} * K) + " (weight_shape slot " +
                       std::to_string(mm->shape_ptr) + ")"};
  return std::nullopt;
}

void check_unit_params(const std::string& unit, const sc_core::sc_time& core_period,
                       const std::vector<mem::stream_fifo*>& fifos) {
  if (core_period <= sc_core::SC_ZERO_TIME)
    throw std::invalid_argument(unit + ": core_period must be positive");
  for (auto* f : fifos)
    if (!f) throw std::invalid_argument(unit + ": null weight FIFO");
}

void unpack_int4(const uint8_t* packed, uint32_t n, int16_t* out) {
  // Shifts on signed bytes sign-extend each nibble; the loop vectorises.
  const uint32_t pairs = n / 2;
  for (uint32_t j = 0; j < pairs; ++j) {
    const auto b = static_cast<int8_t>(packed[j]);
    out[2 * j] = static_cast<int8_t>(static_cast<int8_t>(b << 4) >> 4);
    out[2 * j + 1] = static_cast<int8_t>(b >> 4);
  }
  if (n & 1) out[n - 1] = static_cast<int16_t>(int4(packed[pairs], false));
}

bool computes_values(const mem::l2_memory& l2,
                     const std::vector<mem::stream_fifo*>& fifos) {
  bool functional = l2.functional();
  for (auto* f : fifos) functional = functional && f->functional();
  return functional;
}

void check_l2_range(const mem::l2_memory& l2, const std::string& what, uint32_t first,
                    uint32_t words) {
  if (uint64_t{first} + words > l2.words())
    throw mem::l2_range_error(what + " words " + std::to_string(first) + ".." +
                                  std::to_string(uint64_t{first} + words - 1) + " beyond the L2",
                              first, words, l2.words());
}

int8_rows quantise_rows(const uint8_t* act, uint32_t rows, uint32_t k) {
  int8_rows r;
  r.q.resize(size_t{rows} * k);
  r.scale.resize(rows);
  for (uint32_t m = 0; m < rows; ++m) {
    const size_t row = size_t{m} * k;
    float amax = 0.0f;
    for (uint32_t i = 0; i < k; ++i)
      amax = std::max(amax, std::fabs(bf16::to_float(bf16::load(act, row + i))));
    const float s = amax == 0.0f ? 1.0f : amax / 127.0f;
    r.scale[m] = s;
    for (uint32_t i = 0; i < k; ++i) {
      const float x = bf16::to_float(bf16::load(act, row + i));
      float q = std::nearbyint(x / s);  // default FE_TONEAREST: half to even
      q = std::min(127.0f, std::max(-127.0f, q));
      r.q[row + i] = static_cast<int8_t>(q);
    }
  }
  return r;
}

word_span elements_of_word(uint32_t w, uint64_t elements) {
  const uint64_t first = uint64_t{w} * bf16::kPerWord;
  return {first, std::min<uint64_t>(first + bf16::kPerWord, elements)};
}

uint32_t last_column_of_word(uint32_t w, uint64_t elements, uint32_t n) {
  const word_span s = elements_of_word(w, elements);
  if (s.last <= s.first) return 0;
  // Columns rise along a row: a span inside one row ends on its highest,
  // one that crosses a row's end holds column n - 1.
  if (s.first / n != (s.last - 1) / n) return n - 1;
  return static_cast<uint32_t>((s.last - 1) % n);
}

void form_result_word(uint8_t* word, uint32_t w, const std::vector<float>& y, bool accm) {
  for (uint32_t j = 0; j < bf16::kPerWord; ++j) {
    const uint64_t i = uint64_t{w} * bf16::kPerWord + j;
    if (i >= y.size()) {
      bf16::store(word, j, 0);  // tail of the last word
      continue;
    }
    float v = y[i];
    if (accm) v += bf16::to_float(bf16::load(word, j));
    bf16::store(word, j, bf16::from_float(v));
  }
}

void group_words_by_step(const std::vector<uint32_t>& step_of, uint32_t steps,
                         std::vector<uint32_t>& begin, std::vector<uint32_t>& order,
                         std::vector<uint32_t>& fill) {
  const auto words = static_cast<uint32_t>(step_of.size());
  begin.assign(size_t{steps} + 1, 0);
  order.assign(words, 0);
  for (uint32_t w = 0; w < words; ++w) ++begin[step_of[w] + 1];
  for (uint32_t s = 0; s < steps; ++s) begin[s + 1] += begin[s];
  fill.assign(begin.begin(), begin.end() - 1);
  for (uint32_t w = 0; w < words; ++w) order[fill[step_of[w]]++] = w;
}

sc_core::sc_time wait_for_weights(decoupled_clock& clock, mem::stream_fifo& fifo, uint64_t bytes,
                                  uint8_t* buf, const sc_core::sc_time& at) {
  clock.sync_to(at);
  const sc_core::sc_time popped = fifo.pop(bytes, buf);
  clock.refresh();
  return std::max(popped, at);
}

}  // namespace pccx::npu::matmul
