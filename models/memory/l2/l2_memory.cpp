#include "models/memory/l2/l2_memory.h"

#include <algorithm>
#include <cstring>

namespace pccx::mem {

using sc_core::sc_time;

l2_memory::l2_memory(std::string name, const l2_params& params)
    : name_(std::move(name)), params_(params) {
  if (params_.section.words == 0 || params_.section.ports == 0 || params_.section.ports > 2)
    throw std::invalid_argument(name_ + ": L2 needs at least one word and 1 or 2 ports");
  if (params_.functional) data_.assign(static_cast<size_t>(params_.section.words) * kWordBytes, 0);
}

void l2_memory::refuse_port(unsigned port) const {
  throw std::invalid_argument(name_ + ": no L2 port " + std::to_string(port));
}

void l2_memory::refuse_range(uint64_t first_word, uint64_t words, const char* what) const {
  if (words == 0) throw std::invalid_argument(name_ + ": zero-word " + what);
  throw l2_range_error(name_ + ": " + what + " of words " + std::to_string(first_word) + ".." +
                           std::to_string(first_word + words - 1) +
                           " goes beyond the last L2 word " +
                           std::to_string(params_.section.words - 1),
                       first_word, words, params_.section.words);
}

sc_time l2_memory::cycles(uint32_t n) const {
  // One word is the common access (a GEMV writes its results word by word):
  // the period itself, which the scaling below would give too.
  return n == 1 ? params_.period : params_.period * static_cast<double>(n);
}

sc_time l2_memory::reserve(unsigned port, const sc_time& occupied, const sc_time& earliest) {
  const unsigned p = physical(port);
  const sc_time start = std::max(earliest, free_at_[p]);
  free_at_[p] = start + occupied;
  stats_[p].busy += occupied;
  return start;
}

sc_time l2_memory::read(unsigned port, uint32_t first_word, uint32_t words, uint8_t* out,
                        const sc_time& earliest) {
  check(first_word, words, "read");
  const sc_time start = reserve(port, cycles(words), earliest);
  stats_[physical(port)].words_read += words;
  if (out) copy_out(first_word, words, out);
  return start + cycles(words + params_.section.read_latency_cycles);
}

sc_time l2_memory::write(unsigned port, uint32_t first_word, uint32_t words, const uint8_t* data,
                         const sc_time& earliest) {
  check(first_word, words, "write");
  const sc_time occupied = cycles(words);
  const sc_time start = reserve(port, occupied, earliest);
  stats_[physical(port)].words_written += words;
  if (data) copy_in(first_word, words, data);
  return start + occupied;
}

sc_time l2_memory::port_free_at(unsigned port) const {
  return free_at_[physical(port)];
}

void l2_memory::debug_read(uint32_t first_word, uint32_t words, uint8_t* out) const {
  check(first_word, words, "read");
  copy_out(first_word, words, out);
}

void l2_memory::debug_write(uint32_t first_word, uint32_t words, const uint8_t* data) {
  check(first_word, words, "write");
  copy_in(first_word, words, data);
}

void l2_memory::copy_out(uint32_t first_word, uint32_t words, uint8_t* out) const {
  const size_t bytes = static_cast<size_t>(words) * kWordBytes;
  if (params_.functional)
    std::memcpy(out, &data_[static_cast<size_t>(first_word) * kWordBytes], bytes);
  else
    std::memset(out, 0, bytes);
}

void l2_memory::copy_in(uint32_t first_word, uint32_t words, const uint8_t* data) {
  if (!params_.functional) return;
  std::memcpy(&data_[static_cast<size_t>(first_word) * kWordBytes], data,
              static_cast<size_t>(words) * kWordBytes);
}

const l2_memory::port_stats& l2_memory::statistics(unsigned port) const {
  return stats_[physical(port)];
}

}  // namespace pccx::mem
