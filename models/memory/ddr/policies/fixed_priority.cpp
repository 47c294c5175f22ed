// Fixed priority: busy ports are served in port order (hp0, hp1, hp2, hp3,
// acp, cpu); each takes up to its cap of what the ports before it left.
// A port that finds nothing left gets 0 (the controller then lets it use
// only capacity no reservation holds, see docs/models/memory-ddr.md).
#include <algorithm>

#include "models/memory/ddr/arbitration_policy.h"

namespace pccx::mem {

namespace {

class fixed_priority_policy : public arbitration_policy {
 public:
  const char* name() const override { return "fixed_priority"; }
  port_rates share(double capacity, port_mask busy, const port_rates& caps) const override {
    port_rates rates{};
    double remaining = capacity;
    for (size_t p = 0; p < kDdrPorts; ++p) {
      if (!busy[p]) continue;
      rates[p] = std::min(caps[p], remaining);
      remaining -= rates[p];
    }
    return rates;
  }
};

}  // namespace

std::unique_ptr<arbitration_policy> make_fixed_priority_policy() {
  return std::make_unique<fixed_priority_policy>();
}

}  // namespace pccx::mem
