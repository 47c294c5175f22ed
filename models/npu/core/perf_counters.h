// The NPU's performance counters, readable by firmware through MMIO
// (PCCX_REG_PERF_LO/HI) and written to the run summary. Indices are the
// PCCX_PERF_* values of pccx_npu_regs.h; units add to their counters.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "pccx_npu_regs.h"

namespace pccx::npu {

class perf_counters {
 public:
  perf_counters();
  void add(uint32_t index, uint64_t amount);
  uint64_t value(uint32_t index) const;
  void set(uint32_t index, uint64_t value);  // for derived counters (cycles)
  // Names an index; an unnamed index is "perf_<n>" and reads zero.
  void name(uint32_t index, const std::string& name);
  const std::string& name_of(uint32_t index) const { return names_.at(index); }
  static constexpr uint32_t size() { return PCCX_PERF_COUNT; }

 private:
  std::array<uint64_t, PCCX_PERF_COUNT> values_{};
  std::array<std::string, PCCX_PERF_COUNT> names_;
};

}  // namespace pccx::npu
