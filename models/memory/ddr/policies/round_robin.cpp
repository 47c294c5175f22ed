// Round robin: every busy port gets an equal share, the fluid limit of a
// round-robin arbiter serving equal-sized requests; what a capped port
// cannot use goes to the others.
#include "models/memory/ddr/arbitration_policy.h"

namespace pccx::mem {

namespace {

class round_robin_policy : public arbitration_policy {
 public:
  const char* name() const override { return "round_robin"; }
  port_rates share(double capacity, port_mask busy, const port_rates& caps) const override {
    port_rates equal;
    equal.fill(1.0);
    return water_fill(capacity, busy, caps, equal);
  }
};

}  // namespace

std::unique_ptr<arbitration_policy> make_round_robin_policy() {
  return std::make_unique<round_robin_policy>();
}

}  // namespace pccx::mem
