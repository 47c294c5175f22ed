// Test-only uCA HAL for the KV driver tests: records every MMIO write (offset,
// value) so the DMA descriptors pccx_kv_submit_stream pushes can be checked.
// Reads return 0. Not thread-safe.
#pragma once

#include <cstdint>
#include <vector>

namespace kvdrv {

struct mmio_write {
  uint32_t offset;
  uint32_t value;
};

void hal_reset();
const std::vector<mmio_write>& hal_writes();

}  // namespace kvdrv
