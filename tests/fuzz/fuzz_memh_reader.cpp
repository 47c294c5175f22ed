// libFuzzer harness: arbitrary text through the .memh reader, then every
// parsed word through the decoder, encoder, disassembler and listing.
// Only memh_error may leave the reader; what parses must survive the rest
// without an exception, and the tools must agree with each other.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "models/npu/isa/instruction.h"
#include "models/npu/isa/memh_reader.h"

namespace {

using namespace pccx::isa;

[[noreturn]] void violated(const char* what) {
  std::fprintf(stderr, "fuzz_memh_reader: invariant violated: %s\n", what);
  __builtin_trap();
}

// Two limit sets: the KV260 defaults and a reduced NPU, so the
// configuration-dependent checks of the decoder run both ways.
decode_limits reduced_limits() {
  decode_limits l;
  l.l2_words = 4096;
  l.gemv_cores = 1;
  l.gemv_head_parallel = false;
  l.gemv_kv_formats = false;
  l.cvo_max_length = 64;
  l.cvo_extensions = false;
  l.cache_slots = 4;
  l.enabled_banks = 0x3;
  l.kv_append = false;
  return l;
}

void check_words(const std::vector<uint64_t>& words, const decode_limits& limits) {
  for (uint64_t w : words) {
    const decode_result r = decode(w, limits);
    const std::string text = disassemble(w, limits);
    if (text.empty()) violated("empty disassembly");
    if (const auto* ins = std::get_if<instruction>(&r)) {
      // A legal word is exactly what the encoder gives back.
      if (encode(*ins) != w) violated("encode(decode(w)) != w");
      if (ins->word != w) violated("decoded instruction keeps another word");
      if (disassemble(*ins) != text) violated("the two disassemble() forms differ");
      if (text.rfind(".word", 0) == 0) violated("legal word disassembled as .word");
    } else {
      const auto& err = std::get<decode_error>(r);
      if (err.code < PCCX_ERR_UNKNOWN_OPCODE || err.code > PCCX_ERR_DMA_ADDRESS)
        violated("decode error code outside the documented 0x01..0x0D");
      if (text.rfind(".word ", 0) != 0) violated("illegal word not disassembled as .word");
    }
  }
  const std::string listing = format_listing(words, limits);
  size_t lines = 0;
  size_t pos = 0;
  while (pos < listing.size()) {
    const size_t nl = listing.find('\n', pos);
    if (nl == std::string::npos) violated("listing line without its newline");
    // "iiii: wwwwwwwwwwwwwwww  text": the word column is the parsed word.
    const size_t colon = listing.find(": ", pos);
    if (colon == std::string::npos || colon > nl) violated("listing line without index");
    const std::string hex = listing.substr(colon + 2, 16);
    if (lines >= words.size() || std::strtoull(hex.c_str(), nullptr, 16) != words[lines])
      violated("listing word differs from the parsed word");
    ++lines;
    pos = nl + 1;
  }
  if (lines != words.size()) violated("listing has another number of lines than words");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<memh_word> lines;
  try {
    std::istringstream in(text);
    lines = parse_memh_lines(in, "fuzz.memh");
  } catch (const memh_error& e) {
    // The documented "name:line: reason" or "name: reason" form.
    if (std::string(e.what()).rfind("fuzz.memh:", 0) != 0) violated("memh_error without name");
    return 0;
  }
  std::istringstream again(text);
  const std::vector<uint64_t> words = parse_memh(again, "fuzz.memh");
  if (words.size() != lines.size()) violated("parse_memh and parse_memh_lines disagree");
  size_t last_line = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].word != words[i]) violated("parse_memh and parse_memh_lines disagree");
    if (lines[i].line <= last_line) violated("line numbers not increasing");
    last_line = lines[i].line;
  }
  check_words(words, decode_limits{});
  check_words(words, reduced_limits());
  return 0;
}
