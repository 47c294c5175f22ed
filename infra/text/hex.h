// Hexadecimal text for messages and traces, one definition for the whole
// tree: hex(0x1f) = "0x1f", hex(w, 16) = "0x000000000000001f" (an instruction
// word), hex_upper(0x1f) = "0x1F".
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>

namespace pccx::text {

// At least `digits` digits, zero-padded, lower case.
inline std::string hex(std::uint64_t value, int digits = 1) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%0*" PRIx64, digits, value);
  return buf;
}

inline std::string hex_upper(std::uint64_t value, int digits = 1) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%0*" PRIX64, digits, value);
  return buf;
}

// A 64-bit instruction word, all 16 digits.
inline std::string hex_word(std::uint64_t word) {
  return hex(word, 16);
}

}  // namespace pccx::text
