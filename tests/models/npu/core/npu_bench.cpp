#include "npu_bench.h"

#include "pccx_isa.h"
#include "uCA_v1_api.h"

namespace pccx::test {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

fake_unit::fake_unit(sc_core::sc_module_name name, sc_time period, uint32_t latency)
    : npu::threaded_unit(name), latency_cycles(latency), period_(period) {}

fake_unit::result fake_unit::execute(const npu::dispatched_instruction& d) {
  const sc_time start = sc_core::sc_time_stamp();
  wait(latency_cycles * period_);
  runs.push_back({d, start, sc_core::sc_time_stamp()});
  if (static_cast<int64_t>(d.seq) == fault_seq) return {PCCX_ERR_UNIT_FAULT, "injected fault"};
  return {};
}

npu_bench::npu_bench(npu::npu_params p) : params(p) {
  dut = std::make_unique<npu::npu>("npu", params, nullptr);
  master = std::make_unique<mmio_master>("master");
  master->socket.bind(dut->mmio());
  dut->irq(irq);
}

npu_bench::~npu_bench() = default;

fake_unit& npu_bench::add_unit(npu::unit_kind kind, uint32_t latency_cycles) {
  auto u =
      std::make_unique<fake_unit>(npu::unit_kind_name(kind), params.core_period, latency_cycles);
  dut->bind_unit(kind, *u);
  return *units.emplace(kind, std::move(u)).first->second;
}

sc_time npu_bench::run(std::function<void(mmio_master&)> script, sc_time limit) {
  master->script = std::move(script);
  sc_core::sc_start(limit);
  return sc_core::sc_time_stamp();
}

// The model's encode(); the ISA tests check it and pccx_isa_encode.h against
// the decoder.
uint64_t memset_word(uint8_t cache, uint8_t slot, uint16_t a, uint16_t b, uint16_t c) {
  return isa::encode({isa::opcode::memset, 0, isa::memset_instr{cache, slot, a, b, c}});
}

uint64_t gemv_word(uint32_t dest, uint32_t src, uint8_t size_ptr, uint8_t shape_ptr, uint8_t flags,
                   uint8_t lanes, bool gemm) {
  return isa::encode({gemm ? isa::opcode::gemm : isa::opcode::gemv, 0,
                      isa::matmul_instr{dest, src, flags, size_ptr, shape_ptr, lanes}});
}

uint64_t cvo_word(uint8_t func, uint32_t src, uint32_t dst, uint16_t length, bool async,
                  uint8_t flags) {
  return isa::encode({isa::opcode::cvo, 0, isa::cvo_instr{func, src, dst, length, flags, async}});
}

uint64_t memcpy_word(bool from_host, bool to_host, uint32_t dest, uint32_t src, uint8_t shape_ptr,
                     bool async) {
  return isa::encode({isa::opcode::memcpy, 0,
                      isa::memcpy_instr{from_host, to_host, dest, src, 0, shape_ptr, async}});
}

}  // namespace pccx::test
