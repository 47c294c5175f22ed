#include "models/npu/core/command_fifo.h"

#include <stdexcept>

namespace pccx::npu {

void command_fifo::push(uint64_t word, const sc_core::sc_time& arrival) {
  if (full()) throw std::logic_error("CMD_IN push while full");
  words_.push_back({word, next_seq_++, arrival});
  pushed_event_.notify(sc_core::SC_ZERO_TIME);
}

command_fifo::entry command_fifo::pop() {
  if (empty()) throw std::logic_error("CMD_IN pop while empty");
  entry e = words_.front();
  words_.pop_front();
  popped_event_.notify(sc_core::SC_ZERO_TIME);
  return e;
}

}  // namespace pccx::npu
