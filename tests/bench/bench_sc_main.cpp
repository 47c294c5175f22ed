// Entry of the benchmark executables: libsystemc owns main and calls
// sc_main, which hands over to Google Benchmark. The platform's own output
// is kept to warnings so that only the benchmark table prints.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <systemc>

#include "infra/log/logger.h"

int sc_main(int argc, char** argv) {
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
  pccx::log::log_config::instance().set_default(pccx::log::level::warning);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// Ahead of libsystemc's main, so the banner can be switched off first.
int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
