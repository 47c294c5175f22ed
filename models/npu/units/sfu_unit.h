// The SFU execution unit (bound as unit_kind::sfu): runs CVO instructions,
// one BF16 element per core clock through a function pipeline, FP32 inside.
//
//   reads    src words through L2 port 1 (SCALE: the scalar word at src, then
//            the vector from src + 1), or, chained to a GEMV, from the direct
//            GEMV -> SFU path as the GEMV produces them; for accm / MUL / ADD
//            also the dst words through port 1;
//   streams  element i enters at max(previous entry + 1 clock, its word's
//            arrival), leaves latency + output_register clocks later;
//   writes   result words through L2 port 1 as they complete (REDUCE_SUM: one
//            word {sum, 0, 0, 0, 0, 0, 0, 0} at dst).
//
// L2 reservations are made per chunk of `chunk_words` words (no wait per
// element); the thread keeps a temporally decoupled local time (global
// quantum) and retires when the last word is written. Uncontended, an
// instruction takes (1 + L2 read latency) + elements + latency +
// output_register clocks; SCALE streams one more element (the scalar).
// docs/models/sfu.md lists the semantics and which of them the spec fixes.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <systemc>
#include <vector>

#include "models/memory/l2/l2_memory.h"
#include "infra/time/decoupled_clock.h"
#include "models/npu/core/perf_counters.h"
#include "models/npu/core/threaded_unit.h"
#include "models/npu/units/sfu_config.h"

namespace pccx::npu {

// Pipeline latency of each function in core clocks (sfu.latency_cycles).
// The GELU form is the configuration's (tanh: the model's; sigmoid: the RTL's).
using sfu_gelu_form = config::gelu_form;

struct sfu_unit_params {
  sc_core::sc_time core_period = sc_core::sc_time(2.5, sc_core::SC_NS);
  // npu.sfu: the GELU form, extensions and every function's latency.
  config::sfu_config section;
  uint32_t chunk_words = 16;  // L2 words per reservation (>= 1)
};

class sfu_unit : public threaded_unit {
 public:
  sfu_unit(sc_core::sc_module_name name, const sfu_unit_params& params, mem::l2_memory& l2,
           perf_counters& counters);

  // The e_max register that sub_emax subtracts (set by GEMV findemax). Reset 0.
  void set_emax(float value) { emax_ = value; }
  float emax() const { return emax_; }

  // Pipeline latency of `func` in core clocks (without the output register);
  // 0 for an unknown code.
  uint32_t latency_cycles(uint8_t func) const;

  struct stats {
    uint64_t instructions = 0;  // retired without error
    uint64_t elements = 0;      // vector elements processed (SCALE's scalar not counted)
    uint64_t words_read = 0;
    uint64_t words_written = 0;
    uint64_t words_forwarded = 0;     // source words taken from the direct GEMV path
    uint64_t input_stall_cycles = 0;  // pipeline waiting for input words
  };
  const stats& statistics() const { return stats_; }
  const sfu_unit_params& params() const { return params_; }

 protected:
  result execute(const dispatched_instruction& d) override;

 private:
  // Reads `words` words at `first` in chunks; fills `arrival` (data-out time
  // per word, in ticks) and, when `buf` is not null, the bytes.
  void read_words(uint32_t first, uint32_t words, uint8_t* buf, std::vector<uint64_t>& arrival);
  // A chained source word the GEMV never produced (it failed).
  struct missing_input : std::runtime_error {
    using std::runtime_error::runtime_error;
  };
  // Takes source words [from, from + count) of the vector at `first` from
  // the direct GEMV path: data from the L2 (the GEMV wrote them), time from
  // the stream, no L2 port cycles.
  void forward_words(result_stream& stream, uint32_t first, uint32_t from, uint32_t count,
                     uint8_t* buf, std::vector<uint64_t>& arrival);
  void run(const isa::cvo_instr& cv, result_stream* chained);
  float apply(uint8_t func, float x, float multiplier, float operand) const;

  sfu_unit_params params_;
  mem::l2_memory& l2_;
  perf_counters& counters_;
  float emax_ = 0.0f;
  std::vector<uint8_t> src_buf_, dst_buf_;
  // Per word, in ticks (sc_time::value()): the stream's arithmetic is
  // whole ticks, exact, and runs once per word of every vector.
  std::vector<uint64_t> src_arrival_, dst_arrival_, word_out_;
  decoupled_clock clock_;
  sc_core::sc_time end_;
  stats stats_;
};

}  // namespace pccx::npu
