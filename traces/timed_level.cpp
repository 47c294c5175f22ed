#include "traces/timed_level.h"

#include <algorithm>
#include <stdexcept>

namespace pccx::trace {

timed_level::timed_level(sc_core::sc_module_name name, uint64_t numerator, uint64_t denominator)
    : sc_core::sc_module(name), numerator_(numerator), denominator_(denominator) {
  if (denominator_ == 0) throw std::invalid_argument(std::string(name) + ": zero denominator");
  SC_METHOD(apply);
  sensitive << wake_;
  dont_initialize();
}

void timed_level::add(const sc_core::sc_time& from, const sc_core::sc_time& to, uint64_t n) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const sc_core::sc_time start = std::max(from, now);
  if (n == 0 || to <= start) return;
  steps_.emplace(start, static_cast<int64_t>(n));
  steps_.emplace(to, -static_cast<int64_t>(n));
  // An earlier notification replaces a later pending one.
  wake_.notify(steps_.begin()->first - now);
}

void timed_level::apply() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  while (!steps_.empty() && steps_.begin()->first <= now) {
    sum_ += static_cast<uint64_t>(steps_.begin()->second);
    steps_.erase(steps_.begin());
  }
  value_ = sum_ * numerator_ / denominator_;
  if (!steps_.empty()) wake_.notify(steps_.begin()->first - now);
}

}  // namespace pccx::trace
