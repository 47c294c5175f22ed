// The kernel's current time, as sc_core::sc_time_stamp() returns it, but
// inline: sc_time_stamp() is a call into the SystemC library (through the
// PLT) for a field read, and the models' hot paths (a DDR transaction, a
// FIFO pop, a quantum's sync) ask for it millions of times a run.
#pragma once

#include <systemc>

namespace pccx {

inline const sc_core::sc_time& kernel_time() {
  return sc_core::sc_get_curr_simcontext()->time_stamp();
}

}  // namespace pccx
