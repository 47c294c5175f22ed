// A tick count as sc_core::sc_time, computed inline: the DDR controller
// times each transaction and a DMA channel each block of a coalesced one
// from tick counts, and sc_time::from_value is a call into the library.
// A one-tick sc_time scaled by the count is the same time, as sc_time's own
// scaling (times the count, plus one half, truncated) is exact below 2^52
// ticks (75 minutes at 1 ps); beyond that the library builds it.
#pragma once

#include <cstdint>
#include <systemc>

namespace pccx {

class ticks_as_time {
 public:
  sc_core::sc_time operator()(uint64_t ticks) const {
    return ticks < kExact ? tick_ * static_cast<double>(ticks)
                          : sc_core::sc_time::from_value(ticks);
  }

 private:
  static constexpr uint64_t kExact = uint64_t{1} << 52;
  sc_core::sc_time tick_ = sc_core::sc_time::from_value(1);
};

}  // namespace pccx
