// The temporally decoupled local time of a unit's thread, kept as a
// tlm_quantumkeeper keeps it (an offset ahead of the kernel and the next
// sync point of the global quantum), with the moves every unit makes. A unit
// runs ahead of the kernel (reserving L2 and FIFO time at its local time)
// and yields only when the global quantum is used up or when it must see
// another thread's work.
//
// Written out rather than wrapping tlm_quantumkeeper: a GEMV advances its
// clock once per weight record, millions of times per decoded token, and the
// keeper's virtual calls each read the kernel time again.
#pragma once

#include <tlm.h>

#include <systemc>

namespace pccx::npu {

class decoupled_clock {
 public:
  // Local time = kernel time, a fresh quantum: at the start of an instruction.
  void reset();
  sc_core::sc_time local() const { return sc_core::sc_time_stamp() + offset_; }

  // Local time forward to t (never back); syncs when the quantum is used up.
  void advance_to(const sc_core::sc_time& t) {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (t > now + offset_) offset_ = t - now;
    if (now + offset_ >= next_sync_) sync();
  }
  // Waits in kernel time until the kernel reaches t (or no time, if it has).
  void sync_to(const sc_core::sc_time& t);
  // After the thread waited in kernel time (which moved the kernel past its
  // old local time): local time becomes the later of the kernel's and `t`.
  void resume_at(const sc_core::sc_time& t);

 private:
  void sync();  // waits out the offset, then reset()

  sc_core::sc_time offset_;     // local time - kernel time
  sc_core::sc_time next_sync_;  // kernel time of the end of the quantum
};

}  // namespace pccx::npu
