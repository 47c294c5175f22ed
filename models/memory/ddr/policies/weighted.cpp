// Weighted: busy ports share in proportion to ddr.port_weights (weighted
// round robin in the fluid limit); what a capped port cannot use goes to the
// others in the same proportion.
#include <stdexcept>

#include "models/memory/ddr/arbitration_policy.h"

namespace pccx::mem {

namespace {

class weighted_policy : public arbitration_policy {
 public:
  explicit weighted_policy(const port_rates& weights) : weights_(weights) {
    for (double w : weights_)
      if (!(w > 0)) throw std::invalid_argument("DDR port weights must be positive");
  }
  const char* name() const override { return "weighted"; }
  port_rates share(double capacity, port_mask busy, const port_rates& caps) const override {
    return water_fill(capacity, busy, caps, weights_);
  }

 private:
  port_rates weights_;
};

}  // namespace

std::unique_ptr<arbitration_policy> make_weighted_policy(const port_rates& weights) {
  return std::make_unique<weighted_policy>(weights);
}

}  // namespace pccx::mem
