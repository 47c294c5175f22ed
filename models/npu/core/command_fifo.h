// CMD_IN: the instruction FIFO between the MMIO bank and the decoder.
//
// The CPU runs ahead of simulated time by up to one quantum, so every word
// carries the time it was written; the decoder does not take a word before
// that time. A full FIFO holds the writer back (see npu_register_bank).
#pragma once

#include <cstdint>
#include <deque>
#include <systemc>

namespace pccx::npu {

class command_fifo {
 public:
  struct entry {
    uint64_t word = 0;
    uint64_t seq = 0;          // position in the command stream
    sc_core::sc_time arrival;  // when the INSTR_HI write landed
  };

  explicit command_fifo(uint32_t depth) : depth_(depth) {}

  uint32_t depth() const { return depth_; }
  uint32_t level() const { return static_cast<uint32_t>(words_.size()); }
  bool full() const { return words_.size() >= depth_; }
  bool empty() const { return words_.empty(); }
  uint64_t pushed() const { return next_seq_; }

  void push(uint64_t word, const sc_core::sc_time& arrival);
  const entry& front() const { return words_.front(); }
  entry pop();

  const sc_core::sc_event& pushed_event() const { return pushed_event_; }
  const sc_core::sc_event& popped_event() const { return popped_event_; }

 private:
  uint32_t depth_;
  uint64_t next_seq_ = 0;
  std::deque<entry> words_;
  sc_core::sc_event pushed_event_;
  sc_core::sc_event popped_event_;
};

}  // namespace pccx::npu
