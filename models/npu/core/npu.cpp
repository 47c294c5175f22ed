#include "models/npu/core/npu.h"

namespace pccx::npu {

npu::npu(sc_core::sc_module_name name, const npu_params& params, trace::trace_hub* traces)
    : sc_core::sc_module(name),
      irq("irq"),
      params_(params),
      fifo_(params.cmd_fifo_depth),
      cache_(params.limits.cache_slots, params.cache_bank_names, params.limits.enabled_banks),
      cmd_("cmd", params_, fifo_, cache_, counters_, traces),
      regs_("regs", params_, fifo_, cmd_, counters_) {
  cmd_.irq(irq);
}

uint64_t npu::cycles() const {
  return static_cast<uint64_t>(sc_core::sc_time_stamp() / params_.core_period);
}

}  // namespace pccx::npu
