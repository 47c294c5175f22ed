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

namespace pccx::config {

struct dma_config {
  std::uint32_t block_bytes = 4096;
  std::uint32_t outstanding = 4;
  std::uint32_t coalesce_blocks = 8;
  std::uint32_t descriptor_depth = 8;
  std::uint32_t status_depth = 8;
  std::uint32_t alignment_bytes = 16;
  std::uint32_t weight_fifo_bytes = 65536;
  std::uint32_t acp_fifo_bytes = 512;

  template <class V>
  void visit(V& v) {
    v.field("block_bytes", block_bytes,
            "Bytes per DDR transaction: smaller gives finer traces, larger runs faster",
            range(16, 16777216));
    v.field("outstanding", outstanding, "Blocks a channel may have in flight", range(1, 256));
    v.field("coalesce_blocks", coalesce_blocks,
            "Blocks a reading channel may carry in one DDR transaction, each still timed on its "
            "own (1: one transaction per block)",
            range(1, 256));
    v.field("descriptor_depth", descriptor_depth, "Descriptor queue depth per channel",
            range(1, 1024));
    v.field("status_depth", status_depth, "Status queue depth per channel", range(1, 1024));
    v.field("alignment_bytes", alignment_bytes,
            "Required alignment of descriptor addresses and lengths (one 128-bit beat)",
            range(1, 4096));
    v.field("weight_fifo_bytes", weight_fifo_bytes, "Weight FIFO behind each HP channel",
            range(16, 16777216));
    v.field("acp_fifo_bytes", acp_fifo_bytes, "CDC FIFO of each ACP channel (32 x 128 bit)",
            range(16, 16777216));
  }
  void validate(validator& check) const;
};

struct stats_config {
  double window_ns = 10000.0;

  template <class V>
  void visit(V& v) {
    v.field("window_ns", window_ns, "Window of the bandwidth time series", range(1.0, 1e12));
  }
};

}  // namespace pccx::config
