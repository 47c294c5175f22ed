// An integer that steps at simulated times known ahead: add(from, to, n)
// raises it by n during [from, to). A decoupled initiator learns when its
// transfer runs before the kernel gets there; the steps are applied when
// simulated time reaches them, so a waveform sampling value() shows them at
// their own time.
#pragma once

#include <cstdint>
#include <map>
#include <systemc>

namespace pccx::trace {

class timed_level : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(timed_level);
  // value() = sum x numerator / denominator (e.g. a rate as per mille of a
  // reference rate); the plain sum is sum().
  timed_level(sc_core::sc_module_name name, uint64_t numerator = 1, uint64_t denominator = 1);

  // Adds n during [from, to); a start before the current time counts from now.
  void add(const sc_core::sc_time& from, const sc_core::sc_time& to, uint64_t n);

  const uint64_t& value() const { return value_; }
  uint64_t sum() const { return sum_; }

 private:
  void apply();

  uint64_t numerator_, denominator_;
  std::multimap<sc_core::sc_time, int64_t> steps_;  // time -> change, in time order
  uint64_t sum_ = 0;
  uint64_t value_ = 0;
  sc_core::sc_event wake_;
};

}  // namespace pccx::trace
