// Test bench for the GEMM unit: an L2, F weight FIFOs, the unit, a driver
// thread that starts GEMM instructions as the command processor does
// (shape/size slots already resolved) and an optional producer thread that
// feeds the FIFOs.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "memory/dma/stream_fifo.h"
#include "memory/l2/l2_memory.h"
#include "npu/core/execution_unit.h"
#include "npu/core/perf_counters.h"
#include "npu/units/gemm_unit.h"

namespace pccx::test {

using sc_core::sc_time;

inline sc_time ns(double v) {
  return sc_time(v, sc_core::SC_NS);
}

struct gemm_bench_options {
  bool functional = true;
  uint32_t fifos = 2;  // HP0, HP1
  uint64_t fifo_bytes = 64 * 1024;
  npu::gemm_unit_params gemm;
  mem::l2_params l2;
  sc_time quantum = sc_time(1, sc_core::SC_US);
};

struct gemm_outcome {
  uint32_t err = 0;
  std::string detail;
  sc_time start, retire;
  double cycles(sc_time period = ns(2.5)) const { return (retire - start) / period; }
};

struct gemm_call {
  uint32_t M = 1, N = 0, K = 0;
  uint32_t src = 0, dst = 0;
  uint8_t flags = 0;
  uint8_t lanes = 0;
  std::array<uint16_t, 3> size{};  // (X, Y, Z); all zero: (K, M, 1)
};

class gemm_driver : public sc_core::sc_module, public npu::completion_if {
 public:
  SC_HAS_PROCESS(gemm_driver);
  gemm_driver(sc_core::sc_module_name name, npu::execution_unit_if& unit);
  std::function<void(gemm_driver&)> script;
  gemm_outcome execute(const gemm_call& c);
  void retire(uint64_t seq, uint32_t err, const std::string& detail) override;

 private:
  void run();
  npu::execution_unit_if& unit_;
  uint64_t seq_ = 0;
  bool retired_ = false;
  uint32_t err_ = 0;
  std::string detail_;
  sc_core::sc_event retired_event_;
};

class gemm_producer : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(gemm_producer);
  explicit gemm_producer(sc_core::sc_module_name name);
  std::function<void()> body;

 private:
  void run() {
    if (body) body();
  }
};

struct gemm_bench {
  explicit gemm_bench(gemm_bench_options o = gemm_bench_options{});
  ~gemm_bench();
  gemm_bench_options opt;
  std::unique_ptr<mem::l2_memory> l2;
  std::vector<std::unique_ptr<mem::stream_fifo>> fifos;
  npu::perf_counters counters;
  std::unique_ptr<npu::gemm_unit> gemm;
  std::unique_ptr<gemm_driver> driver;
  std::unique_ptr<gemm_producer> producer;

  sc_time run(std::function<void(gemm_driver&)> script,
              sc_time limit = sc_time(10, sc_core::SC_MS));

  void put(uint32_t word, const std::vector<uint16_t>& elements);
  std::vector<uint16_t> get(uint32_t word, uint32_t elements) const;
};

}  // namespace pccx::test
