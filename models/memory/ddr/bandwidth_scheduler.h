// The timing core of the DDR controller: when does a transfer of N bytes
// through a port start and end, given everything already reserved?
//
// 1. The transfer can begin at max(arrival, the port's busy-until): a port
//    moves one transfer at a time.
// 2. At that moment the busy ports are those whose current busy period
//    covers it, extended by the activity horizon (a decoupled initiator may
//    not have called yet for a period it will use), plus the port itself.
// 3. The front end's capacity (ddr_capacity::effective) is split among them
//    by the arbitration policy, each capped by what it can take
//    (water-filling). Work-conserving: a port that issues back to back
//    (its next transfer is waiting when the last ends) can take up to its
//    port cap; a port with gaps between its transfers is capped at the rate
//    it has been asking for, so what it leaves goes to the others.
// 4. The transfer takes its share from the capacity timeline: at its share
//    where the promised total leaves room, slower or later where it does
//    not, so the total never exceeds the capacity.
// A port the policy gives nothing (fixed priority) waits until a port that
// holds capacity goes idle, as far as is known at the call, and tries again.
// SystemC types only for time; no kernel interaction (no wait, no events).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <systemc>

#include "models/memory/common/traffic.h"
#include "models/memory/ddr/arbitration_policy.h"
#include "models/memory/ddr/capacity_timeline.h"
#include "models/memory/ddr/ddr_params.h"

namespace pccx::mem {

// In kernel ticks (sc_time::value()), as the scheduler computes them: the
// controller makes sc_time of what it keeps.
struct ddr_grant {
  uint64_t ready;            // max(arrival, the port's busy-until): the port is free
  uint64_t start;            // first byte moves
  uint64_t end;              // last byte moved; the port is free again
  double share_bytes_per_s;  // rate the policy gave (before the timeline)
};

class bandwidth_scheduler {
 public:
  bandwidth_scheduler(const ddr_params& params, double capacity_bytes_per_s);

  ddr_grant schedule(ddr_port port, bool write, const sc_core::sc_time& arrival, uint64_t bytes);
  // The port's transfer really ended at `end` (the DRAM behind the front
  // end took longer than the front end's reservation): a next transfer that
  // arrives then still counts as back to back.
  void extend(ddr_port port, uint64_t end);
  // No arrival can be earlier than `now` any more (the kernel's time).
  void forget_before(const sc_core::sc_time& now);

  const arbitration_policy& policy() const { return *policy_; }
  const capacity_timeline& timeline() const { return timeline_; }
  sc_core::sc_time port_busy_until(ddr_port p) const;

 private:
  struct port_state {
    bool used = false;
    bool write = false;         // direction of the latest transfer
    uint64_t period_start = 0;  // start of the current busy period, ticks
    uint64_t busy_until = 0;    // end of the latest transfer, ticks
    uint64_t last_end = 0;      // end of the latest transfer with the DRAM's time, ticks
    bool back_to_back = true;   // the latest transfer waited for the one before
    uint64_t last_arrival = 0;  // ticks
    double asked = 0;           // bytes/s between arrivals (smoothed), ports with gaps
  };

  double capacity_bytes_per_s_;
  port_rates caps_;
  uint64_t horizon_ticks_;
  std::unique_ptr<arbitration_policy> policy_;
  // The policy's answer per busy set: the capacity and the caps are fixed,
  // so the busy set decides.
  struct cached_rates {
    bool valid = false;
    port_rates rates{};
  };
  std::array<cached_rates, 1u << kDdrPorts> cache_{};
  const port_rates& rates_for(port_mask busy);
  // The policy's answer with some ports capped at what they ask for: the
  // last question and answer are kept.
  struct light_answer {
    bool valid = false;
    port_mask busy;
    port_rates caps{}, rates{};
  } light_;
  const port_rates& light_rates_for(port_mask busy, const port_rates& caps);
  capacity_timeline timeline_;
  std::array<port_state, kDdrPorts> ports_;
};

}  // namespace pccx::mem
