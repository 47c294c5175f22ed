#include "sfu_bench.h"

#include <tlm_utils/tlm_quantumkeeper.h>

#include "npu/units/bf16.h"

namespace pccx::test {

sfu_driver::sfu_driver(sc_core::sc_module_name name, npu::execution_unit_if& unit)
    : sc_core::sc_module(name), unit_(unit) {
  SC_THREAD(run);
}

void sfu_driver::run() {
  if (script) script(*this);
  sc_core::sc_stop();
}

sfu_outcome sfu_driver::execute(const isa::cvo_instr& cv) {
  return execute(isa::instruction{isa::opcode::cvo, cvo_word(cv), cv});
}

sfu_outcome sfu_driver::execute(const isa::instruction& ins) {
  npu::dispatched_instruction d;
  d.seq = seq_++;
  d.ins = ins;
  sfu_outcome o;
  o.start = sc_core::sc_time_stamp();
  retired_ = false;
  unit_.start(d, *this);
  while (!retired_) wait(retired_event_);
  o.retire = sc_core::sc_time_stamp();
  o.err = err_;
  o.detail = detail_;
  return o;
}

void sfu_driver::retire(uint64_t, uint32_t err, const std::string& detail) {
  retired_ = true;
  err_ = err;
  detail_ = detail;
  retired_event_.notify(sc_core::SC_ZERO_TIME);
}

sfu_bench::sfu_bench(sfu_bench_options o) : opt(std::move(o)) {
  tlm_utils::tlm_quantumkeeper::set_global_quantum(opt.quantum);
  opt.l2.functional = opt.functional;
  opt.l2.period = opt.npu.core_period;
  opt.sfu.core_period = opt.npu.core_period;
  l2 = std::make_unique<mem::l2_memory>("l2", opt.l2);
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

sfu_bench::~sfu_bench() = default;

sc_time sfu_bench::run(std::function<void(sfu_driver&)> script, sc_time limit) {
  driver->script = std::move(script);
  sc_core::sc_start(limit);
  return sc_core::sc_time_stamp();
}

sc_time sfu_bench::run_npu(std::function<void(mmio_master&)> script, sc_time limit) {
  master->script = std::move(script);
  sc_core::sc_start(limit);
  return sc_core::sc_time_stamp();
}

void sfu_bench::put(uint32_t word, const std::vector<uint16_t>& elements) {
  const uint32_t words = static_cast<uint32_t>((elements.size() + 7) / 8);
  std::vector<uint8_t> bytes(size_t{words} * 16, 0);
  l2->debug_read(word, words, bytes.data());  // keep the tail of a partial word
  for (size_t i = 0; i < elements.size(); ++i) npu::bf16::store(bytes.data(), i, elements[i]);
  l2->debug_write(word, words, bytes.data());
}

std::vector<uint16_t> sfu_bench::get(uint32_t word, uint32_t elements) const {
  const uint32_t words = (elements + 7) / 8;
  std::vector<uint8_t> bytes(size_t{words} * 16);
  l2->debug_read(word, words, bytes.data());
  std::vector<uint16_t> v(elements);
  for (uint32_t i = 0; i < elements; ++i) v[i] = npu::bf16::load(bytes.data(), i);
  return v;
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
