// The GEMM execution unit (bound as unit_kind::gemm): Y = X W^T for INT4
// weights streamed from two HP weight FIFOs (HP0, HP1) into one 32x32
// weight-stationary systolic array (2 MAC per PE per clock, W4A8 packing:
// a resident tile is 32 K rows x 64 N columns), BF16 activations in the L2
// quantised to INT8 per activation row into the activation (fmap) buffer.
//
//   streams  the activations through L2 port 1 into the activation buffer in
//            K-slice order (slice i = the 32 K columns of K-tile i for all M
//            rows); a tile needing slice i starts no earlier than slice i is
//            in; with accm the M*N old results follow the last slice;
//   orders   the tiles in N-groups: the first group holds G N-tiles (as many
//            as the accumulator buffer holds partial sums for) and runs
//            K-tile outer, N-tile inner, so each arriving slice serves G
//            tiles; every later N-tile (all slices resident) is a group of
//            its own;
//   loads    per tile 512 bytes from each FIFO (plus 64 scale bytes per FIFO
//            with an N-tile's first K-tile under w_scale); a tile loads in
//            tile_load_cycles once its bytes are ready and a buffer is free
//            (double-buffered: the next tile loads while one computes);
//   computes M clocks per tile; after an N-tile's last K-tile the systolic
//            latency plus drain_cycles per extra drain window;
//   writes   each result word through L2 port 1 after its last N-tile.
//
// The thread is temporally decoupled (global quantum) and waits in kernel
// time only when a FIFO holds no bytes for the next tile. docs/models/gemm.md lists
// the semantics and which of them the spec fixes.
#pragma once

#include <cstdint>
#include <optional>
#include <systemc>
#include <vector>

#include "models/memory/dma/stream_fifo.h"
#include "models/memory/l2/l2_memory.h"
#include "infra/time/decoupled_clock.h"
#include "models/npu/core/perf_counters.h"
#include "models/npu/core/threaded_unit.h"
#include "models/npu/units/gemm_config.h"
#include "models/npu/units/gemm_stream.h"

namespace pccx::npu {

struct gemm_unit_params {
  // npu.gemm: tile load, systolic latency, drain limit and cycles, buffers.
  config::gemm_config section;
  sc_core::sc_time core_period = sc_core::sc_time(2.5, sc_core::SC_NS);
  // The array's geometry, fixed by the RTL (not configuration).
  uint32_t rows = kGemmTileK;      // PE rows (K per tile)
  uint32_t cols = kGemmTileN / 2;  // PE columns
  uint32_t macs_per_pe = 2;        // W4A8 packing: N per tile = cols * macs_per_pe
};

class gemm_unit : public threaded_unit {
 public:
  // weight_fifos: exactly two, [HP0, HP1]; HP0 feeds the first half of each
  // tile's columns, HP1 the second half.
  gemm_unit(sc_core::sc_module_name name, const gemm_unit_params& params, mem::l2_memory& l2,
            std::vector<mem::stream_fifo*> weight_fifos, perf_counters& counters);

  uint32_t tile_k() const { return params_.rows; }
  uint32_t tile_n() const { return params_.cols * params_.macs_per_pe; }
  // One N-tile's chunks per FIFO (32 columns), what the block buffer holds.
  uint64_t block_bytes_per_fifo(uint32_t k, bool w_scale) const;
  // N-tiles of the first group for M rows and N columns:
  // max(1, min(N-tiles, acc_buffer_entries / (M * tile_n()), 4)); with K
  // and w_scale also at most the blocks the block buffer holds.
  uint32_t group_ntiles(uint32_t m, uint32_t n) const;
  uint32_t group_ntiles(uint32_t m, uint32_t n, uint32_t k, bool w_scale) const;

  struct stats {
    uint64_t instructions = 0;  // retired without error
    uint64_t macs = 0;
    uint64_t tiles = 0;                   // weight tiles loaded
    uint64_t weight_bytes = 0;            // bytes popped from the weight FIFOs
    uint64_t stall_cycles = 0;            // array idle because tile bytes were late
    uint64_t l2_stall_cycles = 0;         // activation stall: array idle awaiting a slice
    uint64_t array_cycles = 0;            // array busy (M per tile + latency + drains)
    uint64_t drain_windows = 0;           // extra drain windows (per N-tile)
    sc_core::sc_time last_compute_start;  // first tile starts (last instruction)
    sc_core::sc_time last_compute_end;    // array done (last instruction)
  };
  const stats& statistics() const { return stats_; }
  const gemm_unit_params& params() const { return params_; }

 protected:
  result execute(const dispatched_instruction& d) override;

 private:
  // One instruction on its way through the stages (gemm_unit.cpp); j
  // names an N-tile, i a K-tile.
  struct job;
  std::optional<result> resolve(const dispatched_instruction& d, job& jb) const;
  void stream_activations(job& jb);
  void run_tiles(job& jb);
  void run_tile(job& jb, uint32_t j, uint32_t i);
  sc_core::sc_time load_tile(job& jb, uint32_t j, uint32_t i, const sc_core::sc_time& nominal);
  void take_block(job& jb, uint32_t j);
  void compute_values(job& jb);
  void write_results(job& jb);
  void account(const job& jb);

  gemm_unit_params params_;
  mem::l2_memory& l2_;
  std::vector<mem::stream_fifo*> fifos_;
  perf_counters& counters_;
  decoupled_clock clock_;
  stats stats_;
  // write_results' word order, kept between instructions (a prefill chunk
  // runs thousands of GEMMs).
  struct scratch {
    std::vector<uint32_t> tile_of, tile_begin, tile_words, fill;
  } scratch_;
};

}  // namespace pccx::npu
