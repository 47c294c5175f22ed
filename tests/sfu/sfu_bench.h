// Test bench for the SFU: an L2, the SFU unit and either a direct driver
// (starts CVO instructions on the unit, as the command processor does) or a
// whole NPU with an MMIO master issuing instruction words.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "memory/l2/l2_memory.h"
#include "mmio_master.h"
#include "npu/core/execution_unit.h"
#include "npu/core/npu.h"
#include "npu/core/perf_counters.h"
#include "npu/isa/instruction.h"
#include "npu/units/sfu_unit.h"

namespace pccx::test {

using sc_core::sc_time;

inline sc_time ns(double v) {
  return sc_time(v, sc_core::SC_NS);
}

struct sfu_bench_options {
  bool functional = true;  // L2 stores bytes
  bool with_npu = false;
  npu::sfu_unit_params sfu;
  mem::l2_params l2;
  npu::npu_params npu;
  sc_time quantum = sc_time(1, sc_core::SC_US);
};

// What one directly started instruction did.
struct sfu_outcome {
  uint32_t err = 0;
  std::string detail;
  sc_time start, retire;
  double cycles(sc_time period = ns(2.5)) const { return (retire - start) / period; }
};

// Runs a script in a thread and retires instructions started on the unit.
class sfu_driver : public sc_core::sc_module, public npu::completion_if {
 public:
  SC_HAS_PROCESS(sfu_driver);
  sfu_driver(sc_core::sc_module_name name, npu::execution_unit_if& unit);
  std::function<void(sfu_driver&)> script;
  // Starts one CVO (or any instruction) and waits until it retires.
  sfu_outcome execute(const isa::cvo_instr& cv);
  sfu_outcome execute(const isa::instruction& ins);
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

struct sfu_bench {
  explicit sfu_bench(sfu_bench_options o = sfu_bench_options{});
  ~sfu_bench();
  sfu_bench_options opt;
  std::unique_ptr<mem::l2_memory> l2;
  npu::perf_counters counters;  // direct mode; with an NPU, the NPU's
  std::unique_ptr<npu::npu> npu;
  std::unique_ptr<npu::sfu_unit> sfu;
  std::unique_ptr<sfu_driver> driver;   // direct mode
  std::unique_ptr<mmio_master> master;  // with an NPU
  sc_core::sc_signal<bool> irq{"irq"};

  npu::perf_counters& perf() { return npu ? npu->counters() : counters; }
  // Runs the script (sc_stop at its end) or until `limit`; returns sim time.
  sc_time run(std::function<void(sfu_driver&)> script, sc_time limit = sc_time(1, sc_core::SC_MS));
  sc_time run_npu(std::function<void(mmio_master&)> script,
                  sc_time limit = sc_time(1, sc_core::SC_MS));

  // BF16 elements in the L2 (debug access), 8 per word from element 0 of `word`.
  void put(uint32_t word, const std::vector<uint16_t>& elements);
  std::vector<uint16_t> get(uint32_t word, uint32_t elements) const;
};

isa::cvo_instr cvo(uint8_t func, uint32_t src, uint32_t dst, uint16_t length, uint8_t flags = 0,
                   bool async = false);
uint64_t cvo_word(const isa::cvo_instr& c);

}  // namespace pccx::test
