// How the DDR's bandwidth is split between the ports that are busy at the
// same time. A policy sees the set of busy ports and each one's own cap and
// returns each one's rate; the controller asks it once per transaction.
//
// Policies live in policies/, one file each, and are chosen by name
// (ddr.arbitration). To add one: write policies/<name>.cpp with a maker,
// declare the maker below and add one row to the table in
// arbitration_policy.cpp.
#pragma once

#include <array>
#include <bitset>
#include <memory>
#include <string>
#include <vector>

#include "models/memory/common/traffic.h"

namespace pccx::mem {

using port_mask = std::bitset<kDdrPorts>;
using port_rates = std::array<double, kDdrPorts>;  // bytes/s, indexed by ddr_port

class arbitration_policy {
 public:
  virtual ~arbitration_policy() = default;
  virtual const char* name() const = 0;
  // Splits capacity_bytes_per_s between the ports in `busy`. Each gets at
  // most caps[p]; the rates sum to at most the capacity; ports outside
  // `busy` get 0. A port may get 0 (fixed priority, nothing left). Must
  // depend on its arguments only: the scheduler caches the answers.
  virtual port_rates share(double capacity_bytes_per_s, port_mask busy,
                           const port_rates& caps) const = 0;
};

// Throws std::invalid_argument for an unknown name or a weight <= 0.
std::unique_ptr<arbitration_policy> make_arbitration_policy(const std::string& name,
                                                            const port_rates& weights);
const std::vector<std::string>& arbitration_policy_names();

// Weighted max-min fair split (water-filling): every busy port gets
// capacity x w / sum(w); a port whose cap is below that gets its cap and
// what it leaves is split again among the others.
port_rates water_fill(double capacity_bytes_per_s, port_mask busy, const port_rates& caps,
                      const port_rates& weights);

// The policies (policies/*.cpp).
std::unique_ptr<arbitration_policy> make_round_robin_policy();
std::unique_ptr<arbitration_policy> make_weighted_policy(const port_rates& weights);
std::unique_ptr<arbitration_policy> make_fixed_priority_policy();

}  // namespace pccx::mem
