#include "infra/time/decoupled_clock.h"

namespace pccx {

using sc_core::sc_time;

void decoupled_clock::reset() {
  local_ = sc_core::sc_time_stamp();
  if (quantum_ == sc_core::SC_ZERO_TIME) {
    next_sync_ = local_ + tlm::tlm_global_quantum::instance().compute_local_quantum();
    return;
  }
  // The next multiple of the quantum, as the global quantum aligns its syncs.
  const sc_core::sc_time::value_type q = quantum_.value();
  next_sync_ = sc_time::from_value((local_.value() / q + 1) * q);
}

void decoupled_clock::sync() {
  const sc_time now = sc_core::sc_time_stamp();
  sc_core::wait(local_ > now ? local_ - now : sc_core::SC_ZERO_TIME);
  reset();
}

void decoupled_clock::sync_to(const sc_time& t) {
  const sc_time now = sc_core::sc_time_stamp();
  local_ = t > now ? t : now;
  sync();
}

void decoupled_clock::refresh() { local_ = sc_core::sc_time_stamp(); }

void decoupled_clock::resume_at(const sc_time& t) {
  local_ = sc_core::sc_time_stamp();
  advance_to(t);
}

}  // namespace pccx
