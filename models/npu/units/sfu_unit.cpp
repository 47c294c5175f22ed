#include "models/npu/units/sfu_unit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <variant>

#include "infra/text/hex.h"
#include "models/npu/units/bf16.h"
#include "pccx_isa.h"
#include "uCA_v1_api.h"

namespace pccx::npu {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

namespace {
constexpr uint32_t kWord = mem::l2_memory::kWordBytes;
constexpr uint32_t kPerWord = bf16::kPerWord;
constexpr unsigned kPort = mem::l2_memory::kComputePort;

std::string hex(unsigned v) {
  return text::hex_upper(v);
}

// 0.5 x (1 + tanh(u)) = x * sigmoid(2u): the sigmoid form has no
// cancellation for large negative x (1 + tanh(u) would lose every bit).
float gelu_tanh(float x) {
  if (std::isinf(x)) return x > 0 ? x : -0.0f;
  constexpr float k = 0.7978845608028654f;  // sqrt(2 / pi)
  const float u = k * (x + 0.044715f * x * x * x);
  return x / (1.0f + std::exp(-2.0f * u));
}

float gelu_sigmoid(float x) {
  if (std::isinf(x)) return x > 0 ? x : -0.0f;
  return x / (1.0f + std::exp(-1.702f * x));
}

// The element stream of one CVO, in whole ticks (exact, as sc_time's own
// arithmetic is): what stays fixed over the vector ...
struct stream_shape {
  uint64_t begin;   // the unit's local time when the operands were asked for
  uint64_t period;  // one core clock
  uint64_t pipe;    // function latency + output register
  uint32_t length;  // elements
  uint32_t words;   // vector words
  bool reduce;      // REDUCE_SUM: one result word, after the last element
  bool read_dst;    // the result also waits for the word at dst
  const uint64_t* dst_arrival;
};
// ... and what moves: when the previous element entered, how long the
// pipeline waited for input words, and the result words' times.
struct stream_state {
  uint64_t entry = 0;
  uint64_t input_wait = 0;
  bool first = true;  // no element has entered yet
  uint64_t* word_out = nullptr;
};

// `count` elements of one word enter one per clock, none before the word
// is `ready`; returns the entry of the last.
inline uint64_t enter(const stream_shape& s, stream_state& st, uint64_t ready, uint32_t count) {
  const uint64_t free = st.first ? s.begin : st.entry + s.period;
  if (ready > free) st.input_wait += ready - free;
  st.entry = st.first ? ready : std::max(st.entry + s.period, ready);
  st.first = false;
  st.entry += s.period * (count - 1);
  return st.entry;
}

// Word w's elements enter; its result word leaves `pipe` after the last of
// them, one clock after the previous result word at the earliest.
inline void stream_word(const stream_shape& s, stream_state& st, uint32_t w, uint64_t ready) {
  const uint64_t last = enter(s, st, ready, std::min(kPerWord, s.length - w * kPerWord));
  if (!s.reduce) {
    uint64_t out = last + s.pipe;
    if (s.read_dst) out = std::max(out, s.dst_arrival[w]);
    if (w > 0) out = std::max(out, st.word_out[w - 1] + s.period);
    st.word_out[w] = out;
  } else if (w + 1 == s.words) {
    st.word_out[0] = s.read_dst ? std::max(last + s.pipe, s.dst_arrival[0]) : last + s.pipe;
  }
}

// Words [from, to) whose source words' arrivals are all known (`ready`,
// indexed by word): a loop of its own, so its state stays in registers.
void stream_words(const stream_shape& s, stream_state& st, uint32_t from, uint32_t to,
                  const uint64_t* ready) {
  stream_state local = st;
  for (uint32_t w = from; w < to; ++w) stream_word(s, local, w, ready[w]);
  st = local;
}
}  // namespace

sfu_unit::sfu_unit(sc_core::sc_module_name name, const sfu_unit_params& params, mem::l2_memory& l2,
                   perf_counters& counters)
    : threaded_unit(name), params_(params), l2_(l2), counters_(counters) {
  if (params_.chunk_words == 0)
    throw std::invalid_argument(std::string(this->name()) + ": chunk_words must be at least 1");
  if (params_.core_period <= SC_ZERO_TIME)
    throw std::invalid_argument(std::string(this->name()) + ": core_period must be positive");
}

uint32_t sfu_unit::latency_cycles(uint8_t func) const {
  const config::sfu_latency_config& l = params_.section.latency_cycles;
  switch (func) {
    case UCA_CVO_EXP: return l.exp;
    case UCA_CVO_SQRT: return l.sqrt;
    case UCA_CVO_GELU: return l.gelu;
    case UCA_CVO_SIN: return l.sin;
    case UCA_CVO_COS: return l.cos;
    case UCA_CVO_REDUCE_SUM: return l.reduce_sum;
    case UCA_CVO_SCALE: return l.scale;
    case UCA_CVO_RECIP: return l.recip;
    case PCCX_CVO_TANH: return l.tanh;
    case PCCX_CVO_MUL: return l.mul;
    case PCCX_CVO_ADD: return l.add;
    case PCCX_CVO_MAX: return l.max;
    default: return 0;
  }
}

threaded_unit::result sfu_unit::execute(const dispatched_instruction& d) {
  const auto* cv = std::get_if<isa::cvo_instr>(&d.ins.body);
  if (!cv)
    return {PCCX_ERR_UNIT_FAULT,
            std::string(name()) + " executes CVO only, not " + isa::opcode_name(d.ins.op)};
  const bool known = cv->func <= UCA_CVO_RECIP ||
                     (params_.section.extensions && cv->func <= PCCX_CVO_LAST_DEFINED);
  if (!known)
    return {PCCX_ERR_UNIT_FAULT,
            std::string(name()) + ": CVO function " + hex(cv->func) +
                (cv->func <= PCCX_CVO_LAST_DEFINED ? " (" + isa::cvo_func_name(cv->func) +
                                                         ") is an extension and extensions are off"
                                                   : " names no SFU function")};
  if (cv->length == 0) return {PCCX_ERR_ZERO_LENGTH, "CVO length 0"};

  clock_.reset();
  end_ = sc_core::sc_time_stamp();
  result r;
  try {
    run(*cv, d.consumes.get());
    ++stats_.instructions;
    stats_.elements += cv->length;
    counters_.add(PCCX_PERF_SFU_ELEMENTS, cv->length);
  } catch (const mem::l2_range_error& e) {
    r = {PCCX_ERR_L2_RANGE,
         std::string(name()) + ": CVO " + isa::cvo_func_name(cv->func) + ": " + e.what()};
  } catch (const missing_input& e) {
    r = {PCCX_ERR_UNIT_FAULT,
         std::string(name()) + ": CVO " + isa::cvo_func_name(cv->func) + ": " + e.what()};
  }
  // Retire when the last word is written, not when its reservation was made.
  clock_.sync_to(std::max(end_, clock_.local()));
  return r;
}

void sfu_unit::read_words(uint32_t first, uint32_t words, uint8_t* buf,
                          std::vector<uint64_t>& arrival) {
  const sc_time period = l2_.params().period;
  const sc_time latency = period * static_cast<double>(l2_.params().section.read_latency_cycles);
  const uint64_t step = period.value();
  arrival.resize(words);  // every word is written below
  uint32_t done = 0;
  while (done < words) {
    const uint32_t n = std::min(params_.chunk_words, words - done);
    const sc_time last = l2_.read(kPort, first + done, n,
                                  buf ? buf + size_t{done} * kWord : nullptr, clock_.local());
    // One clock apart, the last at `last` (whole ticks, counted from the
    // chunk's first word so that the loop has no chain to wait on).
    const uint64_t first_at = last.value() - step * (n - 1);
    uint64_t* chunk = arrival.data() + done;
    for (uint32_t i = 0; i < n; ++i) chunk[i] = first_at + step * i;
    stats_.words_read += n;
    done += n;
    clock_.advance_to(last - latency);  // the port is free once the last address went out
  }
}

void sfu_unit::forward_words(result_stream& stream, uint32_t first, uint32_t from, uint32_t count,
                             uint8_t* buf, std::vector<uint64_t>& arrival) {
  const sc_time hop = params_.core_period;  // one register stage on the direct path
  for (uint32_t i = from; i < from + count; ++i) {
    const sc_time keep = clock_.local();
    const auto t = stream.wait_for(first + i);  // may wait in kernel time for the GEMV
    clock_.resume_at(keep);
    if (!t)
      throw missing_input("source word " + std::to_string(first + i) +
                          " was never produced by GEMV #" + std::to_string(stream.producer()) +
                          " on the direct path (the GEMV failed)");
    arrival[i] = (*t + hop).value();
    if (buf) l2_.debug_read(first + i, 1, buf + size_t{i} * kWord);  // the GEMV wrote it first
  }
  stats_.words_forwarded += count;
}

float sfu_unit::apply(uint8_t func, float x, float multiplier, float operand) const {
  switch (func) {
    case UCA_CVO_EXP: return std::exp(x);
    case UCA_CVO_SQRT: return std::sqrt(x);
    case UCA_CVO_GELU:
      return params_.section.gelu == config::gelu_form::tanh ? gelu_tanh(x) : gelu_sigmoid(x);
    case UCA_CVO_SIN: return std::sin(x);
    case UCA_CVO_COS: return std::cos(x);
    case UCA_CVO_SCALE: return x * multiplier;
    case UCA_CVO_RECIP: return 1.0f / x;
    case PCCX_CVO_TANH: return std::tanh(x);
    case PCCX_CVO_MUL: return x * operand;
    case PCCX_CVO_ADD: return x + operand;
    case PCCX_CVO_MAX: return std::isnan(x) ? x : (x > 0.0f ? x : 0.0f);
    default: return x;  // REDUCE_SUM is handled by the caller
  }
}

void sfu_unit::run(const isa::cvo_instr& cv, result_stream* chained) {
  const uint8_t f = cv.func;
  const uint32_t n = cv.length;
  const bool scale = f == UCA_CVO_SCALE;
  const bool reduce = f == UCA_CVO_REDUCE_SUM;
  const bool two_operand = f == PCCX_CVO_MUL || f == PCCX_CVO_ADD;
  const bool accm = (cv.flags & UCA_CVO_FLAG_ACCM) && !two_operand;  // MUL/ADD ignore accm
  const bool sub_emax = cv.flags & UCA_CVO_FLAG_SUB_EMAX;
  const bool recip_scale = scale && (cv.flags & UCA_CVO_FLAG_RECIP_SCALE);
  const bool read_dst = two_operand || accm;
  const bool arith = l2_.functional();  // a timing-only L2 carries no values

  const uint32_t vec_words = (n + kPerWord - 1) / kPerWord;
  const uint32_t src_words = vec_words + (scale ? 1u : 0u);  // SCALE: scalar word first
  const uint32_t dst_words = reduce ? 1u : vec_words;
  const uint64_t p = params_.core_period.value();  // one core clock, in ticks
  const uint64_t pipe =
      (params_.core_period *
       static_cast<double>(latency_cycles(f) + params_.section.latency_cycles.output_register))
          .value();

  // 1. Read the operands (the stream bridge buffers a whole vector).
  if (arith) {
    src_buf_.assign(size_t{src_words} * kWord, 0);
    dst_buf_.assign(size_t{dst_words} * kWord, 0);
  }
  const uint64_t begin = clock_.local().value();
  uint32_t fetched = 0;  // source words whose arrival is known
  if (!chained) {
    read_words(cv.src, src_words, arith ? src_buf_.data() : nullptr, src_arrival_);
    fetched = src_words;
  } else {
    src_arrival_.resize(src_words);  // filled as the GEMV delivers
  }
  if (read_dst) read_words(cv.dst, dst_words, arith ? dst_buf_.data() : nullptr, dst_arrival_);
  // Arrival of source word j; chained, taken from the GEMV only when needed,
  // so results stream out while the GEMV still runs.
  auto source = [&](uint32_t j) {
    if (j >= fetched) {
      forward_words(*chained, cv.src, fetched, j + 1 - fetched, arith ? src_buf_.data() : nullptr,
                    src_arrival_);
      fetched = j + 1;
    }
    return src_arrival_[j];
  };
  // Writes result words [written, upto) chunk by chunk. A chunk's words go
  // out on consecutive clocks, none before it is ready.
  uint32_t written = 0;
  auto flush = [&](uint32_t upto) {
    while (written < upto) {
      const uint32_t c = std::min(params_.chunk_words, upto - written);
      // In whole ticks: one conversion to sc_time per chunk, not one per word.
      uint64_t ticks = 0;
      for (uint32_t i = 0; i < c; ++i)
        ticks = std::max<uint64_t>(ticks, word_out_[written + i] - p * i);
      const sc_time earliest = sc_time::from_value(ticks);
      clock_.advance_to(earliest);
      end_ = l2_.write(kPort, cv.dst + written, c,
                       arith ? dst_buf_.data() + size_t{written} * kWord : nullptr, earliest);
      stats_.words_written += c;
      written += c;
    }
  };

  // 2. Stream the elements: one per clock, each no earlier than its word.
  const float emax = emax_;
  word_out_.resize(dst_words);  // every word is written below
  const stream_shape shape{begin, p, pipe, n, vec_words, reduce, read_dst, dst_arrival_.data()};
  stream_state st;
  st.word_out = word_out_.data();
  float multiplier = 1.0f;
  if (scale) {
    enter(shape, st, source(0), 1);  // the scalar enters first, as one element
    if (arith) {
      const float s = bf16::to_float(bf16::load(src_buf_.data(), 0));
      multiplier = recip_scale ? (s == 0.0f ? 0.0f : 1.0f / s) : s;  // 1/0 -> 0 (pccx doc)
    }
  }
  const uint8_t* vec = arith ? src_buf_.data() + (scale ? kWord : 0) : nullptr;
  const uint32_t vec_arrival0 = scale ? 1u : 0u;  // the source word of vector word 0
  const uint64_t* vec_ready = src_arrival_.data() + vec_arrival0;
  float sum = 0.0f;
  // The values of word w's elements (a timing-only L2 has none).
  auto compute_word = [&](uint32_t w) {
    const uint32_t count = std::min(kPerWord, n - w * kPerWord);
    for (uint32_t i = 0; i < count; ++i) {
      float x = bf16::to_float(bf16::load(vec, size_t{w} * kPerWord + i));
      if (sub_emax) x -= emax;
      if (reduce) {
        sum += x;
        continue;
      }
      const size_t k = size_t{w} * kPerWord + i;
      const float d = read_dst ? bf16::to_float(bf16::load(dst_buf_.data(), k)) : 0.0f;
      float y = apply(f, x, multiplier, d);
      if (accm) y += d;
      bf16::store(dst_buf_.data(), k, bf16::from_float(y));
    }
  };
  // Unchained, every source word is in the buffer: the values first, in
  // element order, so each chunk written below has them.
  if (arith && !chained)
    for (uint32_t w = 0; w < vec_words; ++w) compute_word(w);
  // A vector longer than the stream bridge holds (npu.sfu.max_length; the
  // strict decoder refuses it) runs in passes: each refill waits for the
  // previous pass to drain through the pipeline.
  const uint32_t pass_words = std::max(1u, params_.section.max_length / kPerWord);
  uint32_t next_chunk = params_.chunk_words, next_pass = pass_words;  // word counters, no division
  for (uint32_t w = 0; w < vec_words;) {
    if (w == next_chunk) {
      next_chunk += params_.chunk_words;
      if (!reduce) flush(w);  // the previous chunk is done
    }
    if (w == next_pass) {
      next_pass += pass_words;
      st.entry += pipe;
    }
    // The words up to the next chunk or pass boundary.
    const uint32_t stop = std::min({vec_words, next_chunk, next_pass});
    if (!chained) {
      stream_words(shape, st, w, stop, vec_ready);
      w = stop;
      continue;
    }
    // Chained: each source word as the GEMV delivers it, its values then.
    for (; w < stop; ++w) {
      stream_word(shape, st, w, source(vec_arrival0 + w));
      if (arith) compute_word(w);
    }
  }
  const uint64_t input_wait = st.input_wait;
  if (!reduce && arith) {
    // Whole words are written: elements past `length` in the last word are zeroed.
    for (uint32_t k = n; k < vec_words * kPerWord; ++k) bf16::store(dst_buf_.data(), k, 0);
  }
  if (reduce && arith) {
    // One word {sum, 0, ..., 0}: the other seven elements are zeroed.
    const float y = accm ? sum + bf16::to_float(bf16::load(dst_buf_.data(), 0)) : sum;
    std::fill(dst_buf_.begin(), dst_buf_.end(), uint8_t{0});
    bf16::store(dst_buf_.data(), 0, bf16::from_float(y));
  }

  const uint64_t wait_cycles =
      static_cast<uint64_t>(std::llround(static_cast<double>(input_wait) / static_cast<double>(p)));
  stats_.input_stall_cycles += wait_cycles;
  counters_.add(PCCX_PERF_SFU_INPUT_STALL, wait_cycles);

  // 3. The remaining result words (REDUCE_SUM: its one word).
  flush(dst_words);
}

}  // namespace pccx::npu
