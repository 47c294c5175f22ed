#include "infra/time/decoupled_clock.h"

#include "infra/time/kernel_time.h"

namespace pccx {

using sc_core::sc_time;

void decoupled_clock::reset() {
  local_ = kernel_time();
  // The next multiple of the quantum (this clock's own, or the global one):
  // what tlm_global_quantum::compute_local_quantum() gives, without its
  // library calls (sc_time's own arithmetic is inline). A zero global
  // quantum syncs at every step.
  const sc_time& q =
      quantum_ != sc_core::SC_ZERO_TIME ? quantum_ : tlm::tlm_global_quantum::instance().get();
  next_sync_ = q == sc_core::SC_ZERO_TIME ? local_ : local_ - local_ % q + q;
}

void decoupled_clock::sync() {
  const sc_time now = kernel_time();
  sc_core::wait(local_ > now ? local_ - now : sc_core::SC_ZERO_TIME);
  reset();
}

void decoupled_clock::sync_to(const sc_time& t) {
  const sc_time now = kernel_time();
  local_ = t > now ? t : now;
  sync();
}

void decoupled_clock::refresh() {
  local_ = kernel_time();
}

void decoupled_clock::resume_at(const sc_time& t) {
  local_ = kernel_time();
  advance_to(t);
}

}  // namespace pccx
