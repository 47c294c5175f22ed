// Test bench for the GEMM unit: an L2, the two weight FIFOs (hp0, hp1), the
// unit, a driver thread that starts GEMM instructions as the command
// processor does (shape/size slots already resolved) and an optional
// producer thread that feeds the FIFOs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <systemc>

#include "models/npu/units/gemm_unit.h"
#include "unit_bench.h"

namespace pccx::test {

struct gemm_bench_options : unit_bench_options {
  uint32_t fifos = 2;  // HP0, HP1
  uint64_t fifo_bytes = 64 * 1024;
  npu::gemm_unit_params gemm;
};

using gemm_outcome = unit_outcome;
using gemm_call = matmul_call;
using gemm_driver = matmul_driver;

struct gemm_bench : unit_bench {
  explicit gemm_bench(gemm_bench_options o = gemm_bench_options{});
  gemm_bench_options opt;
  std::unique_ptr<npu::gemm_unit> gemm;
  std::unique_ptr<gemm_driver> driver;

  sc_time run(std::function<void(gemm_driver&)> script,
              sc_time limit = sc_time(10, sc_core::SC_MS)) {
    return run_script(*driver, std::move(script), limit);
  }
};

}  // namespace pccx::test
