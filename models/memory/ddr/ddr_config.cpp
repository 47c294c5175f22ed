#include "models/memory/ddr/ddr_config.h"

namespace pccx::config {

void ddr_config::validate(validator& check) const {
  if (bus_bits % 8 != 0) check.fail("bus_bits", "must be a whole number of bytes");
  if ((bus_bits / 8) * burst_length > page_bytes)
    check.fail({"page_bytes", "bus_bits", "burst_length"}, "a page must hold at least one burst");
  for (std::size_t i = 0; i < port_weights.size(); ++i)
    if (!(port_weights[i] > 0.0))
      check.fail("port_weights/" + std::to_string(i), "port weights must be positive");
}

}  // namespace pccx::config
