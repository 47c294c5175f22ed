#include "sfu_bench.h"

namespace pccx::test {

sfu_outcome sfu_driver::execute(const isa::cvo_instr& cv) {
  return execute(isa::instruction{isa::opcode::cvo, cvo_word(cv), cv});
}

sfu_bench::sfu_bench(sfu_bench_options o) : opt(std::move(o)) {
  make_l2(opt, opt.npu.core_period);
  opt.sfu.core_period = opt.npu.core_period;
  if (opt.with_npu) {
    npu = std::make_unique<npu::npu>("npu", opt.npu, nullptr);
    npu->irq(irq);
    sfu = std::make_unique<npu::sfu_unit>("sfu", opt.sfu, *l2, npu->counters());
    npu->bind_unit(npu::unit_kind::sfu, *sfu);
    master = std::make_unique<mmio_master>("master");
    master->socket.bind(npu->mmio());
  } else {
    sfu = std::make_unique<npu::sfu_unit>("sfu", opt.sfu, *l2, counters);
    driver = std::make_unique<sfu_driver>("driver", *sfu);
  }
}

sc_time sfu_bench::run_npu(std::function<void(mmio_master&)> script, sc_time limit) {
  master->script = std::move(script);
  return simulate(limit);
}

isa::cvo_instr cvo(uint8_t func, uint32_t src, uint32_t dst, uint16_t length, uint8_t flags,
                   bool async) {
  isa::cvo_instr c;
  c.func = func;
  c.src = src;
  c.dst = dst;
  c.length = length;
  c.flags = flags;
  c.async = async;
  return c;
}

uint64_t cvo_word(const isa::cvo_instr& c) {
  return isa::encode(isa::instruction{isa::opcode::cvo, 0, c});
}

}  // namespace pccx::test
