// The pccx v002 NPU as one module, so the SystemC hierarchy is the
// configuration tree: the command path (npu.regs, npu.cmd: register bank,
// CMD_IN, command processor, constant cache, performance counters) and, when
// the datapath is given, the L2 scratchpad (npu.l2), the stream FIFOs behind
// the DMA channels (npu.hp0_fifo .. npu.acp_result_fifo) and the execution
// units (npu.memcpy, npu.sfu, npu.gemv, npu.gemm), bound to the command
// processor and wired to each other (GEMV findemax -> SFU e_max).
//
// Without a datapath, units are bound from outside with bind_unit() (test
// benches); an opcode whose unit is not bound is rejected with
// PCCX_ERR_UNIT_UNAVAILABLE.
#pragma once

#include <array>
#include <memory>
#include <systemc>
#include <vector>

#include "infra/trace/trace_hub.h"
#include "models/memory/dma/dma_config.h"
#include "models/memory/dma/stream_fifo.h"
#include "models/memory/l2/l2_memory.h"
#include "models/npu/core/command_fifo.h"
#include "models/npu/core/command_processor.h"
#include "models/npu/core/constant_cache.h"
#include "models/npu/core/npu_params.h"
#include "models/npu/core/npu_register_bank.h"
#include "models/npu/core/perf_counters.h"
#include "models/npu/units/gemm_unit.h"
#include "models/npu/units/gemv_unit.h"
#include "models/npu/units/memcpy_unit.h"
#include "models/npu/units/sfu_unit.h"
#include "pccx_dma.h"

namespace pccx::npu {

// What the NPU's datapath needs besides the NPU's own section (npu_params):
// the run's mode and the sizes of the stream FIFOs, which the DMA section owns.
struct npu_datapath_params {
  bool functional = true;  // simulation.mode: L2 and the stream FIFOs carry bytes
  config::dma_config dma;  // dma.weight_fifo_bytes, dma.acp_fifo_bytes
};

class npu : public sc_core::sc_module {
 public:
  npu(sc_core::sc_module_name name, const npu_params& params, trace::trace_hub* traces,
      const npu_datapath_params* datapath = nullptr);

  sc_core::sc_out<bool> irq;  // idle-or-error line to the CPU

  tlm_utils::simple_target_socket<npu_register_bank>& mmio() { return regs_.mmio; }
  void bind_unit(unit_kind kind, execution_unit_if& unit) { cmd_.bind_unit(kind, unit); }

  command_processor& cmd() { return cmd_; }
  driver_lint& lint() { return lint_; }
  // INSTR_HI writes that can never complete (npu_register_bank::hung_writes).
  trace::analysis_port<std::string>& hung_writes() { return regs_.hung_writes; }
  const command_processor& cmd() const { return cmd_; }
  constant_cache& cache() { return cache_; }
  perf_counters& counters() { return counters_; }
  const perf_counters& counters() const { return counters_; }
  const command_fifo& fifo() const { return fifo_; }
  uint64_t cycles() const;

  // The datapath; each throws std::logic_error on an NPU built without one.
  mem::l2_memory& l2();
  // The stream FIFO of DMA channel `channel` (PCCX_DMA_HP0 .. ACP_RESULT).
  mem::stream_fifo& stream_fifo(unsigned channel);
  memcpy_unit& memcpy();
  sfu_unit& sfu();
  gemv_unit& gemv();
  gemm_unit& gemm();

 private:
  template <class T>
  T& part(const std::unique_ptr<T>& p) const;

  npu_params params_;
  command_fifo fifo_;
  constant_cache cache_;
  perf_counters counters_;
  driver_lint lint_;
  command_processor cmd_;
  npu_register_bank regs_;
  std::unique_ptr<mem::l2_memory> l2_;
  std::array<std::unique_ptr<mem::stream_fifo>, PCCX_DMA_CHANNELS> stream_fifos_;
  std::unique_ptr<memcpy_unit> memcpy_;
  std::unique_ptr<sfu_unit> sfu_;
  std::unique_ptr<gemv_unit> gemv_;
  std::unique_ptr<gemm_unit> gemm_;
};

// "hp0", "hp1", "hp2", "hp3", "acp_fmap", "acp_result".
const char* dma_channel_name(unsigned channel);

}  // namespace pccx::npu
