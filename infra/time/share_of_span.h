// floor(span x part / whole) for tick and byte counts, exact: the DMA
// channels time each block of a coalesced transaction by it, and the
// bandwidth recorder spreads each transfer over its windows by it.
#pragma once

#include <cstdint>

namespace pccx {

// whole > 0. The product is formed in 64 bits when it fits (a transfer
// of microseconds in picoseconds times a few kilobytes always does) and
// in 128 bits otherwise, so the quotient is the same either way; the
// 64-bit division is a machine instruction, the 128-bit one a library call.
inline uint64_t share_of_span(uint64_t span, uint64_t part, uint64_t whole) {
  if (part == 0 || span <= UINT64_MAX / part) return span * part / whole;
  return static_cast<uint64_t>(static_cast<unsigned __int128>(span) * part / whole);
}

}  // namespace pccx
