// The platform's traces, by name. Models ask the hub for a channel and write
// only when it is enabled; markers from firmware go into every open channel so
// each trace can be cut by "token 3 layer 12 begins" on its own.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <systemc>

#include "traces/jsonl_trace.h"

namespace pccx::trace {

class trace_hub {
 public:
  // Opens channel `name` writing to `path`; an empty path leaves it off.
  void open(const std::string& name, const std::string& path);
  // The channel, or nullptr when it is off.
  jsonl_trace* channel(const std::string& name) const;
  void marker(const std::string& text, const sc_core::sc_time& when);
  // Puts every trace file in place; throws io::output_error for the first
  // that could not be written (after closing the others).
  void close_all();

 private:
  std::map<std::string, std::unique_ptr<jsonl_trace>> channels_;
};

// Kernel ticks in a nanosecond (the time resolution, read once).
double ticks_per_ns();

// Every trace stamps time in nanoseconds, computed from the integer tick
// count so that 682.5 ns prints as 682.5, not 682.5000000000001. Inline: the
// DDR model converts every transaction's times.
inline double to_ns(const sc_core::sc_time& t) {
  static const double per_ns = ticks_per_ns();
  return static_cast<double>(t.value()) / per_ns;
}

// to_ns() for a model that converts on every transaction (the DDR
// controller, its recorder): the resolution is read when the converter is
// made, so a conversion is one division, with no guard and no call.
class ns_converter {
 public:
  double operator()(const sc_core::sc_time& t) const {
    return static_cast<double>(t.value()) / per_ns_;
  }

 private:
  double per_ns_ = ticks_per_ns();
};

}  // namespace pccx::trace
