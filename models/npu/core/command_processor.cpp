#include "models/npu/core/command_processor.h"

#include <cinttypes>
#include <cstdio>
#include <memory>

#include "infra/text/hex.h"
#include "infra/time/kernel_time.h"
#include "pccx_dma.h"
#include "pccx_isa.h"
#include "uCA_v1_api.h"

namespace pccx::npu {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

namespace {

uint32_t words_for_elements(uint64_t elements) {
  return static_cast<uint32_t>((elements + PCCX_BF16_PER_L2_WORD - 1) / PCCX_BF16_PER_L2_WORD);
}

using text::hex_word;

// Per-engine counters, indexed by unit_kind.
constexpr uint32_t kBusyCounter[] = {PCCX_PERF_GEMV_BUSY, PCCX_PERF_GEMM_BUSY, PCCX_PERF_SFU_BUSY,
                                     PCCX_PERF_DMA_BUSY};
constexpr uint32_t kIdleCounter[] = {PCCX_PERF_GEMV_IDLE, PCCX_PERF_GEMM_IDLE, PCCX_PERF_SFU_IDLE,
                                     PCCX_PERF_DMA_IDLE};
constexpr uint32_t kHazardCounter[] = {PCCX_PERF_GEMV_HAZARD_STALL, PCCX_PERF_GEMM_HAZARD_STALL,
                                       PCCX_PERF_SFU_HAZARD_STALL, PCCX_PERF_DMA_HAZARD_STALL};
constexpr uint32_t kInstructionCounter[] = {PCCX_PERF_GEMV_INSTRUCTIONS,
                                            PCCX_PERF_GEMM_INSTRUCTIONS, PCCX_PERF_SFU_INSTRUCTIONS,
                                            PCCX_PERF_DMA_INSTRUCTIONS};

std::optional<unit_kind> unit_for(isa::opcode op) {
  switch (op) {
    case isa::opcode::gemv: return unit_kind::gemv;
    case isa::opcode::gemm: return unit_kind::gemm;
    case isa::opcode::cvo: return unit_kind::sfu;
    case isa::opcode::memcpy: return unit_kind::dma;
    case isa::opcode::memset: break;
  }
  return std::nullopt;
}

// Synchronous MEMCPY/CVO (async = 0) hold issue until they retire.
bool waits_for_completion(const isa::instruction& ins) {
  if (auto* m = std::get_if<isa::memcpy_instr>(&ins.body)) return !m->async;
  if (auto* c = std::get_if<isa::cvo_instr>(&ins.body)) return !c->async;
  return false;
}

}  // namespace

command_processor::command_processor(sc_core::sc_module_name name, const npu_params& params,
                                     command_fifo& fifo, constant_cache& cache,
                                     perf_counters& counters, trace::trace_hub* traces)
    : sc_core::sc_module(name),
      irq("irq"),
      params_(params),
      limits_(params.limits()),
      fifo_(fifo),
      cache_(cache),
      counters_(counters),
      instr_trace_(traces ? traces->channel("instructions") : nullptr),
      log_(sc_core::sc_module::name()) {
  SC_THREAD(issue_thread);
  SC_METHOD(irq_method);
  sensitive << status_event_;
}

void command_processor::bind_unit(unit_kind kind, execution_unit_if& unit) {
  units_[static_cast<size_t>(kind)] = &unit;
}

bool command_processor::has_unit(unit_kind kind) const {
  return units_[static_cast<size_t>(kind)] != nullptr;
}

bool command_processor::busy() const {
  return !fifo_.empty() || decoding_ || !in_flight_.empty();
}

uint64_t command_processor::cycles(const sc_time& t) const {
  return static_cast<uint64_t>(t / params_.core_period);
}

void command_processor::status_changed() {
  if (!busy() && work_since_done_) {
    done_ = true;  // drained: nothing queued, decoding or in flight
    work_since_done_ = false;
  }
  status_event_.notify(SC_ZERO_TIME);
}

void command_processor::irq_method() {
  irq.write(!busy() || error_latched());
}

void command_processor::word_pushed() {
  done_ = false;
  work_since_done_ = true;
  status_changed();
}

void command_processor::clear_error() {
  if (!error_) return;
  PCCX_LOG(log_, info, "error " << isa::error_name(error_->code) << " cleared by firmware");
  error_.reset();
  error_cleared_event_.notify(SC_ZERO_TIME);
  status_changed();
}

bool command_processor::next_word(command_fifo::entry& out) {
  for (;;) {
    while (error_) wait(error_cleared_event_);
    if (fifo_.empty()) {
      const sc_time t0 = kernel_time();
      wait(fifo_.pushed_event());
      counters_.add(PCCX_PERF_CMD_EMPTY, cycles(kernel_time() - t0));
      continue;
    }
    // The CPU may have written the word ahead of simulated time.
    const sc_time now = kernel_time();
    if (fifo_.front().arrival > now) {
      // Not there yet as far as the NPU is concerned: still an empty CMD_IN.
      const sc_time early = fifo_.front().arrival - now;
      wait(early);
      counters_.add(PCCX_PERF_CMD_EMPTY, cycles(early));
      continue;
    }
    out = fifo_.pop();
    decoding_ = true;
    return true;
  }
}

void command_processor::issue_thread() {
  for (;;) {
    command_fifo::entry e;
    next_word(e);
    wait(params_.section.decode_cycles * params_.core_period);
    const sc_time issued = kernel_time();

    auto decoded = isa::decode(e.word, limits_);
    if (auto* err = std::get_if<isa::decode_error>(&decoded)) {
      decoding_ = false;
      latch(e, err->code, err->message);
      continue;
    }
    if (params_.inject_fault_at >= 0 && e.seq == static_cast<uint64_t>(params_.inject_fault_at)) {
      decoding_ = false;
      latch(e, PCCX_ERR_UNIT_FAULT, "injected (simulation.inject_npu_fault_at)");
      continue;
    }
    dispatched_instruction d;
    d.seq = e.seq;
    d.ins = std::get<isa::instruction>(decoded);
    std::string detail, upstream;
    if (uint32_t code = resolve(d, detail, upstream); code != PCCX_ERR_NONE) {
      decoding_ = false;
      latch(e, code, detail);
      continue;
    }
    if (lint_ && !upstream.empty())
      lint_->report(lint_code::shape_upstream, d.seq, d.ins.word, upstream);
    if (lint_ && lint_->enabled()) lint_decoded(d);
    wait(params_.section.issue_cycles * params_.core_period);

    if (auto* ms = std::get_if<isa::memset_instr>(&d.ins.body)) {
      wait(params_.section.constant_cache.write_cycles * params_.core_period);
      cache_.write(ms->cache, ms->slot, {ms->a, ms->b, ms->c});
      decoding_ = false;
      ++retired_;
      record(d, "cmd", e.arrival, issued, kernel_time(), PCCX_ERR_NONE, "");
      status_changed();
      continue;
    }

    const unit_kind kind = *unit_for(d.ins.op);
    if (kind == unit_kind::gemv && params_.section.sfu.gemv_chaining)
      d.produces = std::make_shared<result_stream>(d.seq, d.writes.at(0));
    // In-order issue: the head waits for its unit and for older overlapping work.
    const sc_time t0 = kernel_time();
    bool hazard_seen = false;
    for (;;) {
      const in_flight_record* producer = chain_producer(d);
      const bool hazard = conflicts(d, producer);
      const bool unit_busy = unit_busy_[static_cast<size_t>(kind)];
      if (!hazard && !unit_busy) {
        if (producer) {
          d.consumes = producer->d.produces;
          counters_.add(PCCX_PERF_SFU_CHAINED, 1);
          PCCX_LOG(log_, debug, "#" << d.seq << " chained to GEMV #" << producer->d.seq);
        }
        break;
      }
      hazard_seen |= hazard;
      wait(retired_event_);
    }
    const uint64_t stall = cycles(kernel_time() - t0);
    counters_.add(hazard_seen ? PCCX_PERF_HAZARD_STALL : PCCX_PERF_UNIT_STALL, stall);
    if (hazard_seen) counters_.add(kHazardCounter[static_cast<size_t>(kind)], stall);

    if (lint_ && lint_->enabled()) lint_dispatch(d, d.consumes != nullptr);
    const sc_time started = kernel_time();
    unit_busy_[static_cast<size_t>(kind)] = true;
    in_flight_.push_back({d, kind, e.arrival, issued, started});
    decoding_ = false;
    PCCX_LOG(log_, debug,
             "#" << d.seq << " -> " << unit_kind_name(kind) << ": "
                 << isa::disassemble(d.ins.word, limits_));
    units_[static_cast<size_t>(kind)]->start(d, *this);
    status_changed();

    if (waits_for_completion(d.ins)) {
      auto still_running = [&] {
        for (const auto& r : in_flight_)
          if (r.d.seq == d.seq) return true;
        return false;
      };
      while (still_running()) wait(retired_event_);
    }
  }
}

std::optional<command_processor::in_flight_view> command_processor::oldest_in_flight() const {
  if (in_flight_.empty()) return std::nullopt;
  const auto& r = in_flight_.front();
  return in_flight_view{r.d.seq, r.d.ins, r.kind, r.started};
}

uint64_t command_processor::counter(uint32_t index) const {
  const uint64_t now = cycles(kernel_time());
  auto busy = [&](size_t k) {
    uint64_t b = counters_.value(kBusyCounter[k]);
    for (const auto& r : in_flight_)
      if (static_cast<size_t>(r.kind) == k) b += cycles(kernel_time() - r.started);
    return b;
  };
  if (index == PCCX_PERF_CYCLES) return now;
  for (size_t k = 0; k < static_cast<size_t>(unit_kind::count); ++k) {
    if (index == kBusyCounter[k]) return busy(k);
    if (index == kIdleCounter[k]) {
      const uint64_t b = busy(k);
      return now > b ? now - b : 0;
    }
  }
  return counters_.value(index);
}

uint32_t command_processor::resolve(dispatched_instruction& d, std::string& detail,
                                    std::string& upstream) const {
  const uint32_t l2_words = limits_.l2_words;
  auto slot = [&](uint32_t bank, uint32_t index, const char* field,
                  std::array<uint16_t, 3>& out) -> bool {
    auto v = cache_.read(bank, index);
    if (!v) {
      detail = std::string(field) + " names " + cache_.bank_name(bank) + "[" +
               std::to_string(index) + "], which was never written by MEMSET";
      return false;
    }
    out = *v;
    return true;
  };
  auto range = [&](uint32_t first, uint64_t words, const char* what, auto& into) -> uint32_t {
    if (words == 0) {
      detail = std::string(what) + ": zero-length transfer";
      return PCCX_ERR_ZERO_LENGTH;
    }
    if (first + words > l2_words) {
      detail = std::string(what) + " words " + std::to_string(first) + ".." +
               std::to_string(first + words - 1) + " end beyond the last L2 word " +
               std::to_string(l2_words - 1);
      return PCCX_ERR_L2_RANGE;
    }
    into.push_back({first, static_cast<uint32_t>(words)});
    return PCCX_ERR_NONE;
  };
  auto product = [](const std::array<uint16_t, 3>& v) {
    return static_cast<uint64_t>(v[0]) * v[1] * v[2];
  };

  if (auto op = unit_for(d.ins.op); op && !has_unit(*op)) {
    detail = std::string("no ") + unit_kind_name(*op) + " unit in this platform to execute " +
             isa::opcode_name(d.ins.op);
    return PCCX_ERR_UNIT_UNAVAILABLE;
  }

  if (auto* mm = std::get_if<isa::matmul_instr>(&d.ins.body)) {
    // The platform's reading first; the upstream ones only where it fails
    // (the slot that stays unwritten is named below).
    const auto read = [this](uint8_t bank, uint8_t index) { return cache_.read(bank, index); };
    if (const auto e = resolve_extents(d.ins.op, *mm, read, params_.strict)) {
      d.shape = e->shape;
      d.size = e->size;
      upstream = e->upstream;
    } else {
      if (!slot(1, mm->shape_ptr, "shape_ptr", d.shape)) return PCCX_ERR_UNWRITTEN_SLOT;
      if (!slot(0, mm->size_ptr, "size_ptr", d.size)) return PCCX_ERR_UNWRITTEN_SLOT;
    }
    const uint64_t out_elems = static_cast<uint64_t>(d.shape[0]) * d.shape[1];
    if (uint32_t c =
            range(mm->src_addr, words_for_elements(product(d.size)), "activations", d.reads))
      return c;
    if (uint32_t c = range(mm->dest_reg, words_for_elements(out_elems), "result", d.writes))
      return c;
    if (mm->flags & UCA_FLAG_ACCM) d.reads.push_back(d.writes.back());
    if (d.shape[2] == 0) {
      detail = "weight_shape K = 0: zero-length reduction";
      return PCCX_ERR_ZERO_LENGTH;
    }
  } else if (auto* mc = std::get_if<isa::memcpy_instr>(&d.ins.body)) {
    if (!slot(0, mc->shape_ptr, "shape_ptr", d.size)) return PCCX_ERR_UNWRITTEN_SLOT;
    const uint64_t words = words_for_elements(product(d.size));
    const auto route = mc->route();
    if (route != isa::memcpy_route::host_to_l2)
      if (uint32_t c = range(mc->src, words, "MEMCPY source", d.reads)) return c;
    if (route == isa::memcpy_route::host_to_l2 || route == isa::memcpy_route::l2_to_l2)
      if (uint32_t c = range(mc->dest, words, "MEMCPY destination", d.writes)) return c;
    if (route == isa::memcpy_route::l2_to_l2 && d.reads[0].overlaps(d.writes[0])) {
      detail = "L2->L2 MEMCPY source and destination ranges overlap";
      return PCCX_ERR_INVALID_ROUTE;
    }
  } else if (auto* cv = std::get_if<isa::cvo_instr>(&d.ins.body)) {
    const isa::l2_range src = isa::cvo_source_range(*cv), dst = isa::cvo_dest_range(*cv);
    if (uint32_t c = range(src.first, src.words, "CVO source", d.reads)) return c;
    if (uint32_t c = range(dst.first, dst.words, "CVO destination", d.writes)) return c;
    // Accumulating and two-operand functions also read what they overwrite.
    if ((cv->flags & UCA_CVO_FLAG_ACCM) || cv->func == PCCX_CVO_MUL || cv->func == PCCX_CVO_ADD)
      d.reads.push_back(dst);
  }
  return PCCX_ERR_NONE;
}

void command_processor::lint_decoded(const dispatched_instruction& d) {
  auto warn = [&](lint_code code, const std::string& cause) {
    lint_->report(code, d.seq, d.ins.word, cause);
  };
  if (auto* mm = std::get_if<isa::matmul_instr>(&d.ins.body)) {
    const char* op = d.ins.op == isa::opcode::gemv ? "GEMV" : "GEMM";
    if (d.ins.op == isa::opcode::gemv) {
      const auto lanes = isa::gemv_lanes(mm->lanes, limits_.gemv_cores, true);
      if (lanes && lanes->mask)
        warn(lint_code::lanes_mask,
             "GEMV lanes " + std::to_string(mm->lanes & PCCX_LANES_COUNT_MASK) +
                 " is above the " + std::to_string(limits_.gemv_cores) +
                 " cores: read as a core mask (the upstream API documentation's reading), " +
                 std::to_string(lanes->cores) + " core" + (lanes->cores == 1 ? "" : "s") + " active");
    } else if (mm->lanes > 1) {
      warn(lint_code::lanes_ignored, "GEMM parallel_lane " + std::to_string(mm->lanes) +
                                         " is ignored: the single systolic array takes 0 or 1");
    }
    if (d.ins.op == isa::opcode::gemm && (mm->flags & UCA_FLAG_FINDEMAX))
      warn(lint_code::flags_ignored,
           std::string(op) + " flag FINDEMAX is ignored: only the GEMV engine finds e_max");
  } else if (auto* mc = std::get_if<isa::memcpy_instr>(&d.ins.body)) {
    const auto route = mc->route();
    if (route == isa::memcpy_route::l2_to_host && mc->dest != 0)
      warn(lint_code::route_bug,
           "L2->host MEMCPY ignores dest " + text::hex(mc->dest, 5) +
               ": the words at src go to the host; a move meant for the L2 encoded as "
               "from_device=0, to_device=1 is the upstream uCA_v1_api.c route bug "
               "(UCA_ROUTE_HOST_TO_L2 = 0x01 read as from=route[4], to=route[0])");
    if (route == isa::memcpy_route::host_to_l2 && mc->src != 0)
      warn(lint_code::route_bug,
           "host->L2 MEMCPY ignores src " + text::hex(mc->src, 5) +
               ": the words come from the host; a move meant for the host encoded as "
               "from_device=1, to_device=0 is the upstream uCA_v1_api.c route bug "
               "(UCA_ROUTE_L2_TO_HOST = 0x10 read as from=route[4], to=route[0])");
  } else if (auto* cv = std::get_if<isa::cvo_instr>(&d.ins.body)) {
    if (cv->length > limits_.cvo_max_length)
      warn(lint_code::cvo_length_passes,
           "CVO " + isa::cvo_func_name(cv->func) + " length " + std::to_string(cv->length) +
               " is above the SFU's " + std::to_string(limits_.cvo_max_length) +
               " elements (npu.sfu.max_length): it runs in " +
               std::to_string((cv->length + limits_.cvo_max_length - 1) / limits_.cvo_max_length) +
               " passes");
    if ((cv->flags & UCA_CVO_FLAG_RECIP_SCALE) && cv->func != UCA_CVO_SCALE)
      warn(lint_code::flags_ignored, "CVO " + isa::cvo_func_name(cv->func) +
                                         " ignores flag RECIP_SCALE: only SCALE uses it");
    if ((cv->flags & UCA_CVO_FLAG_ACCM) && (cv->func == PCCX_CVO_MUL || cv->func == PCCX_CVO_ADD))
      warn(lint_code::flags_ignored, "CVO " + isa::cvo_func_name(cv->func) +
                                         " ignores flag ACCM: it already reads the vector at dst");
  }
}

void command_processor::lint_dispatch(const dispatched_instruction& d, bool chained) {
  auto warn = [&](lint_code code, const std::string& cause) {
    lint_->report(code, d.seq, d.ins.word, cause);
  };
  // Older writers of these words have retired (the hazard wait): a word
  // not written by now was never written.
  for (size_t i = 0; i < d.reads.size(); ++i) {
    if (chained && i == 0) continue;  // comes from the GEMV's stream
    if (const auto word = lint_->first_unwritten(d.reads[i])) {
      const auto& r = d.reads[i];
      warn(lint_code::l2_uninitialised,
           isa::opcode_name(d.ins.op) + " reads L2 word " + text::hex(*word, 5) +
               ", never written since reset (words " + text::hex(r.first, 5) + ".." +
               text::hex(r.first + r.words - 1, 5) + ")");
      break;
    }
  }
  for (const auto& w : d.writes) lint_->mark_written(w);
  if (auto* mc = std::get_if<isa::memcpy_instr>(&d.ins.body)) {
    const auto route = mc->route();
    if (route == isa::memcpy_route::host_to_l2 && lint_->channel_idle(PCCX_DMA_ACP_FMAP))
      warn(lint_code::host_move_no_descriptor,
           "host->L2 MEMCPY issued with no ACP_FMAP descriptor queued and no bytes in its "
           "FIFO: it waits until a descriptor arrives");
    if ((route == isa::memcpy_route::l2_to_host || route == isa::memcpy_route::kv_append) &&
        lint_->channel_idle(PCCX_DMA_ACP_RESULT))
      warn(lint_code::result_no_descriptor,
           std::string(route == isa::memcpy_route::kv_append ? "KV append" : "L2->host") +
               " MEMCPY moves words into the ACP_RESULT FIFO with no descriptor waiting for "
               "them: they stay there until one is queued");
  }
}

const command_processor::in_flight_record* command_processor::chain_producer(
    const dispatched_instruction& d) const {
  if (!params_.section.sfu.gemv_chaining || d.ins.op != isa::opcode::cvo || d.reads.empty()) return nullptr;
  const auto& cv = std::get<isa::cvo_instr>(d.ins.body);
  for (const auto& r : in_flight_) {
    if (!r.d.produces || r.d.produces->closed() || !r.d.produces->covers(d.reads[0])) continue;
    // e_max from findemax is known only when the GEMV ends: a CVO that
    // subtracts it must wait for that.
    const auto& mm = std::get<isa::matmul_instr>(r.d.ins.body);
    if ((cv.flags & UCA_CVO_FLAG_SUB_EMAX) && (mm.flags & UCA_FLAG_FINDEMAX)) return nullptr;
    return &r;
  }
  return nullptr;
}

bool command_processor::conflicts(const dispatched_instruction& d,
                                  const in_flight_record* chained) const {
  for (const auto& r : in_flight_) {
    for (size_t wi = 0; wi < r.d.writes.size(); ++wi) {
      const auto& w = r.d.writes[wi];
      for (size_t ri = 0; ri < d.reads.size(); ++ri) {
        // The chained source comes from the producer's stream, not from L2.
        if (&r == chained && wi == 0 && ri == 0) continue;
        if (d.reads[ri].overlaps(w)) return true;  // RAW
      }
      for (const auto& x : d.writes)
        if (x.overlaps(w)) return true;  // WAW
    }
    for (const auto& rd : r.d.reads)
      for (const auto& x : d.writes)
        if (x.overlaps(rd)) return true;  // WAR
  }
  return false;
}

void command_processor::retire(uint64_t seq, uint32_t err, const std::string& detail) {
  for (auto it = in_flight_.begin(); it != in_flight_.end(); ++it) {
    if (it->d.seq != seq) continue;
    const sc_time now = kernel_time();
    const auto k = static_cast<size_t>(it->kind);
    counters_.add(kBusyCounter[k], cycles(now - it->started));
    if (err == PCCX_ERR_NONE) counters_.add(kInstructionCounter[k], 1);
    unit_busy_[static_cast<size_t>(it->kind)] = false;
    if (it->d.produces) it->d.produces->close();  // releases a chained CVO on a failure
    ++retired_;
    record(it->d, unit_kind_name(it->kind), it->queued, it->issued, it->started, err, detail);
    if (err != PCCX_ERR_NONE) latch({it->d.ins.word, seq, it->queued}, err, detail, true);
    in_flight_.erase(it);
    retired_event_.notify();
    status_changed();
    return;
  }
  throw std::logic_error(std::string(name()) + ": retire of unknown instruction #" +
                         std::to_string(seq));
}

void command_processor::latch(const command_fifo::entry& e, uint32_t code,
                              const std::string& detail, bool traced) {
  npu_error err{code, e.word, e.seq, detail};
  PCCX_LOG(log_, warning,
           "#" << e.seq << " " << hex_word(e.word) << ": " << isa::error_name(code) << ": "
               << detail << (error_ ? " (an earlier error is still latched)" : ""));
  // The first error stays latched until firmware clears it.
  if (!error_) error_ = err;
  if (instr_trace_ && !traced) {
    instr_trace_->write({{"seq", e.seq},
                         {"word", hex_word(e.word)},
                         {"disasm", isa::disassemble(e.word, limits_)},
                         {"queued_ns", trace::to_ns(e.arrival)},
                         {"fault_ns", trace::to_ns(kernel_time())},
                         {"status", isa::error_name(code)},
                         {"error", detail}});
  }
  status_changed();
  if (errors.connected()) errors.write(err);
}

void command_processor::record(const dispatched_instruction& d, const char* unit,
                               const sc_time& queued, const sc_time& issued, const sc_time& started,
                               uint32_t err, const std::string& detail) {
  if (retirements.connected())
    retirements.write({d.seq, d.ins.word, unit, queued, issued, started, kernel_time(), err});
  if (!instr_trace_) return;
  nlohmann::ordered_json rec = {
      {"seq", d.seq},
      {"word", hex_word(d.ins.word)},
      {"disasm", isa::disassemble(d.ins.word, limits_)},
      {"unit", unit},
      {"queued_ns", trace::to_ns(queued)},
      {"issue_ns", trace::to_ns(issued)},
      {"start_ns", trace::to_ns(started)},
      {"retire_ns", trace::to_ns(kernel_time())},
      {"status", err == PCCX_ERR_NONE ? std::string("ok") : isa::error_name(err)}};
  if (!detail.empty()) rec["error"] = detail;
  instr_trace_->write(rec);
}

}  // namespace pccx::npu
