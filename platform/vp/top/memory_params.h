// The configuration of the memory system converted once into what the
// memory models consume (the DDR controller's runtime parameters).
#pragma once

#include "models/memory/ddr/ddr_params.h"
#include "platform/config/platform_config.h"

namespace pccx::vp {

// ddr.*, memory_map.ddr_base/ddr_size, clocks.axi_mhz (HP/ACP port caps),
// simulation.mode, simulation.quantum_ns (activity horizon) and
// stats.window_ns.
pccx::mem::ddr_params make_ddr_params(const pccx::config::platform_config& cfg);

}  // namespace pccx::vp
