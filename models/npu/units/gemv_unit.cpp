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
      counters_(counters),
      key_codec_(params.kv.key_format()),
      value_codec_(params.kv.value_format()) {
  const std::string n = this->name();
  matmul::check_unit_params(n, params_.core_period, fifos_);
  if (params_.cores == 0) throw std::invalid_argument(n + ": cores must be at least 1");
  if (params_.section.macs_per_core_per_cycle == 0)
    throw std::invalid_argument(n + ": macs_per_core_per_cycle must be at least 1");
  if (fifos_.empty()) throw std::invalid_argument(n + ": needs at least one weight FIFO");
  if (params_.kv.dequant_elements_per_cycle == 0)
    throw std::invalid_argument(n + ": dequant_elements_per_cycle must be at least 1");
  clock_.set_quantum(params_.quantum);
}

uint32_t gemv_unit::scales_per_row(uint32_t k) const {
  return params_.section.scale_group == 0 ? 1 : ceil_div(k, params_.section.scale_group);
}

uint64_t gemv_record_bytes(const config::gemv_config& section, uint32_t k, bool w_scale) {
  const uint64_t scales = section.scale_group == 0 ? 1 : ceil_div(k, section.scale_group);
  const uint64_t raw = (w_scale ? 2ull * scales : 0) + (k + 1ull) / 2;
  return (raw + 15) / 16 * 16;
}

uint64_t gemv_unit::record_bytes(uint32_t k, bool w_scale) const {
  return gemv_record_bytes(params_.section, k, w_scale);
}

// One instruction as the stages see it: the decoded fields, what follows
// from them before any time is taken, and what each stage hands the next.
// The index tables of the record stream are kept per shape (tables_for).
struct gemv_unit::job {
  const dispatched_instruction* d = nullptr;
  const isa::matmul_instr* mm = nullptr;
  uint32_t M = 0, N = 0, K = 0;
  uint32_t active = 0;  // cores on the instruction
  bool head_parallel = false, w_scale = false, accm = false, findemax = false;
  bool kv_values = false;               // value accumulation: one record per reduction step k
  const kv::kv_codec* codec = nullptr;  // KV records; null for INT4 weight rows
  uint64_t rec = 0;                     // bytes of one record
  bool functional = false;
  uint32_t F = 0, S = 0, G = 0;  // FIFOs, scales per row, K elements per scale
  uint32_t act_words = 0, out_words = 0, records = 0;
  bool in_order = false;  // record p is output row p, from FIFO p mod F (INT4 rows)
  const stream_tables* tables = nullptr;  // record order and result words
  uint64_t k_cycles = 0;
  sc_time period, row_time, pipe;
  bool dequant = false;
  sc_time dq_time, dq_free, value_time;
  sc_time t0, ready, end, last_done, stall, dq_stall;
  std::vector<uint8_t> act_bytes, out_bytes, rec_buf;
  matmul::int8_rows act;
  std::vector<sc_time> core_free, row_out;
  std::vector<float> y, sw, vhat;
  std::vector<int16_t> wq, a16;
};

threaded_unit::result gemv_unit::execute(const dispatched_instruction& d) {
  job jb;
  if (auto refused = resolve(d, jb)) return std::move(*refused);
  const auto failed = matmul::run_stages(clock_, name(), "GEMV", jb.t0, jb.end, [&] {
    load_activations(jb);
    jb.tables = &tables_for(jb);
    prepare_stream(jb);
    stream_records(jb);
    if (jb.functional && jb.findemax && emax.connected()) report_emax(jb);
    account(jb);
  });
  if (d.produces) d.produces->close();
  clock_.sync_to(std::max(jb.end, clock_.local()));
  if (failed) return {failed->err, failed->detail};
  return {};
}

// The checks that refuse an instruction before it takes any time, and the
// sizes and times that follow from its fields.
std::optional<threaded_unit::result> gemv_unit::resolve(const dispatched_instruction& d,
                                                        job& jb) const {
  if (auto refused = matmul::check_instruction(d, isa::opcode::gemv, name()))
    return result{refused->err, refused->detail};
  const auto* mm = std::get_if<isa::matmul_instr>(&d.ins.body);
  jb.d = &d;
  jb.mm = mm;
  const uint32_t M = jb.M = d.shape[0], N = jb.N = d.shape[1], K = jb.K = d.shape[2];
  jb.head_parallel = mm->lanes & PCCX_LANES_HEAD_PARALLEL;
  // The decoder has refused what strict mode refuses: a mask here is accepted.
  const auto lanes = isa::gemv_lanes(mm->lanes, params_.cores, true);
  jb.active = lanes ? lanes->cores : 0;
  if (!lanes)
    return result{PCCX_ERR_INVALID_LANES, std::string(name()) + ": parallel_lane " +
                                              std::to_string(mm->lanes & PCCX_LANES_COUNT_MASK) +
                                              " above " +
                                              std::to_string(params_.cores) + " cores"};
  jb.w_scale = mm->flags & UCA_FLAG_W_SCALE;
  jb.accm = mm->flags & UCA_FLAG_ACCM;
  jb.findemax = mm->flags & UCA_FLAG_FINDEMAX;
  // The weight stream: INT4 row records, or KV records (keys: one per
  // output n, values: one per reduction step k).
  const uint32_t wfmt = mm->flags & PCCX_MM_WFMT_MASK;
  const bool kv_keys = wfmt == PCCX_WFMT_KV_KEY_ROWS;
  jb.kv_values = wfmt == PCCX_WFMT_KV_VALUE_ACCUMULATE;
  if (kv_keys || jb.kv_values)
    if (auto refused = resolve_kv(jb, kv_keys)) return refused;
  jb.records = jb.kv_values ? K : N;
  jb.in_order = !jb.codec;
  jb.rec = jb.codec ? jb.codec->format().record_bytes() : record_bytes(K, jb.w_scale);
  for (auto* f : fifos_)
    if (f->capacity() < jb.rec)
      return result{PCCX_ERR_UNIT_FAULT, std::string(name()) + ": weight FIFO " + f->name() +
                                             " holds " + std::to_string(f->capacity()) +
                                             " bytes, a row record is " + std::to_string(jb.rec)};
  jb.functional = matmul::computes_values(l2_, fifos_);

  jb.F = static_cast<uint32_t>(fifos_.size());
  jb.S = jb.w_scale ? scales_per_row(K) : 1;
  jb.G = (!jb.w_scale || params_.section.scale_group == 0) ? K : params_.section.scale_group;
  jb.period = params_.core_period;
  jb.k_cycles = ceil_div(K, params_.section.macs_per_core_per_cycle);
  // Clocks a core spends on one weight row: every activation row
  // (row-parallel) or its share of them (head-parallel).
  const uint64_t row_cycles =
      (jb.head_parallel ? ceil_div(M, jb.active) : uint64_t{M}) * jb.k_cycles;
  jb.row_time = jb.period * static_cast<double>(row_cycles);
  jb.pipe = jb.period * static_cast<double>(params_.section.pipeline_latency_cycles);
  jb.act_words = ceil_div(uint64_t{M} * K, kPerWord);
  jb.out_words = ceil_div(uint64_t{M} * N, kPerWord);
  return std::nullopt;
}

// A KV weight stream needs no w_scale (the records
// carry their own scales) and head_dim as the extent the records span.
std::optional<threaded_unit::result> gemv_unit::resolve_kv(job& jb, bool keys) const {
  const auto& c = keys ? key_codec_ : value_codec_;
  const std::string what = std::string(name()) + ": GEMV KV " + (keys ? "keys" : "values");
  if (jb.w_scale)
    return result{
        PCCX_ERR_UNIT_FAULT,
        what + ": w_scale applies to INT4 weight rows; KV records carry their own scales"};
  const uint32_t hd = c.format().head_dim, ext = keys ? jb.K : jb.N;
  if (ext != hd)
    return result{PCCX_ERR_UNIT_FAULT, what + ": " + (keys ? "K" : "N") + " = " +
                                           std::to_string(ext) + " must equal npu.kv.head_dim " +
                                           std::to_string(hd)};
  jb.codec = &c;
  return std::nullopt;
}

// The L1 load: activations (and old results for accm) through port 1, each
// activation row quantised to INT8 (symmetric, per row). Compute starts at
// jb.ready.
void gemv_unit::load_activations(job& jb) {
  const bool functional = jb.functional;
  jb.act_bytes.resize(functional ? size_t{jb.act_words} * kWord : 0);
  jb.out_bytes.resize(functional ? size_t{jb.out_words} * kWord : 0);
  jb.ready = l2_.read(kPort, jb.mm->src_addr, jb.act_words,
                      functional ? jb.act_bytes.data() : nullptr, clock_.local());
  if (jb.accm)
    jb.ready = l2_.read(kPort, jb.mm->dest_reg, jb.out_words,
                        functional ? jb.out_bytes.data() : nullptr, clock_.local());
  if (!jb.accm && functional) std::fill(jb.out_bytes.begin(), jb.out_bytes.end(), 0);
  // Bounds of the result before compute, so a range error costs no time.
  matmul::check_l2_range(l2_, "GEMV result", jb.mm->dest_reg, jb.out_words);
  if (functional) jb.act = matmul::quantise_rows(jb.act_bytes.data(), jb.M, jb.K);
  clock_.advance_to(jb.ready);
}

// The tables of the instruction's shape: kept ones, or built in place of
// the least recently used.
const gemv_unit::stream_tables& gemv_unit::tables_for(const job& jb) {
  const stream_tables::shape key{jb.in_order, jb.kv_values, jb.M, jb.N, jb.records};
  std::vector<stream_tables>& kept = scratch_.kept;
  ++scratch_.uses;
  for (stream_tables& t : kept)
    if (t.key == key) {
      t.last_use = scratch_.uses;
      return t;
    }
  if (kept.size() < kKeptTables) {
    kept.emplace_back();
  } else {
    auto oldest = std::min_element(
        kept.begin(), kept.end(),
        [](const stream_tables& a, const stream_tables& b) { return a.last_use < b.last_use; });
    std::swap(*oldest, kept.back());
  }
  stream_tables& t = kept.back();
  t.key = key;
  t.last_use = scratch_.uses;
  build_tables(jb, t);
  return t;
}

void gemv_unit::build_tables(const job& jb, stream_tables& t) {
  order_records(jb, t);
  order_result_words(jb, t);
}

// Which FIFO each record comes from, in the order the engine takes them.
// INT4 rows: record n from FIFO n mod F. KV streams: the records are F
// contiguous parts (part f = records floor(fR/F)..floor((f+1)R/F) - 1,
// one DMA stream per FIFO, as the driver submits a ring segment list),
// taken round-robin so every HP channel streams at once.
void gemv_unit::order_records(const job& jb, stream_tables& t) {
  const uint32_t records = jb.records;
  const uint32_t F = jb.F;
  // INT4 rows need no tables: the order is the identity.
  if (jb.in_order) return;
  std::vector<uint32_t>& order = t.order;
  std::vector<uint32_t>& fifo_of = t.fifo_of;
  std::vector<uint32_t>& step_of = scratch_.step_of;
  order.assign(records, 0);
  fifo_of.assign(records, 0);
  step_of.assign(records, 0);
  std::vector<uint32_t> part(F + 1);  // part f: records part[f] .. part[f + 1] - 1
  for (uint32_t f = 0; f <= F; ++f) part[f] = static_cast<uint32_t>(uint64_t{f} * records / F);
  uint32_t p = 0;
  for (uint32_t i = 0; p < records; ++i)
    for (uint32_t f = 0; f < F; ++f)
      if (part[f] + i < part[f + 1]) order[p] = part[f] + i, fifo_of[p] = f, ++p;
  for (uint32_t q = 0; q < records; ++q) step_of[order[q]] = q;
}

// Result words in the order they complete: word w is written (and published
// on the direct SFU path) after the last weight row n that feeds one of its
// elements; value accumulation finishes every output with the last record.
// The words completed by step p, in word order, are
// after_word[after_begin[p] .. after_begin[p + 1]).
void gemv_unit::order_result_words(const job& jb, stream_tables& t) {
  const uint32_t records = jb.records, out_words = jb.out_words, N = jb.N;
  const std::vector<uint32_t>& step_of = scratch_.step_of;
  std::vector<uint32_t>& last_step = scratch_.last_step;
  last_step.assign(out_words, records - 1);  // value accumulation: the end
  if (jb.in_order)  // step = output column
    for (uint32_t w = 0; w < out_words; ++w)
      last_step[w] = matmul::last_column_of_word(w, uint64_t{jb.M} * N, N);
  else if (!jb.kv_values)
    for (uint32_t w = 0; w < out_words; ++w) {
      uint32_t last = 0;
      const matmul::word_span span = matmul::elements_of_word(w, uint64_t{jb.M} * N);
      auto n = static_cast<uint32_t>(span.first % N);  // output column of element i
      for (uint64_t i = span.first; i < span.last; ++i) {
        last = std::max(last, step_of[n]);
        if (++n == N) n = 0;
      }
      last_step[w] = last;
    }
  matmul::group_words_by_step(last_step, records, t.after_begin, t.after_word, scratch_.fill);
}

// The stream's timing constants, the cores' queues and the value buffers.
void gemv_unit::prepare_stream(job& jb) {
  const sc_time period = jb.period;
  const bool functional = jb.functional;
  const uint32_t M = jb.M, N = jb.N, K = jb.K;
  // The dequantize stage (KV formats other than unscaled INT4, which the
  // LUT multipliers take as they are): one shared stage, head_dim / width
  // clocks per record, fetching a record just in time for its consumer.
  const kv::kv_format* kvf = jb.codec ? &jb.codec->format() : nullptr;
  jb.dequant = kvf && !(kvf->kind == kv::kv_kind::int4 && kvf->group == 0);
  jb.dq_time = jb.dequant ? period * static_cast<double>(ceil_div(
                                         kvf->head_dim, params_.kv.dequant_elements_per_cycle))
                          : SC_ZERO_TIME;
  // Value accumulation: every active core works on each record's M x N
  // products together.
  jb.value_time =
      period * static_cast<double>(ceil_div(
                   uint64_t{M} * N, uint64_t{jb.active} * params_.section.macs_per_core_per_cycle));
  // One queue per core (row-parallel), or one for all of them.
  jb.core_free.assign(jb.head_parallel || jb.kv_values ? 1 : jb.active, jb.ready);
  // When activation row m leaves the pipeline, from its weight row's start.
  jb.row_out.resize(M);
  for (uint32_t m = 0; m < M; ++m) {
    const uint64_t slot = jb.head_parallel ? m / jb.active : m;  // position in its core's queue
    jb.row_out[m] = period * static_cast<double>((slot + 1) * jb.k_cycles) + jb.pipe;
  }
  // When each result word's last element leaves the pipeline: kept per word
  // (an eighth of the elements), the only use of the elements' times.
  scratch_.word_done.assign(jb.out_words, SC_ZERO_TIME);
  jb.y.resize(functional ? size_t{M} * N : 0);
  jb.rec_buf.resize(functional ? jb.rec : 0);
  jb.sw.assign(jb.S, 1.0f);
  jb.wq.resize(functional && !jb.codec ? K : 0);
  // The quantised activations widened once, for the dot products.
  if (functional && !jb.codec) jb.a16.assign(jb.act.q.begin(), jb.act.q.end());
  jb.vhat.resize(functional && jb.codec ? jb.codec->format().head_dim : 0);
  jb.last_done = jb.ready;
}

// When the core free at `free_at` starts on the next record of `fifo`; its
// wait counts as a weight stall or, behind the dequantize stage, is split
// between the bytes and the stage.
template <bool Dequant>
sc_time gemv_unit::take_record(job& jb, mem::stream_fifo& fifo, const sc_time& free_at,
                               uint8_t* buf) {
  if (!Dequant) {
    const sc_time start = matmul::take_weights(clock_, fifo, jb.rec, buf, free_at);
    jb.stall += start - free_at;
    return start;
  }
  const sc_time& dq_time = jb.dq_time;
  const sc_time want = std::max(jb.dq_free, free_at > dq_time ? free_at - dq_time : SC_ZERO_TIME);
  // The record's own ready time when its bytes are already pushed.
  const std::optional<sc_time> there = fifo.try_pop_ready(jb.rec, buf, want);
  const sc_time taken =
      there ? std::max(*there, want) : matmul::wait_for_weights(clock_, fifo, jb.rec, buf, want);
  jb.dq_free = taken + dq_time;
  if (jb.dq_free <= free_at) return free_at;  // the core waits for nothing
  const sc_time& start = jb.dq_free;
  // Split the core's wait: the bytes' fault as far as they came after
  // the stage had to start for the core (not before the instruction),
  // the rest the stage's (its latency, or busy with other records).
  const sc_time b = there ? *there : taken;
  const sc_time needed = free_at > jb.t0 + dq_time ? free_at - dq_time : jb.t0;
  const sc_time wait = start - free_at;
  const sc_time late = std::min(wait, b > needed ? b - needed : SC_ZERO_TIME);
  jb.stall += late;
  jb.dq_stall += wait - late;
  return start;
}

// Compute. Row-parallel: weight row n runs on core n mod cores over all M
// activation rows. Head-parallel: weight row n is broadcast to all cores,
// core c handling activation rows m = c, c + cores, ... Each result word is
// written as soon as the record that completes it is through.
//
// The loop runs millions of times per decoded token: it is compiled once
// per kind of stream (value accumulation, INT4 rows in order, KV keys) and
// dequantize stage, so the per-record tests and the fields it reads stay
// out of it.
void gemv_unit::stream_records(job& jb) {
  if (jb.kv_values)
    jb.dequant ? stream_records_as<true, false, true>(jb)
               : stream_records_as<true, false, false>(jb);
  else if (jb.in_order)  // INT4 weight rows: no dequantize stage
    stream_records_as<false, true, false>(jb);
  else
    jb.dequant ? stream_records_as<false, false, true>(jb)
               : stream_records_as<false, false, false>(jb);
}

template <bool KvValues, bool InOrder, bool Dequant>
void gemv_unit::stream_records_as(job& jb) {
  const uint32_t M = jb.M, N = jb.N, F = jb.F, records = jb.records;
  const bool one_queue = jb.head_parallel || KvValues;
  const uint32_t queues = one_queue ? 1 : jb.active;
  const bool functional = jb.functional;
  sc_time* const word_done = scratch_.word_done.data();
  sc_time* const core_free = jb.core_free.data();
  const sc_time* const row_out = jb.row_out.data();
  mem::stream_fifo* const* const fifos = fifos_.data();
  const stream_tables& tables = *jb.tables;
  const uint32_t* const order = tables.order.data();
  const uint32_t* const fifo_of = tables.fifo_of.data();
  const uint32_t* const after_begin = tables.after_begin.data();
  const uint32_t* const after_word = tables.after_word.data();
  const sc_time busy = KvValues ? jb.value_time : jb.row_time;  // a core per record
  uint8_t* const buf = functional ? jb.rec_buf.data() : nullptr;
  uint32_t core = 0, next_fifo = 0;  // in order: p mod active, p mod F
  // Records taken, counted into the statistics once (also if the loop ends
  // early).
  struct counted {
    stats& st;
    const job& jb;
    uint64_t records = 0;
    ~counted() {
      st.rows += records;
      st.weight_bytes += records * jb.rec;
      if (jb.codec) st.kv_records += records;
    }
  } taken{stats_, jb};
  for (uint32_t p = 0; p < records; ++p) {
    const uint32_t n = InOrder ? p : order[p];
    mem::stream_fifo& fifo = *fifos[InOrder ? next_fifo : fifo_of[p]];
    if (InOrder && ++next_fifo == F) next_fifo = 0;
    sc_time& free_at = core_free[core];  // p mod active, or the one shared queue
    if (++core == queues) core = 0;
    const sc_time start = take_record<Dequant>(jb, fifo, free_at, buf);
    free_at = start + busy;
    if (KvValues) {
      jb.last_done = std::max(jb.last_done, free_at + jb.pipe);
    } else {
      sc_time last = jb.last_done;
      for (uint32_t m = 0; m < M; ++m) {
        const sc_time out = start + row_out[m];
        sc_time& word = word_done[(size_t{m} * N + n) / kPerWord];
        if (out > word) word = out;
        last = std::max(last, out);
      }
      jb.last_done = last;
    }
    ++taken.records;
    if (functional) {
      if (jb.codec)
        compute_kv_record(jb, n, buf);
      else
        compute_int4_record(jb, n, buf);
    }
    clock_.advance_to(start);
    if (KvValues && p + 1 == records) finish_values(jb);
    for (uint32_t i = after_begin[p]; i < after_begin[p + 1]; ++i)
      jb.end = std::max(jb.end, write_word(jb, after_word[i]));
  }
}

// A KV record, decoded in the rotated basis: a key is one dot product per
// activation row, a value record adds out[m][:] += a[m][n] * v_n (FP32,
// records in stream order; the row scales come at the end).
void gemv_unit::compute_kv_record(job& jb, uint32_t n, const uint8_t* buf) {
  const uint32_t M = jb.M, N = jb.N, K = jb.K;
  const bool values = jb.kv_values;
  const int8_t* q = jb.act.q.data();
  float* y = jb.y.data();
  float* vhat = jb.vhat.data();
  jb.codec->decode_rotated(buf, vhat);
  for (uint32_t m = 0; m < M; ++m) {
    if (values) {
      const float a = static_cast<float>(q[size_t{m} * K + n]);
      for (uint32_t j = 0; j < N; ++j) y[size_t{m} * N + j] += a * vhat[j];
    } else {
      const int8_t* a = &q[size_t{m} * K];
      float sum = 0.0f;
      for (uint32_t k = 0; k < K; ++k) sum += static_cast<float>(a[k]) * vhat[k];
      y[size_t{m} * N + n] = sum * jb.act.scale[m];
    }
  }
}

// An INT4 weight row, unpacked once for every activation row; each scale
// group is an exact integer dot product, scaled in group order.
void gemv_unit::compute_int4_record(job& jb, uint32_t n, const uint8_t* buf) {
  const uint32_t M = jb.M, N = jb.N, K = jb.K, S = jb.S, G = jb.G;
  const float* scale = jb.act.scale.data();
  float* y = jb.y.data();
  float* sw = jb.sw.data();
  int16_t* wq = jb.wq.data();
  if (jb.w_scale)
    for (uint32_t g = 0; g < S; ++g) sw[g] = bf16::to_float(bf16::load(buf, g));
  matmul::unpack_int4(buf + (jb.w_scale ? 2 * S : 0), K, wq);
  for (uint32_t m = 0; m < M; ++m) {
    const int16_t* a = &jb.a16[size_t{m} * K];
    float sum = 0.0f;
    for (uint32_t g = 0; g < S; ++g) {
      const uint32_t k0 = g * G;
      const int32_t acc = matmul::dot_int16(a + k0, wq + k0, std::min(G, K - k0));
      sum += (static_cast<float>(acc) * sw[g]) * scale[m];
    }
    y[size_t{m} * N + n] = sum;
  }
}

// Value accumulation is done with the last record: every output leaves the
// pipeline then, and takes its activation row's scale.
void gemv_unit::finish_values(job& jb) {
  std::fill(scratch_.word_done.begin(), scratch_.word_done.end(), jb.last_done);
  if (jb.functional)
    for (uint32_t m = 0; m < jb.M; ++m)
      for (uint32_t j = 0; j < jb.N; ++j) jb.y[size_t{m} * jb.N + j] *= jb.act.scale[m];
}

// Result word w through port 1 (and onto the direct SFU path) once its last
// element is out of the pipeline; returns when the write is done.
sc_time gemv_unit::write_word(job& jb, uint32_t w) {
  const sc_time t = scratch_.word_done[w];
  uint8_t* wb = jb.functional ? &jb.out_bytes[size_t{w} * kWord] : nullptr;
  if (jb.functional) matmul::form_result_word(wb, w, jb.y, jb.accm);
  const sc_time written = l2_.write(kPort, jb.mm->dest_reg + w, 1, wb, t);
  if (jb.d->produces) jb.d->produces->publish(jb.mm->dest_reg + w, t);
  return written;
}

// findemax: one maximum over every row, as the query heads of a group share
// one softmax shift, so none of them can overflow EXP.
void gemv_unit::report_emax(const job& jb) {
  float mx = -INFINITY;
  for (size_t i = 0; i < size_t{jb.M} * jb.N; ++i)
    mx = std::max(mx, bf16::to_float(bf16::load(jb.out_bytes.data(), i)));
  emax.write(mx);
}

void gemv_unit::account(const job& jb) {
  const sc_time period = jb.period;
  const uint64_t macs = uint64_t{jb.M} * jb.N * jb.K;
  const uint64_t core_stall = static_cast<uint64_t>(std::llround(jb.stall / period));
  // Waiting on L2: the activation load before compute, and result writes
  // still queued on the port after the last output left the pipeline.
  const sc_time l2_wait =
      (jb.ready - jb.t0) + (jb.end > jb.last_done ? jb.end - jb.last_done : SC_ZERO_TIME);
  const uint64_t l2_stall = static_cast<uint64_t>(std::llround(l2_wait / period));
  // Row-parallel cores wait independently: the engine's share is the mean.
  const uint32_t waiters = jb.head_parallel || jb.kv_values ? 1 : jb.active;
  const uint64_t engine_stall = (core_stall + waiters / 2) / waiters;
  const uint64_t dequant_stall =
      (static_cast<uint64_t>(std::llround(jb.dq_stall / period)) + waiters / 2) / waiters;
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
}

}  // namespace pccx::npu
