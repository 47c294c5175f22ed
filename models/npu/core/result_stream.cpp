#include "models/npu/core/result_stream.h"

#include <stdexcept>
#include <string>

namespace pccx::npu {

result_stream::result_stream(uint64_t producer_seq, isa::l2_range words)
    : producer_seq_(producer_seq), range_(words), ready_(words.words) {}

bool result_stream::covers(const isa::l2_range& r) const {
  return r.first >= range_.first &&
         uint64_t{r.first} + r.words <= uint64_t{range_.first} + range_.words;
}

void result_stream::publish(uint32_t word, const sc_core::sc_time& ready) {
  if (word < range_.first || word - range_.first >= range_.words)
    throw std::out_of_range("result stream of #" + std::to_string(producer_seq_) + ": word " +
                            std::to_string(word) + " outside its range");
  ready_[word - range_.first] = ready;
  // A waiter re-checks its word when it wakes, so a notification no one
  // waits for is left out (a GEMV publishes every result word).
  if (waiters_ > 0) changed_.notify(sc_core::SC_ZERO_TIME);
}

void result_stream::close() {
  if (closed_) return;
  closed_ = true;
  if (waiters_ > 0) changed_.notify(sc_core::SC_ZERO_TIME);
}

std::optional<sc_core::sc_time> result_stream::wait_for(uint32_t word) {
  if (word < range_.first || word - range_.first >= range_.words) return std::nullopt;
  const auto& slot = ready_[word - range_.first];
  while (!slot && !closed_) {
    ++waiters_;
    sc_core::wait(changed_);
    --waiters_;
  }
  return slot;
}

}  // namespace pccx::npu
