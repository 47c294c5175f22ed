#include "unit_bench.h"

#include <tlm_utils/tlm_quantumkeeper.h>

#include "models/npu/units/bf16.h"

namespace pccx::test {

unit_driver::unit_driver(sc_core::sc_module_name name, npu::execution_unit_if& unit)
    : sc_core::sc_module(name), unit_(unit) {
  SC_THREAD(run);
}

void unit_driver::run() {
  if (script) script();
  sc_core::sc_stop();
}

unit_outcome unit_driver::execute(npu::dispatched_instruction d) {
  d.seq = seq_++;
  unit_outcome o;
  o.start = sc_core::sc_time_stamp();
  retired_ = false;
  unit_.start(d, *this);
  while (!retired_) wait(retired_event_);
  o.retire = sc_core::sc_time_stamp();
  o.err = err_;
  o.detail = detail_;
  return o;
}

unit_outcome unit_driver::execute(const isa::instruction& ins) {
  npu::dispatched_instruction d;
  d.ins = ins;
  return execute(std::move(d));
}

void unit_driver::retire(uint64_t, uint32_t err, const std::string& detail) {
  retired_ = true;
  err_ = err;
  detail_ = detail;
  retired_event_.notify(sc_core::SC_ZERO_TIME);
}

matmul_driver::matmul_driver(sc_core::sc_module_name name, npu::execution_unit_if& unit,
                             isa::opcode op)
    : unit_driver(name, unit), op_(op) {}

unit_outcome matmul_driver::execute(const matmul_call& c) {
  npu::dispatched_instruction d;
  isa::matmul_instr mm;
  mm.dest_reg = c.dst;
  mm.src_addr = c.src;
  mm.flags = c.flags;
  mm.lanes = c.lanes;
  d.ins = isa::instruction{op_, 0, mm};
  d.shape = {static_cast<uint16_t>(c.M), static_cast<uint16_t>(c.N), static_cast<uint16_t>(c.K)};
  d.size = c.size;
  if (c.size[0] == 0 && c.size[1] == 0 && c.size[2] == 0)
    d.size = {static_cast<uint16_t>(c.K), static_cast<uint16_t>(c.M), 1};
  return execute(std::move(d));
}

bench_thread::bench_thread(sc_core::sc_module_name name) : sc_core::sc_module(name) {
  SC_THREAD(run);
}

void unit_bench::make_l2(unit_bench_options& o, sc_time core_period) {
  tlm_utils::tlm_quantumkeeper::set_global_quantum(o.quantum);
  o.l2.functional = o.functional;
  o.l2.period = core_period;
  l2 = std::make_unique<mem::l2_memory>("l2", o.l2);
}

std::vector<mem::stream_fifo*> unit_bench::make_fifos(uint32_t count, uint32_t first_hp,
                                                      uint64_t bytes, bool functional) {
  std::vector<mem::stream_fifo*> raw;
  for (uint32_t i = 0; i < count; ++i) {
    fifos.push_back(
        std::make_unique<mem::stream_fifo>("hp" + std::to_string(first_hp + i), bytes, functional));
    raw.push_back(fifos.back().get());
  }
  return raw;
}

sc_time unit_bench::simulate(sc_time limit) {
  sc_core::sc_start(limit);
  return sc_core::sc_time_stamp();
}

void unit_bench::put(uint32_t word, const std::vector<uint16_t>& elements) {
  const uint32_t words = static_cast<uint32_t>((elements.size() + 7) / 8);
  std::vector<uint8_t> bytes(size_t{words} * 16, 0);
  l2->debug_read(word, words, bytes.data());  // keep the tail of a partial word
  for (size_t i = 0; i < elements.size(); ++i) npu::bf16::store(bytes.data(), i, elements[i]);
  l2->debug_write(word, words, bytes.data());
}

std::vector<uint16_t> unit_bench::get(uint32_t word, uint32_t elements) const {
  const uint32_t words = (elements + 7) / 8;
  std::vector<uint8_t> bytes(size_t{words} * 16);
  l2->debug_read(word, words, bytes.data());
  std::vector<uint16_t> v(elements);
  for (uint32_t i = 0; i < elements; ++i) v[i] = npu::bf16::load(bytes.data(), i);
  return v;
}

}  // namespace pccx::test
