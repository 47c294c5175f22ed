// The direct path from the GEMV output to the SFU input: a chained CVO
// consumes GEMV results word by word as they leave the reduction pipeline,
// instead of waiting for the whole GEMV to retire and reading them back
// through L2 port 1.
//
// The command processor creates one stream per GEMV (when chaining is on)
// covering its result words, and hands the same stream to a CVO whose
// source lies inside those words. The GEMV publishes each word with the time
// its last element is out of the pipeline; the SFU thread waits in kernel
// time only for a word not yet published. Closing the stream (the GEMV
// retired, with or without error) releases every waiter: an unpublished
// word then reads as "never produced".
#pragma once

#include <cstdint>
#include <optional>
#include <systemc>
#include <vector>

#include "models/npu/isa/instruction.h"

namespace pccx::npu {

class result_stream {
 public:
  result_stream(uint64_t producer_seq, isa::l2_range words);

  uint64_t producer() const { return producer_seq_; }
  const isa::l2_range& range() const { return range_; }
  bool covers(const isa::l2_range& r) const;

  // Producer side. `word` is an absolute L2 word address inside range().
  void publish(uint32_t word, const sc_core::sc_time& ready);
  void close();
  bool closed() const { return closed_; }

  // Consumer side (SC_THREAD context): the time `word` is available, waiting
  // for the producer if needed; nullopt if the stream closed without it.
  std::optional<sc_core::sc_time> wait_for(uint32_t word);

 private:
  uint64_t producer_seq_;
  isa::l2_range range_;
  std::vector<std::optional<sc_core::sc_time>> ready_;
  bool closed_ = false;
  sc_core::sc_event changed_;
  unsigned waiters_ = 0;  // consumer threads in wait_for
};

}  // namespace pccx::npu
