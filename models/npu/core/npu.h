// The pccx v002 NPU: register bank, CMD_IN, command processor, constant
// cache and performance counters. Execution units (GEMV, GEMM, SFU, DMA)
// are separate modules bound with bind_unit(); an opcode whose unit is not
// bound is rejected with PCCX_ERR_UNIT_UNAVAILABLE.
#pragma once

#include <systemc>

#include "models/npu/core/command_fifo.h"
#include "models/npu/core/command_processor.h"
#include "models/npu/core/constant_cache.h"
#include "models/npu/core/npu_params.h"
#include "models/npu/core/npu_register_bank.h"
#include "models/npu/core/perf_counters.h"
#include "infra/trace/trace_hub.h"

namespace pccx::npu {

class npu : public sc_core::sc_module {
 public:
  npu(sc_core::sc_module_name name, const npu_params& params, trace::trace_hub* traces);

  sc_core::sc_out<bool> irq;  // idle-or-error line to the CPU

  tlm_utils::simple_target_socket<npu_register_bank>& mmio() { return regs_.mmio; }
  void bind_unit(unit_kind kind, execution_unit_if& unit) { cmd_.bind_unit(kind, unit); }

  command_processor& cmd() { return cmd_; }
  const command_processor& cmd() const { return cmd_; }
  constant_cache& cache() { return cache_; }
  perf_counters& counters() { return counters_; }
  const perf_counters& counters() const { return counters_; }
  const command_fifo& fifo() const { return fifo_; }
  uint64_t cycles() const;

 private:
  npu_params params_;
  command_fifo fifo_;
  constant_cache cache_;
  perf_counters counters_;
  command_processor cmd_;
  npu_register_bank regs_;
};

}  // namespace pccx::npu
