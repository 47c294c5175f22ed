#include "models/memory/ddr/bandwidth_scheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pccx::mem {

namespace {
double ticks_per_second() {
  return 1.0 / sc_core::sc_get_time_resolution().to_seconds();
}
}  // namespace

bandwidth_scheduler::bandwidth_scheduler(const ddr_params& params, double capacity_bytes_per_s)
    : capacity_bytes_per_s_(capacity_bytes_per_s),
      caps_(params.port_cap_bytes_per_s),
      horizon_ticks_(params.activity_horizon.value()),
      policy_(make_arbitration_policy(params.arbitration, params.port_weights)),
      timeline_(ticks_per_second()) {}

sc_core::sc_time bandwidth_scheduler::port_busy_until(ddr_port p) const {
  return sc_core::sc_time::from_value(ports_[static_cast<size_t>(p)].busy_until);
}

void bandwidth_scheduler::extend(ddr_port port, uint64_t end) {
  port_state& s = ports_[static_cast<size_t>(port)];
  s.last_end = std::max<uint64_t>(s.last_end, end);
}

void bandwidth_scheduler::forget_before(const sc_core::sc_time& now) {
  timeline_.forget_before(now.value());
}

const port_rates& bandwidth_scheduler::rates_for(port_mask busy) {
  cached_rates& c = cache_[busy.to_ulong()];
  if (!c.valid) {
    c.rates = policy_->share(capacity_bytes_per_s_, busy, caps_);
    c.valid = true;
  }
  return c.rates;
}

const port_rates& bandwidth_scheduler::light_rates_for(port_mask busy, const port_rates& caps) {
  // A port's asked rate changes only when that port transfers, so a run of
  // another port's transfers asks the same question again and again.
  if (!light_.valid || light_.busy != busy || light_.caps != caps) {
    light_.rates = policy_->share(capacity_bytes_per_s_, busy, caps);
    light_.busy = busy;
    light_.caps = caps;
    light_.valid = true;
  }
  return light_.rates;
}

ddr_grant bandwidth_scheduler::schedule(ddr_port port, bool write, const sc_core::sc_time& arrival,
                                        uint64_t bytes) {
  const size_t self = static_cast<size_t>(port);
  port_state& me = ports_[self];
  uint64_t begin = arrival.value();
  if (me.used) {
    // What this port asks for: back to back, or one transfer per gap.
    me.back_to_back = arrival.value() <= std::max(me.busy_until, me.last_end);
    if (!me.back_to_back && arrival.value() > me.last_arrival) {
      const double sample = static_cast<double>(bytes) * timeline_.ticks_per_second() /
                            static_cast<double>(arrival.value() - me.last_arrival);
      me.asked = me.asked > 0 ? 0.5 * (me.asked + sample) : sample;
    }
    begin = std::max(begin, me.busy_until);
  }
  me.last_arrival = std::max<uint64_t>(me.last_arrival, arrival.value());
  const uint64_t ready = begin;

  // The busy ports at `begin`, and what the policy gives each of them. A
  // port the policy gives nothing (fixed priority, all taken) waits until
  // one of the ports holding capacity goes idle, as far as is known now.
  // The policy's answers are kept (rates_for, light_rates_for): pointed
  // to, not copied, on the way through.
  const port_rates* rates = nullptr;
  for (size_t round = 0; round <= kDdrPorts; ++round) {
    port_mask busy;
    busy.set(self);
    // Ports with gaps take what they ask for; the others share the rest.
    port_rates caps;
    bool light = false;
    for (size_t p = 0; p < kDdrPorts; ++p) {
      const port_state& s = ports_[p];
      if (p == self || !s.used) continue;
      if (s.period_start > begin || begin >= s.busy_until + horizon_ticks_) continue;
      busy.set(p);
      if (!s.back_to_back && s.asked > 0 && s.asked < caps_[p]) {
        if (!light) caps = caps_;
        caps[p] = s.asked;
        light = true;
      }
    }
    rates = light ? &light_rates_for(busy, caps) : &rates_for(busy);
    if ((*rates)[self] > 0) break;
    uint64_t lapse = std::numeric_limits<uint64_t>::max();
    for (size_t p = 0; p < kDdrPorts; ++p)
      if (busy[p] && p != self && (*rates)[p] > 0)
        lapse = std::min(lapse, ports_[p].busy_until + horizon_ticks_);
    if (lapse == std::numeric_limits<uint64_t>::max()) break;
    begin = lapse;
  }
  const double share = (*rates)[self];

  // Still nothing (cannot happen with the policies here): take what no
  // reservation holds, up to the port's cap.
  const double rate = share > 0 ? share : caps_[self];
  const auto whole = [](double v) { return std::max<int64_t>(1, static_cast<int64_t>(v)); };
  const capacity_timeline::interval iv =
      timeline_.reserve(begin, bytes, whole(rate), whole(capacity_bytes_per_s_));

  if (!me.used || iv.start > me.busy_until + horizon_ticks_) me.period_start = iv.start;
  me.used = true;
  me.busy_until = iv.end;
  me.write = write;

  return {ready, iv.start, iv.end, share};
}

}  // namespace pccx::mem
