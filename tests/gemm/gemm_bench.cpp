#include "gemm_bench.h"

#include <tlm_utils/tlm_quantumkeeper.h>

#include "npu/units/bf16.h"

namespace pccx::test {

gemm_driver::gemm_driver(sc_core::sc_module_name name, npu::execution_unit_if& unit)
    : sc_core::sc_module(name), unit_(unit) {
  SC_THREAD(run);
}

void gemm_driver::run() {
  if (script) script(*this);
  sc_core::sc_stop();
}

gemm_outcome gemm_driver::execute(const gemm_call& c) {
  npu::dispatched_instruction d;
  d.seq = seq_++;
  isa::matmul_instr mm;
  mm.dest_reg = c.dst;
  mm.src_addr = c.src;
  mm.flags = c.flags;
  mm.lanes = c.lanes;
  d.ins = isa::instruction{isa::opcode::gemm, 0, mm};
  d.shape = {static_cast<uint16_t>(c.M), static_cast<uint16_t>(c.N), static_cast<uint16_t>(c.K)};
  d.size = c.size;
  if (c.size[0] == 0 && c.size[1] == 0 && c.size[2] == 0)
    d.size = {static_cast<uint16_t>(c.K), static_cast<uint16_t>(c.M), 1};
  gemm_outcome o;
  o.start = sc_core::sc_time_stamp();
  retired_ = false;
  unit_.start(d, *this);
  while (!retired_) wait(retired_event_);
  o.retire = sc_core::sc_time_stamp();
  o.err = err_;
  o.detail = detail_;
  return o;
}

void gemm_driver::retire(uint64_t, uint32_t err, const std::string& detail) {
  retired_ = true;
  err_ = err;
  detail_ = detail;
  retired_event_.notify(sc_core::SC_ZERO_TIME);
}

gemm_producer::gemm_producer(sc_core::sc_module_name name) : sc_core::sc_module(name) {
  SC_THREAD(run);
}

gemm_bench::gemm_bench(gemm_bench_options o) : opt(std::move(o)) {
  tlm_utils::tlm_quantumkeeper::set_global_quantum(opt.quantum);
  opt.l2.functional = opt.functional;
  opt.l2.period = opt.gemm.core_period;
  opt.gemm.functional = opt.functional;
  l2 = std::make_unique<mem::l2_memory>("l2", opt.l2);
  std::vector<mem::stream_fifo*> raw;
  for (uint32_t i = 0; i < opt.fifos; ++i) {
    fifos.push_back(std::make_unique<mem::stream_fifo>("hp" + std::to_string(i), opt.fifo_bytes,
                                                       opt.functional));
    raw.push_back(fifos.back().get());
  }
  gemm = std::make_unique<npu::gemm_unit>("gemm", opt.gemm, *l2, raw, counters);
  driver = std::make_unique<gemm_driver>("driver", *gemm);
  producer = std::make_unique<gemm_producer>("producer");
}

gemm_bench::~gemm_bench() = default;

sc_time gemm_bench::run(std::function<void(gemm_driver&)> script, sc_time limit) {
  driver->script = std::move(script);
  sc_core::sc_start(limit);
  return sc_core::sc_time_stamp();
}

void gemm_bench::put(uint32_t word, const std::vector<uint16_t>& elements) {
  const uint32_t words = static_cast<uint32_t>((elements.size() + 7) / 8);
  std::vector<uint8_t> bytes(size_t{words} * 16, 0);
  l2->debug_read(word, words, bytes.data());
  for (size_t i = 0; i < elements.size(); ++i) npu::bf16::store(bytes.data(), i, elements[i]);
  l2->debug_write(word, words, bytes.data());
}

std::vector<uint16_t> gemm_bench::get(uint32_t word, uint32_t elements) const {
  const uint32_t words = (elements + 7) / 8;
  std::vector<uint8_t> bytes(size_t{words} * 16);
  l2->debug_read(word, words, bytes.data());
  std::vector<uint16_t> v(elements);
  for (uint32_t i = 0; i < elements; ++i) v[i] = npu::bf16::load(bytes.data(), i);
  return v;
}

}  // namespace pccx::test
