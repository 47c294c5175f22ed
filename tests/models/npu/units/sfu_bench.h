// Test bench for the SFU: an L2, the SFU unit and either a direct driver
// (starts CVO instructions on the unit, as the command processor does) or a
// whole NPU with an MMIO master issuing instruction words.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <systemc>

#include "mmio_master.h"
#include "models/npu/isa/instruction.h"
#include "models/npu/npu.h"
#include "models/npu/units/sfu_unit.h"
#include "unit_bench.h"

namespace pccx::test {

struct sfu_bench_options : unit_bench_options {
  bool with_npu = false;
  npu::sfu_unit_params sfu;
  npu::npu_params npu;
};

using sfu_outcome = unit_outcome;

// Starts CVO instructions (or any instruction) on the SFU.
class sfu_driver : public unit_driver {
 public:
  using unit_driver::execute;
  using unit_driver::unit_driver;
  sfu_outcome execute(const isa::cvo_instr& cv);
};

struct sfu_bench : unit_bench {
  explicit sfu_bench(sfu_bench_options o = sfu_bench_options{});
  sfu_bench_options opt;
  std::unique_ptr<npu::npu> npu;
  std::unique_ptr<npu::sfu_unit> sfu;
  std::unique_ptr<sfu_driver> driver;   // direct mode
  std::unique_ptr<mmio_master> master;  // with an NPU
  sc_core::sc_signal<bool> irq{"irq"};

  // The counters the SFU adds to: the bench's in direct mode, else the NPU's.
  npu::perf_counters& perf() { return npu ? npu->counters() : counters; }
  // Runs the script (sc_stop at its end) or until `limit`; returns sim time.
  sc_time run(std::function<void(sfu_driver&)> script, sc_time limit = sc_time(1, sc_core::SC_MS)) {
    return run_script(*driver, std::move(script), limit);
  }
  sc_time run_npu(std::function<void(mmio_master&)> script,
                  sc_time limit = sc_time(1, sc_core::SC_MS));
};

isa::cvo_instr cvo(uint8_t func, uint32_t src, uint32_t dst, uint16_t length, uint8_t flags = 0,
                   bool async = false);
uint64_t cvo_word(const isa::cvo_instr& c);

}  // namespace pccx::test
