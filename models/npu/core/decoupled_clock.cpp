#include "models/npu/core/decoupled_clock.h"

namespace pccx::npu {

using sc_core::sc_time;

void decoupled_clock::reset() {
  offset_ = sc_core::SC_ZERO_TIME;
  next_sync_ =
      sc_core::sc_time_stamp() + tlm::tlm_global_quantum::instance().compute_local_quantum();
}

void decoupled_clock::sync() {
  sc_core::wait(offset_);
  reset();
}

void decoupled_clock::sync_to(const sc_time& t) {
  const sc_time now = sc_core::sc_time_stamp();
  offset_ = t > now ? t - now : sc_core::SC_ZERO_TIME;
  sync();
}

void decoupled_clock::resume_at(const sc_time& t) {
  offset_ = sc_core::SC_ZERO_TIME;
  advance_to(t);
}

}  // namespace pccx::npu
