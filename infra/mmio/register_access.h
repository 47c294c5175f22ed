// The TLM side of a bank of 32-bit registers, shared by every register
// bank in the platform (NPU, DMA pages):
//  - only aligned 32-bit accesses without byte enables (else a burst error);
//  - a read first catches up with the caller's local time, so state is read
//    at the moment of the access and not up to a quantum early;
//  - debug writes have no effect (command error);
//  - an offset the bank does not know is an address error, a register that
//    refuses the access's direction is a command error.
// The bank supplies read(offset, value, debug), write(offset, value, delay)
// and exists(offset).
#pragma once

#include <cstdint>
#include <cstring>
#include <systemc>
#include <tlm>

namespace pccx::mmio {

template <class Read, class Write, class Exists>
bool access_registers(tlm::tlm_generic_payload& tx, sc_core::sc_time* delay, Read&& read,
                      Write&& write, Exists&& exists) {
  const uint64_t offset = tx.get_address();
  if (tx.get_data_length() != 4 || (offset & 3) != 0 || tx.get_byte_enable_ptr()) {
    tx.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return false;
  }
  const auto refuse = [&] {
    tx.set_response_status(exists(static_cast<uint32_t>(offset)) ? tlm::TLM_COMMAND_ERROR_RESPONSE
                                                                 : tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  };
  uint32_t value = 0;
  if (tx.is_read()) {
    if (delay && *delay > sc_core::SC_ZERO_TIME) {
      sc_core::wait(*delay);
      *delay = sc_core::SC_ZERO_TIME;
    }
    if (!read(static_cast<uint32_t>(offset), value, delay == nullptr)) return refuse();
    std::memcpy(tx.get_data_ptr(), &value, 4);
  } else if (tx.is_write()) {
    std::memcpy(&value, tx.get_data_ptr(), 4);
    if (!delay || !write(static_cast<uint32_t>(offset), value, *delay)) return refuse();
  }
  tx.set_response_status(tlm::TLM_OK_RESPONSE);
  return true;
}

}  // namespace pccx::mmio
