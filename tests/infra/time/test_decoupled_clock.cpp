// decoupled_clock: a thread's local time runs ahead of the kernel's and is
// synchronised at the end of the global quantum (or of its own, where the
// thread has one), or on request; after a wait outside the clock, refresh()
// and resume_at() read the kernel's time.
#include "infra/time/decoupled_clock.h"

#include <gtest/gtest.h>

#include <functional>
#include <systemc>
#include <tlm>

namespace {

using sc_core::sc_time;
using sc_core::SC_NS;

sc_time ns(double v) { return sc_time(v, SC_NS); }

SC_MODULE(clock_thread) {
  std::function<void()> body;
  SC_CTOR(clock_thread) { SC_THREAD(run); }
  void run() { body(); }
};

// Runs `body` in a thread with a global quantum of 1 us.
void run_thread(std::function<void()> body) {
  tlm::tlm_global_quantum::instance().set(ns(1000));
  clock_thread t("t");
  t.body = std::move(body);
  sc_core::sc_start();
}

TEST(DecoupledClock, RunsAheadWithinTheQuantumAndSyncsAtItsEnd) {
  run_thread([] {
    pccx::decoupled_clock c;
    sc_core::wait(ns(200));
    c.reset();  // the quantum ends at the next 1 us boundary
    EXPECT_EQ(c.local(), ns(200));
    c.advance_to(ns(900));
    EXPECT_EQ(c.local(), ns(900));
    EXPECT_EQ(sc_core::sc_time_stamp(), ns(200)) << "no wait inside the quantum";
    c.advance_to(ns(500));  // never back
    EXPECT_EQ(c.local(), ns(900));
    c.move_to(ns(1200));  // past the quantum, but no sync of its own
    EXPECT_TRUE(c.quantum_used());
    EXPECT_EQ(sc_core::sc_time_stamp(), ns(200));
    c.advance_to(ns(1300));  // syncs: the kernel catches up with the local time
    EXPECT_EQ(sc_core::sc_time_stamp(), ns(1300));
    EXPECT_EQ(c.local(), ns(1300));
    EXPECT_FALSE(c.quantum_used());  // a fresh quantum, to 2 us
    c.sync_to(ns(1250));  // already past: no time
    EXPECT_EQ(sc_core::sc_time_stamp(), ns(1300));
    c.sync_to(ns(1700));
    EXPECT_EQ(sc_core::sc_time_stamp(), ns(1700));
  });
}

TEST(DecoupledClock, RefreshAndResumeReadTheKernelTimeAfterAWaitOutsideTheClock) {
  run_thread([] {
    pccx::decoupled_clock c;
    c.reset();
    c.sync_to(ns(100));
    sc_core::wait(ns(400));  // a blocking FIFO call, say
    EXPECT_EQ(c.local(), ns(100)) << "the clock does not see the wait by itself";
    c.refresh();
    EXPECT_EQ(c.local(), ns(500));
    c.advance_to(ns(600));
    sc_core::wait(ns(300));  // the kernel is now at 800
    c.resume_at(ns(700));    // earlier than the kernel: the kernel's time
    EXPECT_EQ(c.local(), ns(800));
    c.resume_at(ns(950));
    EXPECT_EQ(c.local(), ns(950));
    EXPECT_EQ(sc_core::sc_time_stamp(), ns(800));
  });
}

TEST(DecoupledClock, AQuantumOfItsOwnAlignsItsSyncsToThatQuantum) {
  run_thread([] {
    pccx::decoupled_clock c;
    c.set_quantum(ns(10000));  // the GEMV's: ten global quanta
    EXPECT_EQ(c.quantum(), ns(10000));
    sc_core::wait(ns(2500));
    c.reset();  // the quantum ends at 10 us, not at the global 3 us
    c.advance_to(ns(9000));
    EXPECT_EQ(sc_core::sc_time_stamp(), ns(2500)) << "no sync inside its own quantum";
    EXPECT_FALSE(c.quantum_used());
    c.advance_to(ns(10000));
    EXPECT_EQ(sc_core::sc_time_stamp(), ns(10000));
    c.advance_to(ns(19999));
    EXPECT_EQ(sc_core::sc_time_stamp(), ns(10000));
    c.set_quantum(sc_core::SC_ZERO_TIME);  // back to the global quantum
    c.sync();
    EXPECT_EQ(sc_core::sc_time_stamp(), ns(19999));
    c.advance_to(ns(20000));  // the next global boundary
    EXPECT_EQ(sc_core::sc_time_stamp(), ns(20000));
  });
}

// A zero global quantum (no temporal decoupling): every step syncs, as
// tlm_global_quantum::compute_local_quantum() would have it.
TEST(DecoupledClock, AZeroGlobalQuantumSyncsAtEveryStep) {
  tlm::tlm_global_quantum::instance().set(sc_core::SC_ZERO_TIME);
  clock_thread t("t");
  t.body = [] {
    pccx::decoupled_clock c;
    sc_core::wait(ns(200));
    c.reset();
    EXPECT_TRUE(c.quantum_used()) << "no room to run ahead";
    c.advance_to(ns(250));
    EXPECT_EQ(sc_core::sc_time_stamp(), ns(250));
    EXPECT_EQ(c.local(), ns(250));
    c.advance_to(ns(400));
    EXPECT_EQ(sc_core::sc_time_stamp(), ns(400));
  };
  sc_core::sc_start();
}

}  // namespace
