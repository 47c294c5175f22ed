// The sim-control device (registers in firmware/include/pccx_simctl.h):
// firmware prints lines, drops markers into every trace, reports counters
// and ends the run.
// Accesses cost no simulated time and have no effect on the NPU.
#pragma once

#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "infra/log/logger.h"
#include "infra/trace/analysis_port.h"
#include "infra/trace/trace_hub.h"
#include "platform/vp/top/run_control.h"

namespace pccx::vp {

class sim_control : public sc_core::sc_module {
 public:
  sim_control(sc_core::sc_module_name name, run_control& control, trace::trace_hub* traces,
              std::ostream* console);

  tlm_utils::simple_target_socket<sim_control> mmio;

  const std::vector<std::string>& printed() const { return printed_; }
  const std::vector<std::string>& markers() const { return markers_; }
  // Simulated time of each marker, ns (same order as markers()).
  const std::vector<double>& marker_times_ns() const { return marker_times_ns_; }
  // Instructions the firmware CPU had retired at each marker (an AArch64
  // ELF; 0 for host code), from the source the platform wires in.
  const std::vector<uint64_t>& marker_cpu_instructions() const { return marker_cpu_instructions_; }
  std::function<uint64_t()> cpu_instructions;
  // Each counter sample as the firmware writes it.
  struct counter_sample {
    std::string name;
    uint64_t value;
    sc_core::sc_time at;
  };
  trace::analysis_port<counter_sample> counters;
  // Each marker as the firmware drops it (to read the platform's state at
  // a point of the program, e.g. the end of a phase).
  struct marker_record {
    std::string text;
    sc_core::sc_time at;
  };
  trace::analysis_port<marker_record> marker_events;
  static std::string register_name(uint64_t offset);

 private:
  void b_transport(tlm::tlm_generic_payload& tx, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& tx);

  run_control& control_;
  trace::trace_hub* traces_;
  std::ostream* console_;
  log::logger log_;
  std::string line_, marker_;
  std::vector<std::string> printed_, markers_;
  std::vector<double> marker_times_ns_;
  std::vector<uint64_t> marker_cpu_instructions_;
  uint32_t time_hi_ = 0;
  std::string counter_name_;
  uint32_t counter_lo_ = 0;
  sc_core::sc_event parked_;                // never notified
  static constexpr size_t kMaxText = 4096;  // a runaway print loop must not eat memory
};

}  // namespace pccx::vp
