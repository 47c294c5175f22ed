// Speed of the GEMV unit model: GEMV instructions of the decode shape
// (M = 1, K = 2048, N = 2048, INT4 weight rows with BF16 scales: one per row
// as the platform's default npu.gemv.scale_group = 0, or one per 32 inputs)
// run back to back, their row records fed through two weight FIFOs
// by a producer thread as space frees. Reports host MACs per wall second
// (functional mode: the values are computed) and weight records per wall
// second (both modes). The simulator runs on one host core, so GMAC/s is
// per core.
//
// One elaboration holds the three systems (functional with either scale
// group, timing); each case wakes its own driver and producer and calls
// sc_start() again:
//   build/tests/bench/pccx_bench_gemv
#include <benchmark/benchmark.h>
#include <tlm.h>  // before the quantum keeper, which does not include it
#include <tlm_utils/tlm_quantumkeeper.h>

#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <systemc>
#include <vector>

#include "models/memory/dma/stream_fifo.h"
#include "models/memory/l2/l2_memory.h"
#include "models/npu/core/perf_counters.h"
#include "models/npu/units/gemv_unit.h"
#include "pccx_npu_regs.h"
#include "uCA_v1_api.h"

namespace {

using sc_core::sc_time;

constexpr uint32_t kK = 2048, kN = 2048, kFifos = 2;
constexpr uint32_t kInstructions = 32;
constexpr uint32_t kSrc = 0x100, kDst = 0x1000;

// One GEMV system: L2, weight FIFOs, the unit, a driver issuing
// kInstructions GEMVs and a producer pushing their records.
class gemv_system : public sc_core::sc_module, public pccx::npu::completion_if {
 public:
  SC_HAS_PROCESS(gemv_system);
  gemv_system(sc_core::sc_module_name name, bool functional, uint32_t group)
      : sc_core::sc_module(name) {
    pccx::mem::l2_params l2p;
    l2p.functional = functional;
    l2 = std::make_unique<pccx::mem::l2_memory>(std::string(this->name()) + ".l2", l2p);
    std::vector<pccx::mem::stream_fifo*> raw;
    for (uint32_t f = 0; f < kFifos; ++f) {
      fifos.push_back(std::make_unique<pccx::mem::stream_fifo>(
          std::string(this->name()) + ".hp" + std::to_string(f + 2), 64 * 1024, functional));
      raw.push_back(fifos.back().get());
    }
    pccx::npu::gemv_unit_params gp;
    gp.section.scale_group = group;
    gemv = std::make_unique<pccx::npu::gemv_unit>("gemv", gp, *l2, raw, counters);
    // A pool of random records (the unit does not care which row is which).
    std::mt19937 rng(7);
    record_bytes = gemv->record_bytes(kK, true);
    records.assign(16, std::vector<uint8_t>(record_bytes));
    for (auto& r : records) {
      for (auto& b : r) b = static_cast<uint8_t>(rng());
      for (uint32_t g = 0; g < gemv->scales_per_row(kK); ++g) {  // scales: BF16 1/64
        r[2 * g] = 0x80;
        r[2 * g + 1] = 0x3C;
      }
    }
    if (functional) {
      std::vector<uint8_t> act(kK * 2);
      for (uint32_t i = 0; i < kK; ++i) {  // BF16 activations in [-2, 2)
        act[2 * i] = static_cast<uint8_t>(rng());
        act[2 * i + 1] = static_cast<uint8_t>(0x3F + (rng() & 0x80));
      }
      l2->debug_write(kSrc, kK / 8, act.data());
    }
    SC_THREAD(drive);
    SC_THREAD(produce);
  }

  void retire(uint64_t, uint32_t err, const std::string& detail) override {
    if (err != 0) SC_REPORT_FATAL("bench_gemv", detail.c_str());
    retired.notify(sc_core::SC_ZERO_TIME);
  }

  sc_core::sc_event go_drive, go_produce, retired;
  std::unique_ptr<pccx::mem::l2_memory> l2;
  std::vector<std::unique_ptr<pccx::mem::stream_fifo>> fifos;
  pccx::npu::perf_counters counters;
  std::unique_ptr<pccx::npu::gemv_unit> gemv;
  std::vector<std::vector<uint8_t>> records;
  uint64_t record_bytes = 0;

 private:
  void drive() {
    for (;;) {
      wait(go_drive);
      for (uint32_t i = 0; i < kInstructions; ++i) {
        pccx::npu::dispatched_instruction d;
        pccx::isa::matmul_instr mm;
        mm.dest_reg = kDst;
        mm.src_addr = kSrc;
        mm.flags = UCA_FLAG_W_SCALE;
        d.seq = i;
        d.ins = pccx::isa::instruction{pccx::isa::opcode::gemv, 0, mm};
        d.shape = {1, static_cast<uint16_t>(kN), static_cast<uint16_t>(kK)};
        d.size = {static_cast<uint16_t>(kK), 1, 1};
        gemv->start(d, *this);
        wait(retired);
      }
    }
  }
  void produce() {
    for (;;) {
      wait(go_produce);
      for (uint32_t i = 0; i < kInstructions; ++i)
        for (uint32_t n = 0; n < kN; ++n) {
          const auto& r = records[n % records.size()];
          fifos[n % kFifos]->push(r.size(), sc_core::sc_time_stamp(), r.data());
        }
    }
  }
};

struct all_systems {
  all_systems()
      : functional("functional", true, 0),
        functional_g32("functional_g32", true, 32),
        timing("timing", false, 0) {
    tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_time(1, sc_core::SC_US));
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // every thread waits for its go
  }
  gemv_system functional, functional_g32, timing;
};

all_systems& systems() {
  static all_systems s;  // elaborated on first use
  return s;
}

void run_case(benchmark::State& state, gemv_system& sys) {
  double wall_s = 0;
  const uint64_t macs_before = sys.counters.value(PCCX_PERF_GEMV_MACS);
  for (auto _ : state) {
    sys.go_drive.notify(sc_core::SC_ZERO_TIME);
    sys.go_produce.notify(sc_core::SC_ZERO_TIME);
    const auto w0 = std::chrono::steady_clock::now();
    sc_core::sc_start();
    wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  }
  const double macs = double{kInstructions} * kN * kK;
  if (sys.counters.value(PCCX_PERF_GEMV_MACS) - macs_before != macs)
    state.SkipWithError("the GEMVs did not all retire");
  state.counters["gmac_per_wall_s"] = macs / wall_s / 1e9;
  state.counters["records_per_wall_s"] = double{kInstructions} * kN / wall_s;
  state.counters["wall_ms"] = wall_s * 1e3;
}

void BM_GemvFunctional(benchmark::State& state) {
  run_case(state, systems().functional);
}
BENCHMARK(BM_GemvFunctional)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_GemvFunctionalGroup32(benchmark::State& state) {
  run_case(state, systems().functional_g32);
}
BENCHMARK(BM_GemvFunctionalGroup32)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_GemvTiming(benchmark::State& state) {
  run_case(state, systems().timing);
}
BENCHMARK(BM_GemvTiming)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
