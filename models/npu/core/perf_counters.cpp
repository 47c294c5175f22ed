#include "models/npu/core/perf_counters.h"

#include <stdexcept>

namespace pccx::npu {

perf_counters::perf_counters() {
  for (uint32_t i = 0; i < size(); ++i) names_[i] = "perf_" + std::to_string(i);
  name(PCCX_PERF_CYCLES, "cycles");
  name(PCCX_PERF_MACS, "macs");
  name(PCCX_PERF_GEMV_BUSY, "gemv_busy_cycles");
  name(PCCX_PERF_GEMM_BUSY, "gemm_busy_cycles");
  name(PCCX_PERF_SFU_BUSY, "sfu_busy_cycles");
  name(PCCX_PERF_DMA_BUSY, "dma_busy_cycles");
  name(PCCX_PERF_DDR_RD_BYTES, "ddr_read_bytes");
  name(PCCX_PERF_DDR_WR_BYTES, "ddr_write_bytes");
  name(PCCX_PERF_HAZARD_STALL, "issue_hazard_stall_cycles");
  name(PCCX_PERF_UNIT_STALL, "issue_unit_stall_cycles");
  name(PCCX_PERF_CMD_EMPTY, "issue_cmd_empty_cycles");
  name(PCCX_PERF_SFU_ELEMENTS, "sfu_elements");
  name(PCCX_PERF_GEMV_WEIGHT_STALL, "gemv_weight_stall_cycles");
  name(PCCX_PERF_GEMV_MACS, "gemv_macs");
  name(PCCX_PERF_GEMM_MACS, "gemm_macs");
  name(PCCX_PERF_GEMM_WEIGHT_STALL, "gemm_weight_stall_cycles");
  name(PCCX_PERF_SFU_CHAINED, "sfu_chained_instructions");
  name(PCCX_PERF_GEMV_INSTRUCTIONS, "gemv_instructions");
  name(PCCX_PERF_GEMM_INSTRUCTIONS, "gemm_instructions");
  name(PCCX_PERF_SFU_INSTRUCTIONS, "sfu_instructions");
  name(PCCX_PERF_DMA_INSTRUCTIONS, "dma_instructions");
  name(PCCX_PERF_GEMV_L2_STALL, "gemv_l2_stall_cycles");
  name(PCCX_PERF_GEMM_L2_STALL, "gemm_l2_stall_cycles");
  name(PCCX_PERF_SFU_INPUT_STALL, "sfu_input_stall_cycles");
  name(PCCX_PERF_GEMV_HAZARD_STALL, "gemv_hazard_stall_cycles");
  name(PCCX_PERF_GEMM_HAZARD_STALL, "gemm_hazard_stall_cycles");
  name(PCCX_PERF_SFU_HAZARD_STALL, "sfu_hazard_stall_cycles");
  name(PCCX_PERF_DMA_HAZARD_STALL, "dma_hazard_stall_cycles");
  name(PCCX_PERF_GEMV_IDLE, "gemv_idle_cycles");
  name(PCCX_PERF_GEMM_IDLE, "gemm_idle_cycles");
  name(PCCX_PERF_SFU_IDLE, "sfu_idle_cycles");
  name(PCCX_PERF_DMA_IDLE, "dma_idle_cycles");
  name(PCCX_PERF_GEMV_DEQUANT_STALL, "gemv_dequant_stall_cycles");
}

void perf_counters::add(uint32_t index, uint64_t amount) {
  values_.at(index) += amount;
}
uint64_t perf_counters::value(uint32_t index) const {
  return values_.at(index);
}
void perf_counters::set(uint32_t index, uint64_t value) {
  values_.at(index) = value;
}
void perf_counters::name(uint32_t index, const std::string& n) {
  names_.at(index) = n;
}

}  // namespace pccx::npu
