#include "gemv_bench.h"

namespace pccx::test {

gemv_bench::gemv_bench() {
  build();
}

gemv_bench::gemv_bench(gemv_bench_options o) : opt(std::move(o)) {
  build();
}

void gemv_bench::build() {
  make_l2(opt, opt.gemv.core_period);
  const auto raw = make_fifos(opt.fifos, 2, opt.fifo_bytes, opt.functional);
  gemv = std::make_unique<npu::gemv_unit>("gemv", opt.gemv, *l2, raw, counters);
  driver = std::make_unique<gemv_driver>("driver", *gemv, isa::opcode::gemv);
  producer = std::make_unique<bench_thread>("producer");
}

}  // namespace pccx::test
