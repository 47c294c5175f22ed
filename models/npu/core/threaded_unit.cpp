#include "models/npu/core/threaded_unit.h"

#include <stdexcept>

namespace pccx::npu {

threaded_unit::threaded_unit(sc_core::sc_module_name name) : sc_core::sc_module(name) {
  SC_THREAD(run);
}

void threaded_unit::start(const dispatched_instruction& d, completion_if& done) {
  if (pending_)
    throw std::logic_error(std::string(name()) + ": started while busy (occupancy violated)");
  pending_ = d;
  done_ = &done;
  start_event_.notify(sc_core::SC_ZERO_TIME);
}

void threaded_unit::run() {
  for (;;) {
    while (!pending_) wait(start_event_);
    const result r = execute(*pending_);
    const uint64_t seq = pending_->seq;
    pending_.reset();
    done_->retire(seq, r.err, r.detail);
  }
}

}  // namespace pccx::npu
