#include "models/memory/common/port_merger.h"

namespace pccx::mem {

port_merger::port_merger(sc_core::sc_module_name name)
    : sc_core::sc_module(name), in("in"), out("out") {
  in.register_b_transport(this, &port_merger::b_transport);
  in.register_transport_dbg(this, &port_merger::transport_dbg);
}

void port_merger::b_transport(int, tlm::tlm_generic_payload& tx, sc_core::sc_time& delay) {
  out->b_transport(tx, delay);
}

unsigned int port_merger::transport_dbg(int, tlm::tlm_generic_payload& tx) {
  return out->transport_dbg(tx);
}

}  // namespace pccx::mem
