// The configuration section of the DMA channels and their stream FIFOs
// (`dma`), owned by the model: its keys, defaults, ranges and checks. Every
// channel's dma_channel_params holds it as it is, so each default is
// written here only.
#pragma once

#include <cstdint>
#include <string>

#include "infra/config/config_schema.h"

namespace pccx::config {

// Shared by the per-channel queues.
constexpr const char* kDmaQueueRange =
    "at least one slot (DataMover pages: 8); 1,024 is a modelling cap";
// Shared by the stream FIFOs.
constexpr const char* kDmaFifoRange =
    "at least one 128-bit beat; 16 MiB caps the ring allocated in functional mode";

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
            range(16, 16777216, "at least one 128-bit beat; 16 MiB is a modelling cap"));
    v.field("outstanding", outstanding, "Blocks a channel may have in flight",
            range(1, 256, "at least one block in flight; 256 is a modelling cap"));
    v.field("coalesce_blocks", coalesce_blocks,
            "Blocks a reading channel may carry in one DDR transaction, each still timed on its "
            "own (1: one transaction per block)",
            range(1, 256, "1 = one transaction per block; 256 is a modelling cap"));
    v.field("descriptor_depth", descriptor_depth, "Descriptor queue depth per channel",
            range(1, 1024, kDmaQueueRange));
    v.field("status_depth", status_depth, "Status queue depth per channel",
            range(1, 1024, kDmaQueueRange));
    v.field("alignment_bytes", alignment_bytes,
            "Required alignment of descriptor addresses and lengths (one 128-bit beat)",
            range(1, 4096, "1 = any byte; a 4 KiB page at most"));
    v.field("weight_fifo_bytes", weight_fifo_bytes, "Weight FIFO behind each HP channel",
            range(16, 16777216, kDmaFifoRange));
    v.field("acp_fifo_bytes", acp_fifo_bytes, "CDC FIFO of each ACP channel (32 x 128 bit)",
            range(16, 16777216, kDmaFifoRange));
  }
  void validate(validator& check) const;
};

inline void dma_config::validate(validator& check) const {
  if (block_bytes % alignment_bytes != 0)
    check.fail({"block_bytes", "alignment_bytes"},
               "block_bytes must be a multiple of alignment_bytes (" +
                   std::to_string(alignment_bytes) + ")");
  if (weight_fifo_bytes % alignment_bytes != 0 || acp_fifo_bytes % alignment_bytes != 0)
    check.fail({"weight_fifo_bytes", "acp_fifo_bytes", "alignment_bytes"},
               "FIFO sizes must be multiples of alignment_bytes (" +
                   std::to_string(alignment_bytes) + ")");
}

}  // namespace pccx::config
