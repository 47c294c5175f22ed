// std::llround for a non-negative tick count, inline: the DDR model rounds
// a duration to whole ticks once or twice per transaction, and the library
// call costs more than the arithmetic around it.
#pragma once

#include <cstdint>

namespace pccx {

// x >= 0 (and below 2^63). The truncation and x minus it are exact below
// 2^52; from there on x is whole. Halves round up, as llround's do.
inline uint64_t round_ticks(double x) {
  auto r = static_cast<uint64_t>(x);
  if (x - static_cast<double>(r) >= 0.5) ++r;
  return r;
}

}  // namespace pccx
