// The tick count of sc_core::sc_time(ns, SC_NS), computed inline: the DDR
// model turns the DRAM's answer (in nanoseconds) into kernel time once per
// transaction, and the library constructor costs a division and a call for
// a multiply and a round.
#pragma once

#include <cstdint>
#include <systemc>

namespace pccx {

class ns_to_ticks {
 public:
  // Reads the kernel's time resolution, which is fixed from then on.
  ns_to_ticks() {
    const sc_core::sc_time::value_type one = sc_core::sc_time(1.0, sc_core::SC_NS).value();
    // A resolution of 1 ns or finer is a whole number of ticks per ns (a
    // power of ten), which is the library's scale exactly; coarser ones are
    // left to the library.
    per_ns_ = one >= 1 ? static_cast<double>(one) : 0.0;
  }

  // ns >= 0, as sc_time takes it: scaled, plus one half, truncated. The
  // volatile keeps the sum from being fused with the product, as the
  // library's does.
  uint64_t operator()(double ns) const {
    if (per_ns_ == 0.0) return sc_core::sc_time(ns, sc_core::SC_NS).value();
    volatile double scaled = ns * per_ns_ + 0.5;
    return static_cast<uint64_t>(static_cast<int64_t>(scaled));
  }

 private:
  double per_ns_ = 0.0;
};

}  // namespace pccx
