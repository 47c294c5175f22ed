// Reader for .memh instruction streams (one 64-bit word per line, 16 hex
// digits, no prefix; blank lines and // or # comments ignored; @address
// records rejected) and a listing formatter. Format: docs/reference/isa.md.
#pragma once

#include <cstdint>
#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/npu/isa/instruction.h"

namespace pccx::isa {

// Thrown on any malformed line or unreadable file; what() is
// "path:line: reason: 'text'" (or "path: reason" for file errors).
class memh_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::vector<uint64_t> read_memh(const std::string& path);

// The same parser over a stream; `name` stands for the path in messages.
std::vector<uint64_t> parse_memh(std::istream& in, const std::string& name);

// A word with the 1-based line it was read from, for tools that report
// what happened to a word against the file (pccx-vp replay).
struct memh_word {
  uint64_t word = 0;
  size_t line = 0;
};

std::vector<memh_word> read_memh_lines(const std::string& path);
std::vector<memh_word> parse_memh_lines(std::istream& in, const std::string& name);

// One line per word: "0000: 3000000000000000  MEMSET fmap_shape[0] <- (0, 0, 0)"
// (index in hex, at least 4 digits; word in 16 lowercase hex digits; two
// spaces; disassembly), each line ending in '\n'.
std::string format_listing(const std::vector<uint64_t>& words, const decode_limits& limits);

}  // namespace pccx::isa
