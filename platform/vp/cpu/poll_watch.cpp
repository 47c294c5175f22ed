#include "platform/vp/cpu/poll_watch.h"

namespace pccx::vp {

void poll_watch::restart() {
  slots_ = {};
  used_ = 0;
  unchanged_ = 0;
  if (probe_) progress_ = probe_();
}

std::optional<poll_watch::livelock> poll_watch::read(uint32_t offset, uint32_t value) {
  if (limit_ == 0) return std::nullopt;
  slot* s = nullptr;
  for (uint32_t i = 0; i < used_ && !s; ++i)
    if (slots_[i].offset == offset) s = &slots_[i];
  if (!s) {
    // A register the loop has not read yet: remembered, the count goes on;
    // more registers than a polling loop reads is not a polling loop.
    if (used_ == kSlots) restart();
    slots_[used_] = {offset, value, true};
    ++used_;
    return std::nullopt;
  }
  if (s->value != value) {
    restart();
    slots_[0] = {offset, value, true};
    used_ = 1;
    return std::nullopt;
  }
  ++unchanged_;
  const bool last = unchanged_ >= limit_;
  if ((last || unchanged_ % kProbeEvery == 0) && probe_) {
    const uint64_t now = probe_();
    if (now != progress_) {
      progress_ = now;
      unchanged_ = 0;
      return std::nullopt;
    }
  }
  if (!last) return std::nullopt;
  return livelock{offset, value, unchanged_, used_};
}

}  // namespace pccx::vp
