#include "npu/core/decoupled_clock.h"

namespace pccx::npu {

using sc_core::sc_time;

void decoupled_clock::advance_to(const sc_time& t) {
  const sc_time now = sc_core::sc_time_stamp();
  if (t > local()) qk_.set(t - now);
  if (qk_.need_sync()) qk_.sync();
}

void decoupled_clock::sync_to(const sc_time& t) {
  const sc_time now = sc_core::sc_time_stamp();
  qk_.set(t > now ? t - now : sc_core::SC_ZERO_TIME);
  qk_.sync();
}

void decoupled_clock::resume_at(const sc_time& t) {
  qk_.set(sc_core::SC_ZERO_TIME);
  advance_to(t);
}

}  // namespace pccx::npu
