#include "models/npu/units/gemm_unit.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <variant>

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
constexpr unsigned kFifos = kGemmFifos;  // HP0, HP1
constexpr uint64_t kBeat = kGemmBeat;
constexpr uint64_t kScaleLead = kGemmScaleLead;

// Consecutive L2 words, relative to the first activation word.
struct word_run {
  uint64_t first;
  uint64_t words;
};

// The words holding K columns [k0, k1) of all M rows of an M x K row-major
// BF16 block, in increasing order. A word holding elements of two rows of
// the slice is listed once; a word also holding elements of another slice
// is listed again for that slice (the buffer keeps INT8 elements, not words).
// Into `runs` (cleared first), which the caller reuses from slice to slice.
void slice_runs(uint32_t m_rows, uint32_t k, uint32_t k0, uint32_t k1,
                std::vector<word_run>& runs) {
  runs.clear();
  uint64_t next = 0;  // first word after the last one listed
  for (uint32_t m = 0; m < m_rows; ++m) {
    const uint64_t row = uint64_t{m} * k;
    uint64_t wa = (row + k0) / kPerWord;
    const uint64_t wb = (row + k1 - 1) / kPerWord;
    if (!runs.empty()) wa = std::max(wa, next);
    if (wa > wb) continue;
    if (!runs.empty() && wa == next)
      runs.back().words += wb - wa + 1;
    else
      runs.push_back({wa, wb - wa + 1});
    next = wb + 1;
  }
}
}  // namespace

gemm_unit::gemm_unit(sc_core::sc_module_name name, const gemm_unit_params& params,
                     mem::l2_memory& l2, std::vector<mem::stream_fifo*> weight_fifos,
                     perf_counters& counters)
    : threaded_unit(name),
      params_(params),
      l2_(l2),
      fifos_(std::move(weight_fifos)),
      counters_(counters) {
  const std::string n = this->name();
  matmul::check_unit_params(n, params_.core_period, fifos_);
  if (params_.rows == 0 || params_.cols == 0 || params_.macs_per_pe == 0)
    throw std::invalid_argument(n + ": rows, cols and macs_per_pe must be at least 1");
  if (params_.rows != kGemmTileK || params_.cols * params_.macs_per_pe != kGemmTileN)
    throw std::invalid_argument(n + ": the weight stream is defined for the RTL's 32 x 64 tile "
                                    "(models/npu/units/gemm_stream.h)");
  if (params_.section.drain_limit == 0)
    throw std::invalid_argument(n + ": drain_limit must be at least 1");
  if (fifos_.size() != kFifos)
    throw std::invalid_argument(n + ": needs exactly two weight FIFOs (HP0, HP1)");
}

uint64_t gemm_unit::block_bytes_per_fifo(uint32_t k, bool w_scale) const {
  return gemm_block_bytes(k, w_scale);
}

uint32_t gemm_unit::group_ntiles(uint32_t m, uint32_t n) const {
  return gemm_group_ntiles(params_.section, m, n);
}

uint32_t gemm_unit::group_ntiles(uint32_t m, uint32_t n, uint32_t k, bool w_scale) const {
  return gemm_group_ntiles(params_.section, m, n, k, w_scale);
}

// One instruction as the stages see it: the decoded fields, what follows
// from them before any time is taken, and what each stage hands the next.
struct gemm_unit::job {
  const isa::matmul_instr* mm = nullptr;
  uint32_t M = 0, N = 0, K = 0;
  bool w_scale = false, accm = false, functional = false;
  uint64_t chunk = 0, lead = 0;       // a column's bytes and where its weights start in them
  uint32_t TK = 0, TN = 0, half = 0;  // half: an N-tile's columns per FIFO
  uint32_t n_tiles = 0, k_tiles = 0, group = 0, windows = 0;
  uint32_t act_words = 0, out_words = 0;
  uint64_t tail_cycles = 0;
  sc_time period, load_time, tile_time, tail_time;
  sc_time t0, end, old_ready;
  std::vector<sc_time> slice_ready, ntile_end;
  std::vector<sc_time> block_ready;        // N-tile j's weights all in the block buffer
  std::vector<sc_time> block_freed;        // its last tile loaded into the array: the slot is free
  uint32_t resident = 1;                   // blocks the block buffer holds
  sc_time load_end;                        // loader free
  sc_time comp_end;                        // array free
  sc_time comp_end_prev2, comp_end_prev1;  // buffers: tiles t-2, t-1
  sc_time first_start;
  bool first = true;
  sc_time stall, act_stall;
  uint64_t array_cycles = 0;
  std::vector<uint8_t> act_bytes, out_bytes, buf;
  matmul::int8_rows act;
  std::vector<int8_t> w;  // unpacked weights, n-major
  std::vector<float> sw, y;
};

threaded_unit::result gemm_unit::execute(const dispatched_instruction& d) {
  job jb;
  if (auto refused = resolve(d, jb)) return std::move(*refused);
  const auto failed = matmul::run_stages(clock_, name(), "GEMM", jb.t0, jb.end, [&] {
    stream_activations(jb);
    run_tiles(jb);
    compute_values(jb);
    write_results(jb);
    account(jb);
  });
  clock_.sync_to(std::max(jb.end, clock_.local()));
  if (failed) return {failed->err, failed->detail};
  return {};
}

// The checks that refuse an instruction before it takes any time, and the
// sizes and times that follow from its fields.
std::optional<threaded_unit::result> gemm_unit::resolve(const dispatched_instruction& d,
                                                        job& jb) const {
  if (auto refused = matmul::check_instruction(d, isa::opcode::gemm, name()))
    return result{refused->err, refused->detail};
  const auto* mm = jb.mm = std::get_if<isa::matmul_instr>(&d.ins.body);
  const uint32_t M = jb.M = d.shape[0], N = jb.N = d.shape[1], K = jb.K = d.shape[2];
  // parallel_lane: the one array has no lanes to choose. The decoder
  // refuses lanes above 1 in strict mode; otherwise they are ignored.
  if (uint64_t{M} * K > params_.section.act_buffer_bytes)
    return result{PCCX_ERR_UNIT_FAULT, std::string(name()) + ": GEMM activations M*K = " +
                                           std::to_string(uint64_t{M} * K) +
                                           " INT8 bytes exceed the activation buffer of " +
                                           std::to_string(params_.section.act_buffer_bytes) +
                                           " bytes (npu.gemm.act_buffer_bytes)"};
  jb.w_scale = mm->flags & UCA_FLAG_W_SCALE;
  jb.accm = mm->flags & UCA_FLAG_ACCM;
  // UCA_FLAG_FINDEMAX is ignored by the GEMM unit (docs/models/gemm.md).
  jb.chunk = gemm_chunk_bytes(K, jb.w_scale);
  jb.lead = jb.w_scale ? kScaleLead : 0;
  const uint64_t block = block_bytes_per_fifo(K, jb.w_scale);
  if (block > params_.section.weight_block_bytes)
    return result{PCCX_ERR_UNIT_FAULT,
                  std::string(name()) + ": a GEMM N-tile's weights, 32 columns x " +
                      std::to_string(jb.chunk) + " bytes (K = " + std::to_string(K) +
                      ") = " + std::to_string(block) +
                      " bytes per FIFO, exceed the weight block buffer of " +
                      std::to_string(params_.section.weight_block_bytes) +
                      " bytes (npu.gemm.weight_block_bytes): split K"};
  for (auto* f : fifos_)
    if (f->capacity() < jb.chunk)
      return result{PCCX_ERR_UNIT_FAULT, std::string(name()) + ": weight FIFO " + f->name() +
                                             " holds " + std::to_string(f->capacity()) +
                                             " bytes, a weight column is " +
                                             std::to_string(jb.chunk)};
  jb.resident = static_cast<uint32_t>(params_.section.weight_block_bytes / block);
  jb.functional = matmul::computes_values(l2_, fifos_);

  jb.TK = tile_k(), jb.TN = tile_n(), jb.half = jb.TN / kFifos;
  jb.n_tiles = ceil_div(N, jb.TN), jb.k_tiles = ceil_div(K, jb.TK);
  jb.group = group_ntiles(M, N, K, jb.w_scale);
  jb.windows = ceil_div(K, params_.section.drain_limit);
  jb.period = params_.core_period;
  jb.load_time = jb.period * static_cast<double>(params_.section.tile_load_cycles);
  jb.tile_time = jb.period * static_cast<double>(M);
  jb.tail_cycles = params_.section.systolic_latency_cycles +
                   uint64_t{jb.windows - 1} * params_.section.drain_cycles;
  jb.tail_time = jb.period * static_cast<double>(jb.tail_cycles);
  jb.act_words = ceil_div(uint64_t{M} * K, kPerWord);
  jb.out_words = ceil_div(uint64_t{M} * N, kPerWord);
  return std::nullopt;
}

// Both L2 ranges are checked before any port time is reserved. Then slice i
// (K-tile i, all M rows) goes through port 1 into the activation buffer,
// slices in order, and for accm the old results follow. All reservations are
// made now: the stream does not wait. Each activation row is quantised to
// INT8 (symmetric, per row).
void gemm_unit::stream_activations(job& jb) {
  const bool functional = jb.functional;
  const uint32_t M = jb.M, K = jb.K, TK = jb.TK;
  matmul::check_l2_range(l2_, "GEMM activation", jb.mm->src_addr, jb.act_words);
  matmul::check_l2_range(l2_, "GEMM result", jb.mm->dest_reg, jb.out_words);
  jb.act_bytes.resize(functional ? size_t{jb.act_words} * kWord : 0);
  jb.slice_ready.assign(jb.k_tiles, jb.t0);
  std::vector<word_run> runs;
  for (uint32_t i = 0; i < jb.k_tiles; ++i) {
    slice_runs(M, K, i * TK, std::min(K, (i + 1) * TK), runs);
    for (const word_run& run : runs) {
      uint8_t* dst = functional ? &jb.act_bytes[size_t(run.first) * kWord] : nullptr;
      jb.slice_ready[i] = std::max(
          jb.slice_ready[i], l2_.read(kPort, static_cast<uint32_t>(jb.mm->src_addr + run.first),
                                      static_cast<uint32_t>(run.words), dst, clock_.local()));
    }
  }
  jb.out_bytes.resize(functional ? size_t{jb.out_words} * kWord : 0);
  jb.old_ready = jb.t0;
  if (jb.accm)
    jb.old_ready = l2_.read(kPort, jb.mm->dest_reg, jb.out_words,
                            functional ? jb.out_bytes.data() : nullptr, clock_.local());
  if (functional) jb.act = matmul::quantise_rows(jb.act_bytes.data(), M, K);
}

// The first group's N-tiles 0..group-1 K-tile outer, N-tile inner; then each
// remaining N-tile with its K-tiles in order.
void gemm_unit::run_tiles(job& jb) {
  const bool functional = jb.functional;
  jb.w.resize(functional ? size_t{jb.N} * jb.K : 0);
  jb.sw.assign(functional ? jb.N : 0, 1.0f);
  jb.buf.resize(functional ? jb.chunk : 0);
  jb.ntile_end.resize(jb.n_tiles);
  jb.block_ready.assign(jb.n_tiles, jb.t0);
  jb.block_freed.assign(jb.n_tiles, jb.t0);
  jb.load_end = jb.comp_end = jb.comp_end_prev2 = jb.comp_end_prev1 = jb.t0;
  for (uint32_t i = 0; i < jb.k_tiles; ++i)
    for (uint32_t j = 0; j < jb.group; ++j) run_tile(jb, j, i);
  for (uint32_t j = jb.group; j < jb.n_tiles; ++j)
    for (uint32_t i = 0; i < jb.k_tiles; ++i) run_tile(jb, j, i);
  stats_.last_compute_start = jb.first_start;
  stats_.last_compute_end = jb.comp_end;
}

// Tile (N-tile j, K-tile i). Loads are double-buffered; the tile computes
// once it is loaded, the array is free and its activation slice is in the
// buffer: M clocks, plus the tail after the N-tile's last K-tile.
void gemm_unit::run_tile(job& jb, uint32_t j, uint32_t i) {
  // The buffer of tile t-2 is free once that tile has computed.
  const sc_time nominal = std::max(jb.load_end, jb.comp_end_prev2);
  const sc_time avail = load_tile(jb, j, i, nominal);
  ++stats_.tiles;
  jb.load_end = avail + jb.load_time;
  if (i + 1 == jb.k_tiles) jb.block_freed[j] = jb.load_end;
  const sc_time loaded = std::max(jb.comp_end, jb.load_end);  // array free, tile loaded
  const sc_time start = std::max(loaded, jb.slice_ready[i]);
  // The array's idle gap before the tile: up to `loaded` it is a weight
  // stall if the tile's bytes were late; beyond, an activation stall.
  if (avail > nominal) jb.stall += loaded - jb.comp_end;
  jb.act_stall += start - loaded;
  if (jb.first) jb.first_start = start, jb.first = false;
  const bool last_k = i + 1 == jb.k_tiles;
  jb.comp_end = start + jb.tile_time + (last_k ? jb.tail_time : SC_ZERO_TIME);
  jb.array_cycles += jb.M + (last_k ? jb.tail_cycles : 0);
  if (last_k) jb.ntile_end[j] = jb.comp_end;
  jb.comp_end_prev2 = jb.comp_end_prev1;
  jb.comp_end_prev1 = jb.comp_end;
  clock_.advance_to(start);
}

// Tile (N-tile j, K-tile i) from the block buffer; its first tile takes the
// N-tile's block from both FIFOs (and the first block of all takes every
// scale beat before it), once the block buffer has a free slot. Returns
// when the tile's weights are there (no earlier than `nominal`, when a
// tile buffer is free).
sc_time gemm_unit::load_tile(job& jb, uint32_t j, uint32_t i, const sc_time& nominal) {
  if (i == 0) take_block(jb, j);
  return std::max(nominal, jb.block_ready[j]);
}

// N-tile j's columns from both FIFOs: FIFO f carries columns n = 2s + f,
// so the N-tile's are s = 32j .. 32j + 31 (below N).
void gemm_unit::take_block(job& jb, uint32_t j) {
  const uint32_t N = jb.N, K = jb.K;
  const bool functional = jb.functional;
  // The slot of the block `resident` N-tiles back must be free (its last
  // tile loaded); the first blocks find the buffer empty.
  const sc_time slot = j >= jb.resident ? jb.block_freed[j - jb.resident] : jb.t0;
  sc_time ready = slot;
  for (unsigned f = 0; f < kFifos; ++f) {
    const uint64_t columns = gemm_columns_of_fifo(N, f);
    if (j == 0 && jb.w_scale)  // every scale beat, in column order, before the first block
      for (uint64_t s = 0; s < columns; ++s) {
        uint8_t* b = functional ? jb.buf.data() : nullptr;
        ready = std::max(ready, matmul::take_weights(clock_, *fifos_[f], kBeat, b, jb.t0));
        stats_.weight_bytes += kBeat;
        if (functional) jb.sw[2 * s + f] = bf16::to_float(bf16::load(b, 0));
      }
    const uint64_t s_end = std::min<uint64_t>(columns, uint64_t{j + 1} * jb.half);
    for (uint64_t s = uint64_t{j} * jb.half; s < s_end; ++s) {
      uint8_t* b = functional ? jb.buf.data() : nullptr;
      ready = std::max(ready, matmul::take_weights(clock_, *fifos_[f], jb.chunk, b, slot));
      stats_.weight_bytes += jb.chunk;
      if (!functional) continue;
      int8_t* w = &jb.w[size_t(2 * s + f) * K];
      for (uint32_t k = 0; k < K; ++k)
        w[k] = static_cast<int8_t>(matmul::int4(b[jb.lead + k / 2], k & 1));
    }
  }
  jb.block_ready[j] = ready;
}

// Exact integer sums per drain window, windows added in FP32.
void gemm_unit::compute_values(job& jb) {
  const uint32_t M = jb.M, N = jb.N, K = jb.K, L = params_.section.drain_limit;
  jb.y.resize(jb.functional ? size_t{M} * N : 0);
  if (!jb.functional) return;
  const int8_t* q = jb.act.q.data();
  const int8_t* w = jb.w.data();
  const float* sw = jb.sw.data();
  const float* scale = jb.act.scale.data();
  float* y = jb.y.data();
  for (uint32_t m = 0; m < M; ++m) {
    const int8_t* a = &q[size_t{m} * K];
    for (uint32_t n = 0; n < N; ++n) {
      const int8_t* wn = &w[size_t{n} * K];
      float sum = 0.0f;
      for (uint32_t k0 = 0; k0 < K; k0 += L) {
        int64_t acc = 0;
        for (uint32_t k = k0; k < std::min(K, k0 + L); ++k) acc += int32_t{a[k]} * wn[k];
        sum += (static_cast<float>(acc) * sw[n]) * scale[m];
      }
      y[size_t{m} * N + n] = sum;
    }
  }
}

// Each result word through port 1 after the last N-tile it holds, N-tiles in
// order.
void gemm_unit::write_results(job& jb) {
  const uint32_t M = jb.M, N = jb.N;
  // Words by the N-tile that completes them (a counting sort, kept between
  // instructions): tile j's words are written from its end on, in order.
  std::vector<uint32_t>& tile_of = scratch_.tile_of;
  const std::vector<uint32_t>& begin = scratch_.tile_begin;
  const std::vector<uint32_t>& words = scratch_.tile_words;
  tile_of.resize(jb.out_words);
  // A row of whole words (N a multiple of 8) gives every row the same
  // pattern: the first row's answers are copied, not divided for again.
  const uint32_t row_words = N % kPerWord == 0 ? N / kPerWord : 0;
  for (uint32_t wd = 0; wd < jb.out_words; ++wd)
    tile_of[wd] = row_words && wd >= row_words
                      ? tile_of[wd - row_words]
                      : matmul::last_column_of_word(wd, uint64_t{M} * N, N) / jb.TN;
  matmul::group_words_by_step(tile_of, jb.n_tiles, scratch_.tile_begin, scratch_.tile_words,
                              scratch_.fill);
  for (uint32_t j = 0; j < jb.n_tiles; ++j) {
    const sc_time earliest = std::max(jb.ntile_end[j], jb.old_ready);
    // A run of consecutive words goes through the port in one write: the
    // port takes them back to back from the first one's slot, as it would
    // one by one.
    for (uint32_t i = begin[j]; i < begin[j + 1];) {
      uint32_t run = 1;
      while (i + run < begin[j + 1] && words[i + run] == words[i] + run) ++run;
      const uint32_t wd = words[i];
      uint8_t* wb = jb.functional ? &jb.out_bytes[size_t{wd} * kWord] : nullptr;
      if (jb.functional)
        for (uint32_t r = 0; r < run; ++r)
          matmul::form_result_word(wb + size_t{r} * kWord, wd + r, jb.y, jb.accm);
      jb.end = std::max(jb.end, l2_.write(kPort, jb.mm->dest_reg + wd, run, wb, earliest));
      i += run;
    }
  }
  jb.end = std::max(jb.end, jb.comp_end);
}

void gemm_unit::account(const job& jb) {
  const uint64_t macs = uint64_t{jb.M} * jb.N * jb.K;
  const uint64_t stall_cycles = static_cast<uint64_t>(std::llround(jb.stall / jb.period));
  const uint64_t act_stall_cycles = static_cast<uint64_t>(std::llround(jb.act_stall / jb.period));
  ++stats_.instructions;
  stats_.macs += macs;
  stats_.stall_cycles += stall_cycles;
  stats_.l2_stall_cycles += act_stall_cycles;
  stats_.array_cycles += jb.array_cycles;
  stats_.drain_windows += uint64_t{jb.n_tiles} * (jb.windows - 1);
  counters_.add(PCCX_PERF_MACS, macs);
  counters_.add(PCCX_PERF_GEMM_MACS, macs);
  counters_.add(PCCX_PERF_GEMM_WEIGHT_STALL, stall_cycles);
  counters_.add(PCCX_PERF_GEMM_L2_STALL, act_stall_cycles);
}

}  // namespace pccx::npu
