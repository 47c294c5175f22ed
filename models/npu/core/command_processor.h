// The command processor: takes words from CMD_IN in order, decodes and
// validates them, resolves shape slots from the constant cache, waits for
// L2 range hazards (RAW, WAR, WAW) and unit occupancy, and dispatches to the
// execution units. MEMSET executes here: it only writes the constant cache.
//
// Errors latch (code, word, sequence number), drop the instruction and stop
// issue until firmware clears them; instructions already in flight finish.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <list>
#include <optional>
#include <string>
#include <systemc>

#include "infra/log/logger.h"
#include "infra/trace/analysis_port.h"
#include "infra/trace/trace_hub.h"
#include "models/npu/core/command_fifo.h"
#include "models/npu/core/constant_cache.h"
#include "models/npu/core/driver_lint.h"
#include "models/npu/core/execution_unit.h"
#include "models/npu/core/matmul_extents.h"
#include "models/npu/core/npu_params.h"
#include "models/npu/core/perf_counters.h"

namespace pccx::npu {

struct npu_error {
  uint32_t code = PCCX_ERR_NONE;
  uint64_t word = 0;
  uint64_t seq = 0;
  std::string detail;
};

class command_processor : public sc_core::sc_module, public completion_if {
 public:
  SC_HAS_PROCESS(command_processor);
  command_processor(sc_core::sc_module_name name, const npu_params& params, command_fifo& fifo,
                    constant_cache& cache, perf_counters& counters, trace::trace_hub* traces);

  sc_core::sc_out<bool> irq;  // high when idle or in error: firmware's wake-up line

  void bind_unit(unit_kind kind, execution_unit_if& unit);
  // The driver lint the processor reports to (none: no warnings).
  void set_lint(driver_lint* lint) { lint_ = lint; }
  const isa::decode_limits& limits() const { return limits_; }
  bool has_unit(unit_kind kind) const;

  // STATUS as the register bank reports it.
  bool busy() const;
  bool done() const { return done_; }
  bool error_latched() const { return error_.has_value(); }
  const npu_error* error() const { return error_ ? &*error_ : nullptr; }
  uint64_t retired() const { return retired_; }
  uint32_t in_flight() const { return static_cast<uint32_t>(in_flight_.size()); }
  // The oldest instruction still in a unit, if any: what a stuck NPU is stuck on.
  struct in_flight_view {
    uint64_t seq = 0;
    isa::instruction ins;
    unit_kind kind = unit_kind::count;
    sc_core::sc_time started;
  };
  std::optional<in_flight_view> oldest_in_flight() const;

  // A performance counter as firmware reads it now: cycles and idle are
  // derived from the current time, busy includes the instruction in flight.
  uint64_t counter(uint32_t index) const;

  // Called by the register bank on the MMIO side.
  void word_pushed();  // DONE clears when a new word arrives
  void clear_error();

  // Every latched error, as it latches (strict mode ends the run on it).
  trace::analysis_port<npu_error> errors;

  // What the instruction trace records of each retired instruction, for
  // other trace writers. unit is "cmd" for MEMSET, else unit_kind_name.
  struct retire_record {
    uint64_t seq = 0;
    uint64_t word = 0;
    const char* unit = "";
    sc_core::sc_time queued, issued, started, retired;
    uint32_t err = PCCX_ERR_NONE;
  };
  // Each instruction as it retires, for trace writers and for what a
  // per-layer time breakdown is built from (seq and retired).
  trace::analysis_port<retire_record> retirements;
  // True while the unit holds an instruction (dispatch to retire): a
  // variable a waveform trace can follow.
  const bool& unit_busy_flag(unit_kind kind) const { return unit_busy_[static_cast<size_t>(kind)]; }

  void retire(uint64_t seq, uint32_t err, const std::string& detail) override;

 private:
  struct in_flight_record {
    dispatched_instruction d;
    unit_kind kind;
    sc_core::sc_time queued, issued, started;
  };

  void issue_thread();
  void irq_method();
  bool next_word(command_fifo::entry& out);
  // Fills shapes and L2 ranges; returns an error code or PCCX_ERR_NONE.
  // upstream: set when a GEMM/GEMV's extents came from the upstream reading
  // of its slots (docs/reference/spec-decisions.md), saying which.
  uint32_t resolve(dispatched_instruction& d, std::string& detail, std::string& upstream) const;
  // A RAW of d's first read range on `chained`'s result is allowed: d takes
  // those words from the direct GEMV -> SFU path.
  bool conflicts(const dispatched_instruction& d, const in_flight_record* chained) const;
  // The in-flight GEMV a CVO can chain to, if any.
  const in_flight_record* chain_producer(const dispatched_instruction& d) const;
  // The lint's checks of an instruction: at decode (the word and its
  // shapes) and at dispatch (L2 initialisation, DMA descriptors).
  void lint_decoded(const dispatched_instruction& d);
  void lint_dispatch(const dispatched_instruction& d, bool chained);
  // traced: the instruction trace already has a record for this word.
  void latch(const command_fifo::entry& e, uint32_t code, const std::string& detail,
             bool traced = false);
  void record(const dispatched_instruction& d, const char* unit, const sc_core::sc_time& queued,
              const sc_core::sc_time& issued, const sc_core::sc_time& started, uint32_t err,
              const std::string& detail);
  void status_changed();
  uint64_t cycles(const sc_core::sc_time& t) const;

  npu_params params_;
  isa::decode_limits limits_;  // from params_.section, once
  command_fifo& fifo_;
  constant_cache& cache_;
  perf_counters& counters_;
  trace::jsonl_trace* instr_trace_;
  driver_lint* lint_ = nullptr;
  log::logger log_;

  std::array<execution_unit_if*, static_cast<size_t>(unit_kind::count)> units_{};
  std::array<bool, static_cast<size_t>(unit_kind::count)> unit_busy_{};
  std::list<in_flight_record> in_flight_;
  bool decoding_ = false;  // a word left CMD_IN and is not yet dispatched
  bool done_ = false;
  bool work_since_done_ = false;  // DONE stays clear at reset
  uint64_t retired_ = 0;
  std::optional<npu_error> error_;

  sc_core::sc_event retired_event_;
  sc_core::sc_event error_cleared_event_;
  sc_core::sc_event status_event_;
};

}  // namespace pccx::npu
