#include "npu_bench.h"

#include "pccx_isa.h"
#include "uCA_v1_api.h"

namespace pccx::test {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

mmio_master::mmio_master(sc_core::sc_module_name name)
    : sc_core::sc_module(name), socket("socket") {
  SC_THREAD(run);
}

void mmio_master::run() {
  if (script) script(*this);
  finished = true;
  sc_core::sc_stop();
}

tlm::tlm_response_status mmio_master::access(tlm::tlm_command cmd, uint64_t offset, uint32_t& data,
                                             unsigned length) {
  uint64_t buffer[2] = {data, 0};
  tlm::tlm_generic_payload tx;
  tx.set_command(cmd);
  tx.set_address(offset);
  tx.set_data_ptr(reinterpret_cast<unsigned char*>(buffer));
  tx.set_data_length(length);
  tx.set_streaming_width(length);
  tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_time delay = SC_ZERO_TIME;
  socket->b_transport(tx, delay);
  if (delay > SC_ZERO_TIME) wait(delay);
  data = static_cast<uint32_t>(buffer[0]);
  return tx.get_response_status();
}

void mmio_master::write32(uint32_t offset, uint32_t value) {
  if (access(tlm::TLM_WRITE_COMMAND, offset, value) != tlm::TLM_OK_RESPONSE)
    throw std::runtime_error("write failed at offset " + std::to_string(offset));
}

uint32_t mmio_master::read32(uint32_t offset) {
  uint32_t v = 0;
  if (access(tlm::TLM_READ_COMMAND, offset, v) != tlm::TLM_OK_RESPONSE)
    throw std::runtime_error("read failed at offset " + std::to_string(offset));
  return v;
}

void mmio_master::issue(uint64_t word) {
  write32(UCA_REG_INSTR_LO, static_cast<uint32_t>(word));
  write32(UCA_REG_INSTR_HI, static_cast<uint32_t>(word >> 32));
}

void mmio_master::issue_ahead(uint64_t word, sc_time offset) {
  write32(UCA_REG_INSTR_LO, static_cast<uint32_t>(word));
  uint32_t hi = static_cast<uint32_t>(word >> 32);
  tlm::tlm_generic_payload tx;
  tx.set_command(tlm::TLM_WRITE_COMMAND);
  tx.set_address(UCA_REG_INSTR_HI);
  tx.set_data_ptr(reinterpret_cast<unsigned char*>(&hi));
  tx.set_data_length(4);
  tx.set_streaming_width(4);
  tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  socket->b_transport(tx, offset);  // the offset stays unwaited: the caller runs ahead
  if (tx.get_response_status() != tlm::TLM_OK_RESPONSE)
    throw std::runtime_error("INSTR_HI write failed");
}

uint64_t mmio_master::read64(uint32_t lo_offset) {
  const uint64_t lo = read32(lo_offset);
  return lo | (static_cast<uint64_t>(read32(lo_offset + 4)) << 32);
}

uint32_t mmio_master::wait_not_busy() {
  for (;;) {
    const uint32_t s = read32(UCA_REG_STATUS);
    if (!(s & UCA_STAT_BUSY) || (s & PCCX_STAT_ERROR)) return s;
    wait(sc_time(10, sc_core::SC_NS));
  }
}

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

// The model's own encoder: the ISA suite checks it against the firmware's.
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
