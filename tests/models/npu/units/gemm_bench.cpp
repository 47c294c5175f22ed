#include "gemm_bench.h"

namespace pccx::test {

gemm_bench::gemm_bench(gemm_bench_options o) : opt(std::move(o)) {
  make_l2(opt, opt.gemm.core_period);
  const auto raw = make_fifos(opt.fifos, 0, opt.fifo_bytes, opt.functional);
  gemm = std::make_unique<npu::gemm_unit>("gemm", opt.gemm, *l2, raw, counters);
  driver = std::make_unique<gemm_driver>("driver", *gemm, isa::opcode::gemm);
  producer = std::make_unique<bench_thread>("producer");
}

}  // namespace pccx::test
