// A scripted MMIO master for test benches: stands in for the CPU, runs a
// script in its own SC_THREAD and stops the simulation when it ends.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>

#include <cstdint>
#include <functional>
#include <systemc>
#include <tlm>

namespace pccx::test {

class mmio_master : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(mmio_master);
  explicit mmio_master(sc_core::sc_module_name name);

  tlm_utils::simple_initiator_socket<mmio_master> socket;
  std::function<void(mmio_master&)> script;
  bool finished = false;
  uint64_t accesses = 0;

  // One access; the returned delay is waited out (no decoupling).
  tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t offset, uint32_t& data,
                                  unsigned length = 4, bool debug = false);
  void write32(uint32_t offset, uint32_t value);  // throws on an error response
  uint32_t read32(uint32_t offset);               // throws on an error response
  uint64_t read64(uint32_t lo_offset);            // LO then HI
  void issue(uint64_t word);                      // INSTR_LO, INSTR_HI
  // Issues with the HI write carrying a local-time offset, as a decoupled CPU does.
  void issue_ahead(uint64_t word, sc_core::sc_time offset);
  // Polls the NPU's STATUS until BUSY clears or ERROR is set.
  uint32_t wait_not_busy();

 protected:
  virtual void started() {}

 private:
  void run();
};

}  // namespace pccx::test
