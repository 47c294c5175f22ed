// Test bench for the GEMV unit: an L2, F weight FIFOs (hp2, hp3, ...), the
// unit, a driver thread that starts GEMV instructions as the command
// processor does (shape/size slots already resolved) and an optional
// producer thread that feeds the FIFOs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <systemc>

#include "models/npu/units/gemv_unit.h"
#include "unit_bench.h"

namespace pccx::test {

struct gemv_bench_options : unit_bench_options {
  uint32_t fifos = 2;
  uint64_t fifo_bytes = 64 * 1024;
  npu::gemv_unit_params gemv;
};

using gemv_outcome = unit_outcome;
using gemv_call = matmul_call;
using gemv_driver = matmul_driver;

struct gemv_bench : unit_bench {
  // The default options are the members' own: no temporary options object,
  // whose moved-from vector GCC 12 reports as maybe uninitialised.
  gemv_bench();
  explicit gemv_bench(gemv_bench_options o);
  gemv_bench_options opt;
  std::unique_ptr<npu::gemv_unit> gemv;
  std::unique_ptr<gemv_driver> driver;

  sc_time run(std::function<void(gemv_driver&)> script,
              sc_time limit = sc_time(10, sc_core::SC_MS)) {
    return run_script(*driver, std::move(script), limit);
  }

 private:
  void build();
};

}  // namespace pccx::test
