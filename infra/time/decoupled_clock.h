// The temporally decoupled local time of a model's thread (the NPU's units,
// the DMA channels), kept as a tlm_quantumkeeper keeps it (a local time ahead
// of the kernel and the next sync point of the global quantum). A thread
// runs ahead of the kernel (reserving L2, FIFO and DDR time at its local
// time) and yields only when the global quantum is used up or when it must
// see another thread's work.
//
// Written out rather than wrapping tlm_quantumkeeper: a GEMV advances its
// clock once per weight record and a DMA channel several times per DDR
// transaction, millions of times per decoded token, and the keeper's
// virtual calls each read the kernel time again. Here the local time
// is absolute and the kernel time is read only where the thread may have
// waited: in sync(), and in refresh() or resume_at() after a wait outside
// the clock.
#pragma once

#include <tlm.h>

#include <systemc>

namespace pccx {

class decoupled_clock {
 public:
  // The quantum of this clock's thread; zero (the default) follows the
  // global quantum (simulation.quantum_ns).
  void set_quantum(const sc_core::sc_time& q) { quantum_ = q; }
  const sc_core::sc_time& quantum() const { return quantum_; }
  // Local time = kernel time, a fresh quantum: at the start of an instruction.
  void reset();
  const sc_core::sc_time& local() const { return local_; }

  // Local time forward to t (never back); syncs when the quantum is used up.
  void advance_to(const sc_core::sc_time& t) {
    move_to(t);
    if (quantum_used()) sync();
  }
  // Local time forward to t (never back), leaving the sync to the caller.
  void move_to(const sc_core::sc_time& t) {
    if (t > local_) local_ = t;
  }
  bool quantum_used() const { return local_ >= next_sync_; }
  // Waits until the kernel reaches the local time, then reset().
  void sync();
  // Waits in kernel time until the kernel reaches t (or no time, if it has).
  void sync_to(const sc_core::sc_time& t);
  // After the thread waited outside the clock (a blocking FIFO call, which
  // comes after sync_to): local time is the kernel's. The quantum is kept.
  void refresh();
  // After the thread waited in kernel time (which moved the kernel past its
  // old local time): local time becomes the later of the kernel's and `t`.
  void resume_at(const sc_core::sc_time& t);

 private:
  sc_core::sc_time local_;      // the thread's local time, >= kernel time
  sc_core::sc_time next_sync_;  // kernel time of the end of the quantum
  sc_core::sc_time quantum_;    // zero: the global quantum
};

}  // namespace pccx
