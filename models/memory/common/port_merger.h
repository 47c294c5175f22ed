// Several initiators sharing one DDR port, as the ACP_FMAP and ACP_RESULT
// channels share the ACP: forwards every transaction unchanged (the DDR
// controller's port accounting and caps see them as one port).
#pragma once

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <systemc>
#include <tlm>

namespace pccx::mem {

class port_merger : public sc_core::sc_module {
 public:
  explicit port_merger(sc_core::sc_module_name name);

  tlm_utils::multi_passthrough_target_socket<port_merger> in;
  tlm_utils::simple_initiator_socket<port_merger> out;

 private:
  void b_transport(int id, tlm::tlm_generic_payload& tx, sc_core::sc_time& delay);
  unsigned int transport_dbg(int id, tlm::tlm_generic_payload& tx);
};

}  // namespace pccx::mem
