#include "platform/vp/top/memory_params.h"

namespace pccx::vp {

pccx::mem::ddr_params make_ddr_params(const pccx::config::platform_config& cfg) {
  mem::ddr_surroundings s;
  s.base = cfg.memory_map.ddr_base;
  s.size = cfg.memory_map.ddr_size;
  s.functional = cfg.simulation.functional();
  s.axi_mhz = cfg.clocks.axi_mhz;
  s.quantum_ns = cfg.simulation.quantum_ns;
  s.window_ns = cfg.stats.window_ns;
  mem::ddr_params p = mem::make_ddr_params(cfg.ddr, s);
  // The report's bandwidth charts follow the run's length.
  p.plot_series = !cfg.output.dir.empty();
  return p;
}

}  // namespace pccx::vp
