// The L2 scratchpad: URAM of `words` 128-bit words (114,688 = 1.75 MiB on
// the KV260), true dual-port. Port 0 is the ACP side (MEMCPY to and from the
// host), port 1 the compute side (GEMV/GEMM/CVO and the source of an L2->L2
// MEMCPY). Each port moves one word per core clock.
//
// Timing is a reservation per port (busy-until), so callers can be
// temporally decoupled: an access asks for `words` consecutive cycles on a
// port starting no earlier than `earliest` and gets its completion time
// back; nothing waits. A write completes when its last word is written
// (start + words cycles); a read completes when its last word's data is out
// of the URAM pipeline (start + words + read_latency cycles), the first word
// being available at start + (1 + read_latency) cycles.
//
// Functional mode stores the bytes (allocated only then); timing mode keeps
// no data. Word N holds bytes 16N..16N+15, stored little endian as given.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <systemc>
#include <vector>

#include "models/memory/l2/l2_config.h"

namespace pccx::mem {

// An access beyond the last word; units turn it into PCCX_ERR_L2_RANGE.
class l2_range_error : public std::out_of_range {
 public:
  l2_range_error(const std::string& what, uint64_t first, uint64_t words, uint32_t size)
      : std::out_of_range(what), first_word(first), word_count(words), l2_words(size) {}
  uint64_t first_word;
  uint64_t word_count;
  uint32_t l2_words;
};

struct l2_params {
  config::l2_config section;  // npu.l2: words, ports (1: shared), read latency
  sc_core::sc_time period = sc_core::sc_time(2.5, sc_core::SC_NS);  // core clock
  bool functional = true;                                           // simulation.mode
};

class l2_memory {
 public:
  static constexpr uint32_t kWordBytes = 16;
  static constexpr unsigned kAcpPort = 0;
  static constexpr unsigned kComputePort = 1;

  struct port_stats {
    uint64_t words_read = 0;
    uint64_t words_written = 0;
    sc_core::sc_time busy;  // cycles reserved, as time
  };

  l2_memory(std::string name, const l2_params& params);

  // Reserve `words` cycles on `port` from max(earliest, port free) on and
  // move the words (data/out may be nullptr: timing only). Returns the
  // completion time. Throws l2_range_error past the last word and
  // std::invalid_argument for a port number above 1 or zero words.
  sc_core::sc_time read(unsigned port, uint32_t first_word, uint32_t words, uint8_t* out,
                        const sc_core::sc_time& earliest);
  sc_core::sc_time write(unsigned port, uint32_t first_word, uint32_t words, const uint8_t* data,
                         const sc_core::sc_time& earliest);

  // Time the port's last reservation ends.
  sc_core::sc_time port_free_at(unsigned port) const;

  // Loader and test access: no time, no port. In timing mode reads give
  // zeros and writes are dropped. Range-checked like the timed accesses.
  void debug_read(uint32_t first_word, uint32_t words, uint8_t* out) const;
  void debug_write(uint32_t first_word, uint32_t words, const uint8_t* data);

  const std::string& name() const { return name_; }
  const l2_params& params() const { return params_; }
  uint32_t words() const { return params_.section.words; }
  bool functional() const { return params_.functional; }
  const port_stats& statistics(unsigned port) const;

 private:
  // Inline: the units make millions of accesses per decoded token; the
  // refusals are out of line.
  unsigned physical(unsigned port) const {
    if (port > 1) refuse_port(port);
    // A single-ported L2 serves both sides on port 0.
    return std::min(port, params_.section.ports - 1);
  }
  void check(uint64_t first_word, uint64_t words, const char* what) const {
    if (words == 0 || first_word >= params_.section.words ||
        words > params_.section.words - first_word)
      refuse_range(first_word, words, what);
  }
  [[noreturn]] void refuse_port(unsigned port) const;
  [[noreturn]] void refuse_range(uint64_t first_word, uint64_t words, const char* what) const;
  // n core clock cycles as time.
  sc_core::sc_time cycles(uint32_t n) const;
  // Books `occupied` on the port from `earliest` or when it is free; the start.
  sc_core::sc_time reserve(unsigned port, const sc_core::sc_time& occupied,
                           const sc_core::sc_time& earliest);
  // The bytes of words already checked (functional mode: copied; timing: zeros, dropped).
  void copy_out(uint32_t first_word, uint32_t words, uint8_t* out) const;
  void copy_in(uint32_t first_word, uint32_t words, const uint8_t* data);

  std::string name_;
  l2_params params_;
  std::vector<uint8_t> data_;  // functional mode only
  std::array<sc_core::sc_time, 2> free_at_{};
  std::array<port_stats, 2> stats_{};
};

}  // namespace pccx::mem
