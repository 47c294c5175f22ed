// Test executables that link SystemC enter through sc_main (libsystemc owns
// main); this one hands control to GoogleTest. Every test runs in its own
// process (gtest_discover_tests), because SystemC elaborates once.
#include <gtest/gtest.h>

#include <cstdlib>
#include <systemc>

int sc_main(int argc, char** argv) {
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
