#include "mmio_master.h"

#include <stdexcept>
#include <string>

#include "pccx_npu_regs.h"

namespace pccx::test {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

mmio_master::mmio_master(sc_core::sc_module_name name)
    : sc_core::sc_module(name), socket("socket") {
  SC_THREAD(run);
}

void mmio_master::run() {
  started();
  if (script) script(*this);
  finished = true;
  sc_core::sc_stop();
}

tlm::tlm_response_status mmio_master::access(tlm::tlm_command cmd, uint64_t offset, uint32_t& data,
                                             unsigned length, bool debug) {
  uint64_t buffer[2] = {data, 0};
  tlm::tlm_generic_payload tx;
  tx.set_command(cmd);
  tx.set_address(offset);
  tx.set_data_ptr(reinterpret_cast<unsigned char*>(buffer));
  tx.set_data_length(length);
  tx.set_streaming_width(length);
  tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  ++accesses;
  if (debug) {
    socket->transport_dbg(tx);
  } else {
    sc_time delay = SC_ZERO_TIME;
    socket->b_transport(tx, delay);
    if (delay > SC_ZERO_TIME) wait(delay);
  }
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

uint64_t mmio_master::read64(uint32_t lo_offset) {
  const uint64_t lo = read32(lo_offset);
  return lo | (static_cast<uint64_t>(read32(lo_offset + 4)) << 32);
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

uint32_t mmio_master::wait_not_busy() {
  for (;;) {
    const uint32_t s = read32(UCA_REG_STATUS);
    if (!(s & UCA_STAT_BUSY) || (s & PCCX_STAT_ERROR)) return s;
    wait(sc_time(10, sc_core::SC_NS));
  }
}

}  // namespace pccx::test
