// The temporally decoupled local time of a unit's thread: a
// tlm_quantumkeeper with the moves every unit makes. A unit runs ahead of the
// kernel (reserving L2 and FIFO time at its local time) and yields only when
// the global quantum is used up or when it must see another thread's work.
#pragma once

#include <tlm.h>  // before the quantum keeper, which does not include it
#include <tlm_utils/tlm_quantumkeeper.h>

#include <systemc>

namespace pccx::npu {

class decoupled_clock {
 public:
  // Local time = kernel time, a fresh quantum: at the start of an instruction.
  void reset() { qk_.reset(); }
  sc_core::sc_time local() const { return qk_.get_current_time(); }

  // Local time forward to t (never back); syncs when the quantum is used up.
  void advance_to(const sc_core::sc_time& t);
  // Waits in kernel time until the kernel reaches t (or no time, if it has).
  void sync_to(const sc_core::sc_time& t);
  // After the thread waited in kernel time (which moved the kernel past its
  // old local time): local time becomes the later of the kernel's and `t`.
  void resume_at(const sc_core::sc_time& t);

 private:
  tlm_utils::tlm_quantumkeeper qk_;
};

}  // namespace pccx::npu
