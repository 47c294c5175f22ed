// Configuration of the memory system: the DMA channels and bandwidth
// statistics (the DDR4 controller's section is models/memory/ddr/ddr_config.h). Defaults describe
// the KV260 (DDR4-2400 x64, HP ports 128 bit at the AXI clock); where each default comes from is in
// docs/models/memory-ddr.md and docs/models/memory-dma-l2.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "infra/config/config_schema.h"
#include "models/memory/ddr/ddr_config.h"
#include "models/memory/dma/dma_config.h"

namespace pccx::config {

struct stats_config {
  double window_ns = 10000.0;

  template <class V>
  void visit(V& v) {
    v.field("window_ns", window_ns, "Window of the bandwidth time series",
            range(1.0, 1e12,
                  "at least 1 ns so a window spans ticks; 1000 s caps it far inside 64-bit ps"));
  }
};

}  // namespace pccx::config
