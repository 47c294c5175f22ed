#include "platform/vp/simctl/sim_control.h"

#include <cstring>

#include "pccx_simctl.h"

namespace pccx::vp {

sim_control::sim_control(sc_core::sc_module_name name, run_control& control,
                         trace::trace_hub* traces, std::ostream* console)
    : sc_core::sc_module(name),
      mmio("mmio"),
      control_(control),
      traces_(traces),
      console_(console),
      log_(sc_core::sc_module::name()) {
  mmio.register_b_transport(this, &sim_control::b_transport);
  mmio.register_transport_dbg(this, &sim_control::transport_dbg);
}

std::string sim_control::register_name(uint64_t offset) {
  switch (offset) {
    case PCCX_SIMCTL_ID: return "ID";
    case PCCX_SIMCTL_PUTC: return "PUTC";
    case PCCX_SIMCTL_MARKER_PUTC: return "MARKER_PUTC";
    case PCCX_SIMCTL_MARKER_EMIT: return "MARKER_EMIT";
    case PCCX_SIMCTL_EXIT: return "EXIT";
    case PCCX_SIMCTL_TIME_NS_LO: return "TIME_NS_LO";
    case PCCX_SIMCTL_TIME_NS_HI: return "TIME_NS_HI";
    case PCCX_SIMCTL_COUNTER_PUTC: return "COUNTER_PUTC";
    case PCCX_SIMCTL_COUNTER_LO: return "COUNTER_LO";
    case PCCX_SIMCTL_COUNTER_HI: return "COUNTER_HI";
    default: return "";
  }
}

void sim_control::b_transport(tlm::tlm_generic_payload& tx, sc_core::sc_time& delay) {
  const uint64_t offset = tx.get_address();
  if (tx.get_data_length() != 4 || (offset & 3) != 0) {
    tx.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  if (register_name(offset).empty()) {
    tx.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  uint32_t value = 0;
  const sc_core::sc_time now = sc_core::sc_time_stamp() + delay;
  tx.set_response_status(tlm::TLM_OK_RESPONSE);
  if (tx.is_read()) {
    const uint64_t ns = static_cast<uint64_t>(trace::to_ns(now));
    switch (offset) {
      case PCCX_SIMCTL_ID: value = PCCX_SIMCTL_MAGIC; break;
      case PCCX_SIMCTL_TIME_NS_LO:
        value = static_cast<uint32_t>(ns);
        time_hi_ = static_cast<uint32_t>(ns >> 32);
        break;
      case PCCX_SIMCTL_TIME_NS_HI: value = time_hi_; break;
      default: tx.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE); return;
    }
    std::memcpy(tx.get_data_ptr(), &value, 4);
    return;
  }
  std::memcpy(&value, tx.get_data_ptr(), 4);
  const char c = static_cast<char>(value & 0xFF);
  switch (offset) {
    case PCCX_SIMCTL_PUTC:
      if (c == '\n') {
        if (console_) *console_ << line_ << '\n' << std::flush;
        PCCX_LOG(log_, debug, "firmware: " << line_);
        printed_.push_back(line_);
        line_.clear();
      } else if (line_.size() < kMaxText) {
        line_ += c;
      }
      break;
    case PCCX_SIMCTL_MARKER_PUTC:
      if (marker_.size() < kMaxText) marker_ += c;
      break;
    case PCCX_SIMCTL_MARKER_EMIT:
      PCCX_LOG(log_, debug, "marker: " << marker_);
      if (traces_) traces_->marker(marker_, now);
      markers_.push_back(marker_);
      marker_times_ns_.push_back(trace::to_ns(now));
      marker_cpu_instructions_.push_back(cpu_instructions ? cpu_instructions() : 0);
      marker_events.write({marker_, now});
      marker_.clear();
      break;
    case PCCX_SIMCTL_COUNTER_PUTC:
      if (counter_name_.size() < kMaxText) counter_name_ += c;
      break;
    case PCCX_SIMCTL_COUNTER_LO: counter_lo_ = value; break;
    case PCCX_SIMCTL_COUNTER_HI: {
      const uint64_t v = (static_cast<uint64_t>(value) << 32) | counter_lo_;
      PCCX_LOG(log_, debug, "counter " << counter_name_ << " = " << v);
      if (counters.connected()) counters.write({counter_name_, v, now});
      counter_name_.clear();
      counter_lo_ = 0;
      break;
    }
    case PCCX_SIMCTL_EXIT:
      // Let simulated time reach the write before ending the run.
      wait(delay);
      delay = sc_core::SC_ZERO_TIME;
      control_.finish(static_cast<int>(value), "firmware wrote " + std::to_string(value) +
                                                   " to the sim-control EXIT register");
      // The writer is the firmware thread: park it so code after the exit
      // (often a spin loop on bare metal) never runs.
      for (;;) sc_core::wait(parked_);
    default: tx.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE); break;
  }
}

unsigned int sim_control::transport_dbg(tlm::tlm_generic_payload&) {
  return 0;
}

}  // namespace pccx::vp
