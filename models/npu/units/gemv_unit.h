// The GEMV execution unit (bound as unit_kind::gemv): y = W x for INT4
// weights streamed from the HP weight FIFOs and BF16 activations in the L2,
// quantised to INT8 per activation row on the L1 load.
//
//   loads    M*K BF16 activations (ceil(M*K/8) words) through L2 port 1, and
//            for accm the M*N old results, before compute starts;
//   streams  one row record per output n from weight FIFO (n mod F); output
//            row n runs on core (n mod active cores), which takes the record
//            only when it is free and the bytes are ready (a slow FIFO stalls
//            the core, a fast one backs up), then spends M*ceil(K/macs) clocks;
//   writes   each result word through L2 port 1 once its 8 outputs are out of
//            the reduction pipeline (pipeline_latency_cycles after their core).
//
// The thread is temporally decoupled (global quantum) and waits in kernel
// time only when a FIFO holds no bytes for the next row. docs/models/gemv.md lists
// the semantics and which of them the spec fixes.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <systemc>
#include <vector>

#include "infra/trace/analysis_port.h"
#include "models/kv/kv_codec.h"
#include "models/kv/kv_datapath_config.h"
#include "models/memory/dma/stream_fifo.h"
#include "models/memory/l2/l2_memory.h"
#include "infra/time/decoupled_clock.h"
#include "models/npu/core/perf_counters.h"
#include "models/npu/core/threaded_unit.h"
#include "models/npu/units/gemv_config.h"

namespace pccx::npu {

struct gemv_unit_params {
  // npu.gemv: MACs per core per cycle, pipeline latency, scale group, ...
  config::gemv_config section;
  sc_core::sc_time core_period = sc_core::sc_time(2.5, sc_core::SC_NS);
  uint32_t cores = 4;  // npu.gemv_cores
  // npu.kv: the formats of the KV weight streams (GEMV flags[2:0] = 1 keys,
  // 2 values) and the dequantize stage's width (shared by the cores).
  config::kv_datapath_config kv;
  // The thread's quantum (simulation.gemv_quantum_ns); zero: the global one.
  sc_core::sc_time quantum = sc_core::SC_ZERO_TIME;
};

// Bytes of one INT4 weight row record for K inputs (padded to 16 bytes):
// the unit's record_bytes, from the section alone (the replay's DMA planner
// sizes weight streams with it).
uint64_t gemv_record_bytes(const config::gemv_config& section, uint32_t k, bool w_scale);

class gemv_unit : public threaded_unit {
 public:
  // weight_fifos: the FIFOs output rows are dealt from (row n: n mod size).
  gemv_unit(sc_core::sc_module_name name, const gemv_unit_params& params, mem::l2_memory& l2,
            std::vector<mem::stream_fifo*> weight_fifos, perf_counters& counters);

  // findemax: the row maximum, once per instruction (the platform wires it
  // to the SFU's e_max register).
  trace::analysis_port<float> emax;

  // Bytes of one weight row record for K inputs (padded to 16 bytes).
  uint64_t record_bytes(uint32_t k, bool w_scale) const;
  uint32_t scales_per_row(uint32_t k) const;

  struct stats {
    uint64_t instructions = 0;  // retired without error
    uint64_t macs = 0;
    uint64_t rows = 0;                  // weight row records consumed
    uint64_t weight_bytes = 0;          // bytes popped from the weight FIFOs
    uint64_t core_stall_cycles = 0;     // summed over cores: waiting for weight bytes
    uint64_t stall_cycles = 0;          // core_stall_cycles / active cores (the perf counter)
    uint64_t l2_stall_cycles = 0;       // activation load and queued result writes
    uint64_t kv_records = 0;            // KV records consumed (flags[2:0] = 1, 2)
    uint64_t dequant_stall_cycles = 0;  // engine waiting for the dequantize stage
  };
  const stats& statistics() const { return stats_; }
  const gemv_unit_params& params() const { return params_; }

 protected:
  result execute(const dispatched_instruction& d) override;

 private:
  // One instruction on its way through the stages (gemv_unit.cpp).
  struct job;
  struct stream_tables;  // the record order and result words of a shape
  std::optional<result> resolve(const dispatched_instruction& d, job& jb) const;
  std::optional<result> resolve_kv(job& jb, bool keys) const;
  void load_activations(job& jb);
  void order_records(const job& jb, stream_tables& t);
  void order_result_words(const job& jb, stream_tables& t);
  void prepare_stream(job& jb);
  void stream_records(job& jb);
  template <bool KvValues, bool InOrder, bool Dequant>
  void stream_records_as(job& jb);
  template <bool Dequant>
  sc_core::sc_time take_record(job& jb, mem::stream_fifo& fifo, const sc_core::sc_time& free_at,
                               uint8_t* buf);
  void compute_kv_record(job& jb, uint32_t n, const uint8_t* buf);
  void compute_int4_record(job& jb, uint32_t n, const uint8_t* buf);
  void finish_values(job& jb);
  sc_core::sc_time write_word(job& jb, uint32_t w);
  void report_emax(const job& jb);
  void account(const job& jb);

  gemv_unit_params params_;
  mem::l2_memory& l2_;
  std::vector<mem::stream_fifo*> fifos_;
  perf_counters& counters_;
  kv::kv_codec key_codec_, value_codec_;
  decoupled_clock clock_;
  stats stats_;
  // The record order and the result words each record completes follow
  // from the shape alone. A decoded token asks for the same few shapes
  // layer after layer (each projection, the keys and values of a local or
  // a global layer), so the tables of the last shapes are kept.
  struct stream_tables {
    struct shape {
      bool in_order = false, kv_values = false;
      uint32_t M = 0, N = 0, records = 0;
      bool operator==(const shape& o) const {
        return in_order == o.in_order && kv_values == o.kv_values && M == o.M && N == o.N &&
               records == o.records;
      }
    } key;
    uint64_t last_use = 0;  // instruction count when last used
    // KV streams: record p is output row order[p] from FIFO fifo_of[p].
    std::vector<uint32_t> order, fifo_of;
    // Words completed by step p: after_word[after_begin[p] .. after_begin[p + 1]).
    std::vector<uint32_t> after_begin, after_word;
  };
  // A Gemma 3n token asks for about a dozen shapes (seven projection
  // shapes, the keys and values of a local and of a global layer); with
  // fewer kept than that the least recently used one is always the next
  // one asked for, and a global layer's 32K-record tables were built again
  // for every layer.
  static constexpr size_t kKeptTables = 16;
  const stream_tables& tables_for(const job& jb);
  void build_tables(const job& jb, stream_tables& t);
  // Per-instruction bookkeeping, kept between instructions so that decode
  // (thousands of GEMVs of up to 16K rows) does not allocate and fault in
  // fresh pages for every one.
  struct scratch {
    std::vector<stream_tables> kept;  // at most kKeptTables, the oldest replaced
    uint64_t uses = 0;
    std::vector<uint32_t> step_of, last_step, fill;  // building tables
    std::vector<sc_core::sc_time> word_done;         // result word w leaves the pipeline
  } scratch_;
};

}  // namespace pccx::npu
