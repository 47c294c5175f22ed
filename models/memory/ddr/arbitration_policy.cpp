#include "models/memory/ddr/arbitration_policy.h"

#include <stdexcept>

namespace pccx::mem {

namespace {

struct policy_entry {
  const char* name;
  std::unique_ptr<arbitration_policy> (*make)(const port_rates& weights);
};

const policy_entry kPolicies[] = {
    {"round_robin", [](const port_rates&) { return make_round_robin_policy(); }},
    {"weighted", [](const port_rates& w) { return make_weighted_policy(w); }},
    {"fixed_priority", [](const port_rates&) { return make_fixed_priority_policy(); }},
};

}  // namespace

std::unique_ptr<arbitration_policy> make_arbitration_policy(const std::string& name,
                                                            const port_rates& weights) {
  for (const auto& p : kPolicies)
    if (name == p.name) return p.make(weights);
  std::string known;
  for (const auto& p : kPolicies) known += std::string(known.empty() ? "" : ", ") + p.name;
  throw std::invalid_argument("unknown DDR arbitration policy '" + name + "' (known: " + known +
                              ")");
}

const std::vector<std::string>& arbitration_policy_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& p : kPolicies) n.emplace_back(p.name);
    return n;
  }();
  return names;
}

port_rates water_fill(double capacity, port_mask busy, const port_rates& caps,
                      const port_rates& weights) {
  port_rates rates{};
  double remaining = capacity;
  port_mask open = busy;
  while (open.any()) {
    double weight_sum = 0;
    for (size_t p = 0; p < kDdrPorts; ++p)
      if (open[p]) weight_sum += weights[p];
    // Every port whose cap is below its fair share takes its cap; the rest
    // is split again. When none is capped, the fair shares are final.
    port_mask capped;
    for (size_t p = 0; p < kDdrPorts; ++p)
      if (open[p] && caps[p] <= remaining * weights[p] / weight_sum) capped.set(p);
    if (capped.none()) {
      for (size_t p = 0; p < kDdrPorts; ++p)
        if (open[p]) rates[p] = remaining * weights[p] / weight_sum;
      break;
    }
    for (size_t p = 0; p < kDdrPorts; ++p)
      if (capped[p]) {
        rates[p] = caps[p];
        remaining -= caps[p];
        open.reset(p);
      }
    if (remaining < 0) remaining = 0;
  }
  return rates;
}

}  // namespace pccx::mem
