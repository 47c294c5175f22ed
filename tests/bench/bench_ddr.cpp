// Speed of the DDR controller model: 1 GiB streamed through the four HP ports
// (256 MiB each) in timing mode, at the DMA's default block size (4096 bytes)
// and at 64 bytes (one DDR burst). Each case reports the simulated bandwidth,
// wall time, simulated/wall ratio and transactions per wall second.
//
// The system is elaborated once (SystemC allows one elaboration per process);
// each case restarts the same initiators and calls sc_start() again, so the
// cases can run in one process:
//   build/tests/bench/pccx_bench_ddr
//   build/tests/bench/pccx_bench_ddr --benchmark_filter=BM_DdrStream/64
#include <benchmark/benchmark.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <systemc>

#include "infra/log/logger.h"
#include "models/memory/ddr/ddr_controller.h"
#include "platform/config/platform_config.h"
#include "platform/vp/top/memory_params.h"

namespace {

using pccx::mem::ddr_port;
using sc_core::sc_time;

constexpr uint64_t kTotalBytes = 1ull << 30;
constexpr size_t kStreams = 4;

// A DMA channel keeping its port busy: the next block arrives when the
// previous transfer ends. Waits for `go`, streams `bytes`, waits again.
class hp_stream : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(hp_stream);
  hp_stream(sc_core::sc_module_name name, ddr_port port, sc_time read_latency)
      : sc_core::sc_module(name), socket("socket"), port_(port), latency_(read_latency) {
    SC_THREAD(run);
  }
  tlm_utils::simple_initiator_socket<hp_stream> socket;
  sc_core::sc_event go;
  bool pending = false;  // a run was requested (set before notifying go)
  uint64_t bytes = 0;
  uint32_t block = 4096;
  uint64_t transactions = 0;
  sc_time last_completion;

 private:
  void run() {
    tlm::tlm_generic_payload tr;
    tr.set_extension(new pccx::mem::ddr_traffic(port_, pccx::mem::traffic_class::weights));
    tr.set_command(tlm::TLM_READ_COMMAND);
    tr.set_data_ptr(nullptr);  // timing mode
    tlm_utils::tlm_quantumkeeper qk;
    const uint64_t base = static_cast<uint64_t>(port_) * (kTotalBytes / kStreams);
    for (;;) {
      while (!pending) wait(go);
      pending = false;
      qk.reset();
      for (uint64_t off = 0; off < bytes; off += block) {
        tr.set_address(base + off);
        tr.set_data_length(block);
        tr.set_streaming_width(block);
        tr.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_time delay = qk.get_local_time();
        socket->b_transport(tr, delay);
        if (!tr.is_response_ok()) SC_REPORT_FATAL("bench_ddr", "DDR access failed");
        ++transactions;
        const sc_time now = sc_core::sc_time_stamp();
        last_completion = now + delay;
        qk.set(last_completion - latency_ - now);
        if (qk.need_sync()) qk.sync();
      }
      const sc_time now = sc_core::sc_time_stamp();
      if (last_completion > now) wait(last_completion - now);
    }
  }
  ddr_port port_;
  sc_time latency_;
};

struct bench_system {
  bench_system() {
    pccx::config::platform_config cfg;
    cfg.simulation.mode = pccx::config::sim_mode::timing;
    const auto params = pccx::vp::make_ddr_params(cfg);
    tlm::tlm_global_quantum::instance().set(
        sc_time(static_cast<double>(cfg.simulation.quantum_ns), sc_core::SC_NS));
    ddr = std::make_unique<pccx::mem::ddr_controller>("ddr", params);
    for (size_t i = 0; i < kStreams; ++i) {
      const auto port = static_cast<ddr_port>(i);
      streams[i] = std::make_unique<hp_stream>(
          (std::string("dma_") + pccx::mem::ddr_port_name(port)).c_str(), port,
          params.read_latency);
      streams[i]->socket.bind(ddr->port(port));
    }
  }
  std::unique_ptr<pccx::mem::ddr_controller> ddr;
  std::array<std::unique_ptr<hp_stream>, kStreams> streams;
};

bench_system& the_system() {
  static bench_system sys;  // elaborated on first use
  return sys;
}

void BM_DdrStream(benchmark::State& state) {
  bench_system& sys = the_system();
  const auto block = static_cast<uint32_t>(state.range(0));
  double sim_s = 0, wall_s = 0;
  uint64_t transactions = 0;
  for (auto _ : state) {
    uint64_t before = 0;
    for (auto& s : sys.streams) {
      before += s->transactions;
      s->bytes = kTotalBytes / kStreams;
      s->block = block;
      s->pending = true;
      s->go.notify(sc_core::SC_ZERO_TIME);
    }
    const sc_time t0 = sc_core::sc_time_stamp();
    const auto w0 = std::chrono::steady_clock::now();
    sc_core::sc_start();
    wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    sim_s = (sc_core::sc_time_stamp() - t0).to_seconds();
    transactions = 0;
    for (auto& s : sys.streams) transactions += s->transactions;
    transactions -= before;
  }
  state.counters["sim_gbps"] = static_cast<double>(kTotalBytes) / sim_s / 1e9;
  state.counters["sim_ms"] = sim_s * 1e3;
  state.counters["wall_s"] = wall_s;
  state.counters["sim_per_wall"] = sim_s / wall_s;
  state.counters["transactions"] = static_cast<double>(transactions);
  state.counters["transactions_per_s"] = static_cast<double>(transactions) / wall_s;
  state.counters["timeline_breakpoints"] =
      static_cast<double>(sys.ddr->scheduler().timeline().breakpoints());
}
BENCHMARK(BM_DdrStream)
    ->Arg(4096)
    ->Arg(64)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
