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
constexpr unsigned kFifos = 2;  // HP0, HP1

// Consecutive L2 words, relative to the first activation word.
struct word_run {
  uint64_t first;
  uint64_t words;
};

// The words holding K columns [k0, k1) of all M rows of an M x K row-major
// BF16 block, in increasing order. A word holding elements of two rows of
// the slice is listed once; a word also holding elements of another slice
// is listed again for that slice (the buffer keeps INT8 elements, not words).
std::vector<word_run> slice_runs(uint32_t m_rows, uint32_t k, uint32_t k0, uint32_t k1) {
  std::vector<word_run> runs;
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
  return runs;
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
  if (params_.core_period <= SC_ZERO_TIME)
    throw std::invalid_argument(n + ": core_period must be positive");
  if (params_.rows == 0 || params_.cols == 0 || params_.macs_per_pe == 0)
    throw std::invalid_argument(n + ": rows, cols and macs_per_pe must be at least 1");
  if ((params_.cols * params_.macs_per_pe) % 4 != 0)
    throw std::invalid_argument(n + ": cols * macs_per_pe must be a multiple of 4");
  if (params_.drain_limit == 0) throw std::invalid_argument(n + ": drain_limit must be at least 1");
  if (fifos_.size() != kFifos)
    throw std::invalid_argument(n + ": needs exactly two weight FIFOs (HP0, HP1)");
  for (auto* f : fifos_)
    if (!f) throw std::invalid_argument(n + ": null weight FIFO");
}

uint64_t gemm_unit::tile_bytes_per_fifo() const {
  return uint64_t{params_.rows} * (tile_n() / kFifos) / 2;
}

uint64_t gemm_unit::scale_bytes_per_fifo() const {
  return 2ull * (tile_n() / kFifos);
}

uint64_t gemm_unit::stream_bytes_per_fifo(uint32_t n, uint32_t k, bool w_scale) const {
  const uint64_t nt = ceil_div(n, tile_n()), kt = ceil_div(k, tile_k());
  return nt * ((w_scale ? scale_bytes_per_fifo() : 0) + kt * tile_bytes_per_fifo());
}

uint32_t gemm_unit::group_ntiles(uint32_t m, uint32_t n) const {
  const uint64_t n_tiles = ceil_div(n, tile_n());
  const uint64_t per_ntile = std::max<uint64_t>(1, uint64_t{m} * tile_n());
  const uint64_t fit = params_.acc_buffer_entries / per_ntile;
  // A slice is ceil(tile_k / 8) L2 words per row and the group spends G
  // clocks per row on it: this G keeps up with the stream. A larger group
  // only delays its results (they all finish within the last slice).
  const uint64_t hides = ceil_div(tile_k(), kPerWord);
  return static_cast<uint32_t>(std::max<uint64_t>(1, std::min({n_tiles, fit, hides})));
}

threaded_unit::result gemm_unit::execute(const dispatched_instruction& d) {
  if (auto refused = matmul::check_instruction(d, isa::opcode::gemm, name()))
    return {refused->err, refused->detail};
  const auto* mm = std::get_if<isa::matmul_instr>(&d.ins.body);
  const uint32_t M = d.shape[0], N = d.shape[1], K = d.shape[2];
  if (mm->lanes > 1)
    return {PCCX_ERR_INVALID_LANES, std::string(name()) + ": parallel_lane " +
                                        std::to_string(mm->lanes) + " above 1 (one GEMM array)"};
  if (uint64_t{M} * K > params_.act_buffer_bytes)
    return {PCCX_ERR_UNIT_FAULT,
            std::string(name()) + ": GEMM activations M*K = " + std::to_string(uint64_t{M} * K) +
                " INT8 bytes exceed the activation buffer of " +
                std::to_string(params_.act_buffer_bytes) + " bytes (npu.gemm.act_buffer_bytes)"};
  const bool w_scale = mm->flags & UCA_FLAG_W_SCALE;
  const bool accm = mm->flags & UCA_FLAG_ACCM;
  // UCA_FLAG_FINDEMAX is ignored by the GEMM unit (docs/models/gemm.md).
  const uint64_t tbytes = tile_bytes_per_fifo();
  const uint64_t sbytes = scale_bytes_per_fifo();
  for (auto* f : fifos_)
    if (f->capacity() < std::max(tbytes, sbytes))
      return {PCCX_ERR_UNIT_FAULT, std::string(name()) + ": weight FIFO " + f->name() + " holds " +
                                       std::to_string(f->capacity()) + " bytes, a tile is " +
                                       std::to_string(tbytes)};
  const bool functional = matmul::computes_values(params_.functional, l2_, fifos_);

  const uint32_t TK = tile_k(), TN = tile_n(), half = TN / kFifos;
  const uint32_t row_bytes = half / 2;
  const uint32_t n_tiles = ceil_div(N, TN), k_tiles = ceil_div(K, TK);
  const uint32_t group = group_ntiles(M, N);
  const uint32_t windows = ceil_div(K, params_.drain_limit);
  const sc_time period = params_.core_period;
  const sc_time load_time = period * static_cast<double>(params_.tile_load_cycles);
  const sc_time tile_time = period * static_cast<double>(M);
  const uint64_t tail_cycles =
      params_.systolic_latency_cycles + uint64_t{windows - 1} * params_.drain_cycles;
  const sc_time tail_time = period * static_cast<double>(tail_cycles);
  const uint32_t act_words = ceil_div(uint64_t{M} * K, kPerWord);
  const uint32_t out_words = ceil_div(uint64_t{M} * N, kPerWord);

  clock_.reset();
  const sc_time t0 = sc_core::sc_time_stamp();
  sc_time end = t0;
  result r;
  try {
    // Both L2 ranges are checked before any port time is reserved.
    matmul::check_l2_range(l2_, "GEMM activation", mm->src_addr, act_words);
    matmul::check_l2_range(l2_, "GEMM result", mm->dest_reg, out_words);

    // --- Activation stream: slice i (K-tile i, all M rows) through port 1
    // into the activation buffer, slices in order; then, for accm, the old
    // results. All reservations are made now: the stream does not wait.
    std::vector<uint8_t> act_bytes(functional ? size_t{act_words} * kWord : 0);
    std::vector<sc_time> slice_ready(k_tiles, t0);
    for (uint32_t i = 0; i < k_tiles; ++i)
      for (const word_run& run : slice_runs(M, K, i * TK, std::min(K, (i + 1) * TK))) {
        uint8_t* dst = functional ? &act_bytes[size_t(run.first) * kWord] : nullptr;
        slice_ready[i] = std::max(slice_ready[i],
                                  l2_.read(kPort, static_cast<uint32_t>(mm->src_addr + run.first),
                                           static_cast<uint32_t>(run.words), dst, clock_.local()));
      }
    std::vector<uint8_t> out_bytes(functional ? size_t{out_words} * kWord : 0);
    sc_time old_ready = t0;
    if (accm)
      old_ready = l2_.read(kPort, mm->dest_reg, out_words, functional ? out_bytes.data() : nullptr,
                           clock_.local());

    // Each activation row quantised to INT8 (symmetric, per row).
    const matmul::int8_rows act =
        functional ? matmul::quantise_rows(act_bytes.data(), M, K) : matmul::int8_rows{};

    // --- Tiles: the first group's N-tiles 0..group-1 K-tile outer, N-tile
    // inner; then each remaining N-tile with its K-tiles in order. Loads are
    // double-buffered; a tile computes once loaded, the array is free and
    // its activation slice is in the buffer.
    std::vector<int8_t> w(functional ? size_t{N} * K : 0);  // unpacked weights, n-major
    std::vector<float> sw(functional ? N : 0, 1.0f);
    std::vector<uint8_t> buf(functional ? std::max(tbytes, sbytes) : 0);
    std::vector<sc_time> ntile_end(n_tiles);
    sc_time load_end = t0;                             // loader free
    sc_time comp_end = t0;                             // array free
    sc_time comp_end_prev2 = t0, comp_end_prev1 = t0;  // buffers: tiles t-2, t-1
    sc_time first_start;
    bool first = true;
    sc_time stall, act_stall;
    uint64_t array_cycles = 0;
    auto run_tile = [&](uint32_t j, uint32_t i) {
      const uint32_t n0 = j * TN, k0 = i * TK;
      // The buffer of tile t-2 is free once that tile has computed.
      const sc_time nominal = std::max(load_end, comp_end_prev2);
      sc_time avail = nominal;
      for (unsigned f = 0; f < kFifos; ++f) {
        const uint32_t c0 = n0 + f * half;  // first output column of this FIFO
        uint8_t* b = functional ? buf.data() : nullptr;
        if (i == 0 && w_scale) {
          avail = std::max(avail, matmul::take_weights(clock_, *fifos_[f], sbytes, b, nominal));
          stats_.weight_bytes += sbytes;
          if (functional)
            for (uint32_t c = 0; c < half && c0 + c < N; ++c)
              sw[c0 + c] = bf16::to_float(bf16::load(b, c));
        }
        avail = std::max(avail, matmul::take_weights(clock_, *fifos_[f], tbytes, b, nominal));
        stats_.weight_bytes += tbytes;
        if (functional)
          for (uint32_t row = 0; row < TK && k0 + row < K; ++row)
            for (uint32_t c = 0; c < half && c0 + c < N; ++c)
              w[size_t{c0 + c} * K + k0 + row] =
                  static_cast<int8_t>(matmul::int4(b[size_t{row} * row_bytes + c / 2], c & 1));
      }
      ++stats_.tiles;
      load_end = avail + load_time;
      const sc_time loaded = std::max(comp_end, load_end);  // array free, tile loaded
      const sc_time start = std::max(loaded, slice_ready[i]);
      // The array's idle gap before the tile: up to `loaded` it is a weight
      // stall if the tile's bytes were late; beyond, an activation stall.
      if (avail > nominal) stall += loaded - comp_end;
      act_stall += start - loaded;
      if (first) first_start = start, first = false;
      const bool last_k = i + 1 == k_tiles;
      comp_end = start + tile_time + (last_k ? tail_time : SC_ZERO_TIME);
      array_cycles += M + (last_k ? tail_cycles : 0);
      if (last_k) ntile_end[j] = comp_end;
      comp_end_prev2 = comp_end_prev1;
      comp_end_prev1 = comp_end;
      clock_.advance_to(start);
    };
    for (uint32_t i = 0; i < k_tiles; ++i)
      for (uint32_t j = 0; j < group; ++j) run_tile(j, i);
    for (uint32_t j = group; j < n_tiles; ++j)
      for (uint32_t i = 0; i < k_tiles; ++i) run_tile(j, i);
    stats_.last_compute_start = first_start;
    stats_.last_compute_end = comp_end;

    // --- Values: exact integer sums per drain window, windows added in FP32.
    std::vector<float> y(functional ? size_t{M} * N : 0);
    if (functional) {
      const uint32_t L = params_.drain_limit;
      for (uint32_t m = 0; m < M; ++m) {
        const int8_t* a = &act.q[size_t{m} * K];
        for (uint32_t n = 0; n < N; ++n) {
          const int8_t* wn = &w[size_t{n} * K];
          float sum = 0.0f;
          for (uint32_t k0 = 0; k0 < K; k0 += L) {
            int64_t acc = 0;
            for (uint32_t k = k0; k < std::min(K, k0 + L); ++k) acc += int32_t{a[k]} * wn[k];
            sum += (static_cast<float>(acc) * sw[n]) * act.scale[m];
          }
          y[size_t{m} * N + n] = sum;
        }
      }
    }

    // --- Output: each word after the last N-tile it holds, N-tiles in order.
    std::vector<std::vector<uint32_t>> words_of(n_tiles);
    for (uint32_t wd = 0; wd < out_words; ++wd)
      words_of[matmul::last_column_of_word(wd, uint64_t{M} * N, N) / TN].push_back(wd);
    for (uint32_t j = 0; j < n_tiles; ++j) {
      for (uint32_t wd : words_of[j]) {
        uint8_t* wb = functional ? &out_bytes[size_t{wd} * kWord] : nullptr;
        if (functional) matmul::form_result_word(wb, wd, y, accm);
        end = std::max(
            end, l2_.write(kPort, mm->dest_reg + wd, 1, wb, std::max(ntile_end[j], old_ready)));
      }
    }
    end = std::max(end, comp_end);

    const uint64_t macs = uint64_t{M} * N * K;
    const uint64_t stall_cycles = static_cast<uint64_t>(std::llround(stall / period));
    const uint64_t act_stall_cycles = static_cast<uint64_t>(std::llround(act_stall / period));
    ++stats_.instructions;
    stats_.macs += macs;
    stats_.stall_cycles += stall_cycles;
    stats_.l2_stall_cycles += act_stall_cycles;
    stats_.array_cycles += array_cycles;
    stats_.drain_windows += uint64_t{n_tiles} * (windows - 1);
    counters_.add(PCCX_PERF_MACS, macs);
    counters_.add(PCCX_PERF_GEMM_MACS, macs);
    counters_.add(PCCX_PERF_GEMM_WEIGHT_STALL, stall_cycles);
    counters_.add(PCCX_PERF_GEMM_L2_STALL, act_stall_cycles);
  } catch (const mem::l2_range_error& e) {
    r = {PCCX_ERR_L2_RANGE, std::string(name()) + ": GEMM: " + e.what()};
  }
  clock_.sync_to(std::max(end, clock_.local()));
  return r;
}

}  // namespace pccx::npu
