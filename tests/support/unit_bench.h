// What the execution-unit test benches (GEMV, GEMM, SFU) share: a driver
// thread that starts instructions on one unit as the command processor does,
// a second thread for a producer, and an L2 on the unit's clock that the
// test fills and reads back as BF16. Each unit's bench adds its unit, its
// options and its way of writing an instruction.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <utility>
#include <vector>

#include "models/memory/dma/stream_fifo.h"
#include "models/memory/l2/l2_memory.h"
#include "models/npu/core/execution_unit.h"
#include "models/npu/core/perf_counters.h"
#include "models/npu/isa/instruction.h"

namespace pccx::test {

using sc_core::sc_time;

inline sc_time ns(double v) {
  return sc_time(v, sc_core::SC_NS);
}

// What one directly started instruction did.
struct unit_outcome {
  uint32_t err = 0;
  std::string detail;
  sc_time start, retire;
  double cycles(sc_time period = ns(2.5)) const { return (retire - start) / period; }
};

// Runs `script` in its own thread (sc_stop when it returns) and starts
// instructions on one unit as the command processor does: one at a time,
// each retired before the script goes on.
class unit_driver : public sc_core::sc_module, public npu::completion_if {
 public:
  SC_HAS_PROCESS(unit_driver);
  unit_driver(sc_core::sc_module_name name, npu::execution_unit_if& unit);
  std::function<void()> script;
  // Starts `d` (numbered in issue order) and waits until the unit retires it.
  unit_outcome execute(npu::dispatched_instruction d);
  unit_outcome execute(const isa::instruction& ins);
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

// A GEMV or GEMM as the command processor hands it to its unit, the
// shape and size slots already resolved.
struct matmul_call {
  uint32_t M = 1, N = 0, K = 0;
  uint32_t src = 0, dst = 0;
  uint8_t flags = 0;
  uint8_t lanes = 0;
  std::array<uint16_t, 3> size{};  // (X, Y, Z); all zero: (K, M, 1)
};

// A driver for a GEMV or GEMM unit: starts matmul_calls with opcode `op`.
class matmul_driver : public unit_driver {
 public:
  matmul_driver(sc_core::sc_module_name name, npu::execution_unit_if& unit, isa::opcode op);
  using unit_driver::execute;
  unit_outcome execute(const matmul_call& c);

 private:
  isa::opcode op_;
};

// A thread that runs `body` (if set) alongside the driver, e.g. a producer
// that feeds weight FIFOs at its own pace.
class bench_thread : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(bench_thread);
  explicit bench_thread(sc_core::sc_module_name name);
  std::function<void()> body;

 private:
  void run() {
    if (body) body();
  }
};

struct unit_bench_options {
  bool functional = true;  // the L2 (and the unit, and its FIFOs) keep bytes
  mem::l2_params l2;
  sc_time quantum = sc_time(1, sc_core::SC_US);
};

// The unit-independent part of a bench. A unit's bench derives from it and
// builds, in this order: make_l2, its FIFOs (make_fifos), its unit, its
// driver and, if it has one, the producer.
class unit_bench {
 public:
  std::unique_ptr<mem::l2_memory> l2;
  std::vector<std::unique_ptr<mem::stream_fifo>> fifos;  // weight FIFOs, if the unit has any
  npu::perf_counters counters;
  std::unique_ptr<bench_thread> producer;

  // BF16 elements in the L2 (debug access), 8 per word from element 0 of `word`.
  void put(uint32_t word, const std::vector<uint16_t>& elements);
  std::vector<uint16_t> get(uint32_t word, uint32_t elements) const;

 protected:
  // Sets the global quantum and builds the L2 on the unit's clock, functional
  // as the bench (o.l2 is updated to what the L2 got).
  void make_l2(unit_bench_options& o, sc_time core_period);
  // `count` FIFOs of `bytes` each, named hp<first_hp>, hp<first_hp + 1>, ...
  std::vector<mem::stream_fifo*> make_fifos(uint32_t count, uint32_t first_hp, uint64_t bytes,
                                            bool functional);
  // Runs until the script ends (sc_stop) or `limit`; returns the simulated time.
  template <class Driver>
  static sc_time run_script(Driver& driver, std::function<void(Driver&)> script, sc_time limit) {
    driver.script = [&driver, s = std::move(script)] { s(driver); };
    return simulate(limit);
  }
  static sc_time simulate(sc_time limit);
};

}  // namespace pccx::test
