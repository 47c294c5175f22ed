#include "models/npu/units/gemv_unit.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <variant>

#include "models/kv/kv_format.h"
#include "models/npu/units/bf16.h"
#include "models/npu/units/matmul_common.h"
#include "pccx_isa.h"
#include "uCA_v1_api.h"

namespace pccx::npu {

using matmul::ceil_div;
using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

namespace {
constexpr uint32_t kWord = mem::l2_memory::kWordBytes;
constexpr uint32_t kPerWord = bf16::kPerWord;
constexpr unsigned kPort = mem::l2_memory::kComputePort;
}  // namespace

gemv_unit::gemv_unit(sc_core::sc_module_name name, const gemv_unit_params& params,
                     mem::l2_memory& l2, std::vector<mem::stream_fifo*> weight_fifos,
                     perf_counters& counters)
    : threaded_unit(name),
      params_(params),
      l2_(l2),
      fifos_(std::move(weight_fifos)),
      counters_(counters) {
  const std::string n = this->name();
  if (params_.core_period <= SC_ZERO_TIME)
    throw std::invalid_argument(n + ": core_period must be positive");
  if (params_.cores == 0) throw std::invalid_argument(n + ": cores must be at least 1");
  if (params_.macs_per_core_per_cycle == 0)
    throw std::invalid_argument(n + ": macs_per_core_per_cycle must be at least 1");
  if (fifos_.empty()) throw std::invalid_argument(n + ": needs at least one weight FIFO");
  for (auto* f : fifos_)
    if (!f) throw std::invalid_argument(n + ": null weight FIFO");
  if (params_.dequant_elements_per_cycle == 0)
    throw std::invalid_argument(n + ": dequant_elements_per_cycle must be at least 1");
  if (params_.kv_key) key_codec_.emplace(*params_.kv_key);
  if (params_.kv_value) value_codec_.emplace(*params_.kv_value);
}

uint32_t gemv_unit::scales_per_row(uint32_t k) const {
  return params_.scale_group == 0 ? 1 : ceil_div(k, params_.scale_group);
}

uint64_t gemv_unit::record_bytes(uint32_t k, bool w_scale) const {
  const uint64_t raw = (w_scale ? 2ull * scales_per_row(k) : 0) + (k + 1ull) / 2;
  return (raw + 15) / 16 * 16;
}

threaded_unit::result gemv_unit::execute(const dispatched_instruction& d) {
  if (auto refused = matmul::check_instruction(d, isa::opcode::gemv, name()))
    return {refused->err, refused->detail};
  const auto* mm = std::get_if<isa::matmul_instr>(&d.ins.body);
  const uint32_t M = d.shape[0], N = d.shape[1], K = d.shape[2];
  const uint32_t lanes = mm->lanes & PCCX_LANES_COUNT_MASK;
  const bool head_parallel = mm->lanes & PCCX_LANES_HEAD_PARALLEL;
  const uint32_t active = lanes == 0 ? params_.cores : lanes;
  if (active > params_.cores)
    return {PCCX_ERR_INVALID_LANES, std::string(name()) + ": parallel_lane " +
                                        std::to_string(active) + " above " +
                                        std::to_string(params_.cores) + " cores"};
  const bool w_scale = mm->flags & UCA_FLAG_W_SCALE;
  const bool accm = mm->flags & UCA_FLAG_ACCM;
  const bool findemax = mm->flags & UCA_FLAG_FINDEMAX;
  // The weight stream: INT4 row records, or KV records (keys: one per
  // output n, values: one per reduction step k).
  const uint32_t wfmt = mm->flags & PCCX_MM_WFMT_MASK;
  const bool kv_keys = wfmt == PCCX_WFMT_KV_KEY_ROWS;
  const bool kv_values = wfmt == PCCX_WFMT_KV_VALUE_ACCUMULATE;
  const kv::kv_codec* codec = nullptr;
  if (kv_keys || kv_values) {
    const auto& c = kv_keys ? key_codec_ : value_codec_;
    const std::string what = std::string(name()) + ": GEMV KV " + (kv_keys ? "keys" : "values");
    if (!c) return {PCCX_ERR_UNIT_FAULT, what + ": no KV formats configured (npu.kv)"};
    if (w_scale)
      return {PCCX_ERR_UNIT_FAULT,
              what + ": w_scale applies to INT4 weight rows; KV records carry their own scales"};
    const uint32_t hd = c->format().head_dim, ext = kv_keys ? K : N;
    if (ext != hd)
      return {PCCX_ERR_UNIT_FAULT, what + ": " + (kv_keys ? "K" : "N") + " = " +
                                       std::to_string(ext) + " must equal npu.kv.head_dim " +
                                       std::to_string(hd)};
    codec = &*c;
  }
  const uint64_t rec = codec ? codec->format().record_bytes() : record_bytes(K, w_scale);
  for (auto* f : fifos_)
    if (f->capacity() < rec)
      return {PCCX_ERR_UNIT_FAULT, std::string(name()) + ": weight FIFO " + f->name() + " holds " +
                                       std::to_string(f->capacity()) + " bytes, a row record is " +
                                       std::to_string(rec)};
  const bool functional = matmul::computes_values(params_.functional, l2_, fifos_);

  const uint32_t F = static_cast<uint32_t>(fifos_.size());
  const uint32_t S = w_scale ? scales_per_row(K) : 1;
  const uint32_t G = (!w_scale || params_.scale_group == 0) ? K : params_.scale_group;
  const sc_time period = params_.core_period;
  const uint64_t k_cycles = ceil_div(K, params_.macs_per_core_per_cycle);
  // Clocks a core spends on one weight row: every activation row
  // (row-parallel) or its share of them (head-parallel).
  const uint64_t row_cycles = (head_parallel ? ceil_div(M, active) : uint64_t{M}) * k_cycles;
  const sc_time row_time = period * static_cast<double>(row_cycles);
  const sc_time pipe = period * static_cast<double>(params_.pipeline_latency_cycles);
  const uint32_t act_words = ceil_div(uint64_t{M} * K, kPerWord);
  const uint32_t out_words = ceil_div(uint64_t{M} * N, kPerWord);

  clock_.reset();
  const sc_time t0 = sc_core::sc_time_stamp();
  sc_time end = t0;
  result r;
  try {
    // --- L1 load: activations (and old results for accm) through port 1.
    std::vector<uint8_t> act_bytes(functional ? size_t{act_words} * kWord : 0);
    std::vector<uint8_t> out_bytes(functional ? size_t{out_words} * kWord : 0);
    sc_time ready = l2_.read(kPort, mm->src_addr, act_words,
                             functional ? act_bytes.data() : nullptr, clock_.local());
    if (accm)
      ready = l2_.read(kPort, mm->dest_reg, out_words, functional ? out_bytes.data() : nullptr,
                       clock_.local());
    if (!accm && functional) std::fill(out_bytes.begin(), out_bytes.end(), 0);
    // Bounds of the result before compute, so a range error costs no time.
    matmul::check_l2_range(l2_, "GEMV result", mm->dest_reg, out_words);

    // Each activation row quantised to INT8 (symmetric, per row).
    const matmul::int8_rows act =
        functional ? matmul::quantise_rows(act_bytes.data(), M, K) : matmul::int8_rows{};
    clock_.advance_to(ready);

    // Result words in the order they complete: word w is written (and
    // published on the direct SFU path) after the last weight row n that
    // feeds one of its elements. Value accumulation finishes every output
    // with the last record.
    const uint32_t records = kv_values ? K : N;
    // Which FIFO each record comes from, in the order the engine takes them.
    // INT4 rows: record n from FIFO n mod F. KV streams: the records are F
    // contiguous parts (part f = records floor(fR/F)..floor((f+1)R/F) - 1,
    // one DMA stream per FIFO, as the driver submits a ring segment list),
    // taken round-robin so every HP channel streams at once.
    std::vector<uint32_t>& order = scratch_.order;
    std::vector<uint32_t>& fifo_of = scratch_.fifo_of;
    std::vector<uint32_t>& step_of = scratch_.step_of;
    order.assign(records, 0);
    fifo_of.assign(records, 0);
    step_of.assign(records, 0);
    if (codec) {
      std::vector<uint32_t> part(F + 1);  // part f: records part[f] .. part[f + 1] - 1
      for (uint32_t f = 0; f <= F; ++f) part[f] = static_cast<uint32_t>(uint64_t{f} * records / F);
      uint32_t p = 0;
      for (uint32_t i = 0; p < records; ++i)
        for (uint32_t f = 0; f < F; ++f)
          if (part[f] + i < part[f + 1]) order[p] = part[f] + i, fifo_of[p] = f, ++p;
    } else {
      for (uint32_t n = 0, f = 0; n < records; ++n, f = f + 1 == F ? 0 : f + 1)
        order[n] = n, fifo_of[n] = f;
    }
    for (uint32_t p = 0; p < records; ++p) step_of[order[p]] = p;
    // words_after(p): the words completed by step p, in word order, as
    // after_word[after_begin[p] .. after_begin[p + 1]).
    std::vector<uint32_t>& last_step = scratch_.last_step;
    last_step.assign(out_words, records - 1);  // value accumulation: the end
    if (!kv_values)
      for (uint32_t w = 0; w < out_words; ++w) {
        uint32_t last = 0;
        const matmul::word_span span = matmul::elements_of_word(w, uint64_t{M} * N);
        auto n = static_cast<uint32_t>(span.first % N);  // output column of element i
        for (uint64_t i = span.first; i < span.last; ++i) {
          last = std::max(last, step_of[n]);
          if (++n == N) n = 0;
        }
        last_step[w] = last;
      }
    std::vector<uint32_t>& after_begin = scratch_.after_begin;
    std::vector<uint32_t>& after_word = scratch_.after_word;
    after_begin.assign(size_t{records} + 1, 0);
    after_word.assign(out_words, 0);
    for (uint32_t w = 0; w < out_words; ++w) ++after_begin[last_step[w] + 1];
    for (uint32_t p = 0; p < records; ++p) after_begin[p + 1] += after_begin[p];
    scratch_.fill.assign(after_begin.begin(), after_begin.end() - 1);
    for (uint32_t w = 0; w < out_words; ++w) after_word[scratch_.fill[last_step[w]]++] = w;

    // The dequantize stage (KV formats other than unscaled INT4, which the
    // LUT multipliers take as they are): one shared stage, head_dim / width
    // clocks per record, fetching a record just in time for its consumer.
    const kv::kv_format* kvf = codec ? &codec->format() : nullptr;
    const bool dequant = kvf && !(kvf->kind == kv::kv_kind::int4 && kvf->group == 0);
    const sc_time dq_time = dequant
                                ? period * static_cast<double>(ceil_div(
                                               kvf->head_dim, params_.dequant_elements_per_cycle))
                                : SC_ZERO_TIME;
    sc_time dq_free = SC_ZERO_TIME;
    // Value accumulation: every active core works on each record's M x N
    // products together.
    const sc_time value_time =
        period * static_cast<double>(
                     ceil_div(uint64_t{M} * N, uint64_t{active} * params_.macs_per_core_per_cycle));

    // --- Compute. Row-parallel: weight row n runs on core n mod cores over
    // all M activation rows. Head-parallel: weight row n is broadcast to all
    // cores, core c handling activation rows m = c, c + cores, ...
    std::vector<sc_time> core_free(head_parallel || kv_values ? 1 : active, ready);
    // When activation row m leaves the pipeline, from its weight row's start.
    std::vector<sc_time> row_out(M);
    for (uint32_t m = 0; m < M; ++m) {
      const uint64_t slot = head_parallel ? m / active : m;  // position in its core's queue
      row_out[m] = period * static_cast<double>((slot + 1) * k_cycles) + pipe;
    }
    std::vector<sc_time>& done = scratch_.done;  // output element leaves the pipeline
    done.assign(size_t{M} * N, SC_ZERO_TIME);
    std::vector<float> y(functional ? size_t{M} * N : 0);
    std::vector<uint8_t> rec_buf(functional ? rec : 0);
    std::vector<float> sw(S, 1.0f);
    std::vector<int16_t> wq(functional && !codec ? K : 0);
    // The quantised activations widened once, for the dot products.
    std::vector<int16_t> a16;
    if (functional && !codec) a16.assign(act.q.begin(), act.q.end());
    std::vector<float> vhat(functional && codec ? codec->format().head_dim : 0);
    sc_time stall, dq_stall, last_done = ready;
    auto write_word = [&](uint32_t w) {
      sc_time t = SC_ZERO_TIME;  // its last element is out of the pipeline
      const matmul::word_span span = matmul::elements_of_word(w, uint64_t{M} * N);
      for (uint64_t i = span.first; i < span.last; ++i) t = std::max(t, done[i]);
      uint8_t* wb = functional ? &out_bytes[size_t{w} * kWord] : nullptr;
      if (functional) matmul::form_result_word(wb, w, y, accm);
      const sc_time written = l2_.write(kPort, mm->dest_reg + w, 1, wb, t);
      if (d.produces) d.produces->publish(mm->dest_reg + w, t);
      return written;
    };
    uint32_t core = 0;
    for (uint32_t p = 0; p < records; ++p) {
      const uint32_t n = order[p];
      mem::stream_fifo& fifo = *fifos_[fifo_of[p]];
      sc_time& free_at = core_free[core];  // p mod active, or the one shared queue
      if (!(head_parallel || kv_values) && ++core == active) core = 0;
      uint8_t* buf = functional ? rec_buf.data() : nullptr;
      sc_time start;
      if (dequant) {
        const sc_time want =
            std::max(dq_free, free_at > dq_time ? free_at - dq_time : SC_ZERO_TIME);
        const std::optional<sc_time> there = fifo.ready_time(rec);  // bytes already pushed
        const sc_time taken = matmul::take_weights(clock_, fifo, rec, buf, want);
        dq_free = taken + dq_time;
        start = std::max(free_at, dq_free);
        // Split the core's wait: the bytes' fault as far as they came after
        // the stage had to start for the core (not before the instruction),
        // the rest the stage's (its latency, or busy with other records).
        const sc_time b = there ? *there : taken;
        const sc_time needed = free_at > t0 + dq_time ? free_at - dq_time : t0;
        const sc_time wait = start - free_at;
        const sc_time late = std::min(wait, b > needed ? b - needed : SC_ZERO_TIME);
        stall += late;
        dq_stall += wait - late;
      } else {
        start = matmul::take_weights(clock_, fifo, rec, buf, free_at);
        stall += start - free_at;
      }
      free_at = start + (kv_values ? value_time : row_time);
      if (kv_values) {
        last_done = std::max(last_done, free_at + pipe);
      } else {
        for (uint32_t m = 0; m < M; ++m) {
          done[size_t{m} * N + n] = start + row_out[m];
          last_done = std::max(last_done, done[size_t{m} * N + n]);
        }
      }
      ++stats_.rows;
      stats_.weight_bytes += rec;
      if (codec) ++stats_.kv_records;
      if (functional && codec) {
        codec->decode_rotated(buf, vhat.data());
        for (uint32_t m = 0; m < M; ++m) {
          if (kv_values) {
            // out[m][:] += a[m][n] * v_n (FP32, records in stream order).
            const float a = static_cast<float>(act.q[size_t{m} * K + n]);
            for (uint32_t j = 0; j < N; ++j) y[size_t{m} * N + j] += a * vhat[j];
          } else {
            const int8_t* a = &act.q[size_t{m} * K];
            float sum = 0.0f;
            for (uint32_t k = 0; k < K; ++k) sum += static_cast<float>(a[k]) * vhat[k];
            y[size_t{m} * N + n] = sum * act.scale[m];
          }
        }
      } else if (functional) {
        if (w_scale)
          for (uint32_t g = 0; g < S; ++g) sw[g] = bf16::to_float(bf16::load(buf, g));
        // The row unpacked once for every activation row; each scale group
        // is an exact integer dot product, scaled in group order.
        matmul::unpack_int4(buf + (w_scale ? 2 * S : 0), K, wq.data());
        for (uint32_t m = 0; m < M; ++m) {
          const int16_t* a = &a16[size_t{m} * K];
          float sum = 0.0f;
          for (uint32_t g = 0; g < S; ++g) {
            const uint32_t k0 = g * G;
            const int32_t acc = matmul::dot_int16(a + k0, &wq[k0], std::min(G, K - k0));
            sum += (static_cast<float>(acc) * sw[g]) * act.scale[m];
          }
          y[size_t{m} * N + n] = sum;
        }
      }
      clock_.advance_to(start);
      if (kv_values && p + 1 == records) {
        std::fill(done.begin(), done.end(), last_done);
        if (functional)
          for (uint32_t m = 0; m < M; ++m)
            for (uint32_t j = 0; j < N; ++j) y[size_t{m} * N + j] *= act.scale[m];
      }
      for (uint32_t i = after_begin[p]; i < after_begin[p + 1]; ++i)
        end = std::max(end, write_word(after_word[i]));
    }
    if (functional && findemax && on_emax) {
      // One maximum over every row: the query heads of a group share one
      // softmax shift, so none of them can overflow EXP.
      float mx = -INFINITY;
      for (size_t i = 0; i < size_t{M} * N; ++i)
        mx = std::max(mx, bf16::to_float(bf16::load(out_bytes.data(), i)));
      on_emax(mx);
    }

    const uint64_t macs = uint64_t{M} * N * K;
    const uint64_t core_stall = static_cast<uint64_t>(std::llround(stall / period));
    // Waiting on L2: the activation load before compute, and result writes
    // still queued on the port after the last output left the pipeline.
    const sc_time l2_wait = (ready - t0) + (end > last_done ? end - last_done : SC_ZERO_TIME);
    const uint64_t l2_stall = static_cast<uint64_t>(std::llround(l2_wait / period));
    // Row-parallel cores wait independently: the engine's share is the mean.
    const uint32_t waiters = head_parallel || kv_values ? 1 : active;
    const uint64_t engine_stall = (core_stall + waiters / 2) / waiters;
    const uint64_t dequant_stall =
        (static_cast<uint64_t>(std::llround(dq_stall / period)) + waiters / 2) / waiters;
    ++stats_.instructions;
    stats_.macs += macs;
    stats_.core_stall_cycles += core_stall;
    stats_.stall_cycles += engine_stall;
    counters_.add(PCCX_PERF_MACS, macs);
    counters_.add(PCCX_PERF_GEMV_MACS, macs);
    counters_.add(PCCX_PERF_GEMV_WEIGHT_STALL, engine_stall);
    counters_.add(PCCX_PERF_GEMV_L2_STALL, l2_stall);
    counters_.add(PCCX_PERF_GEMV_DEQUANT_STALL, dequant_stall);
    stats_.dequant_stall_cycles += dequant_stall;
    stats_.l2_stall_cycles += l2_stall;
  } catch (const mem::l2_range_error& e) {
    r = {PCCX_ERR_L2_RANGE, std::string(name()) + ": GEMV: " + e.what()};
  }
  if (d.produces) d.produces->close();
  clock_.sync_to(std::max(end, clock_.local()));
  return r;
}

}  // namespace pccx::npu
