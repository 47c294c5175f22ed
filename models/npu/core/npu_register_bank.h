// The NPU's AXI-Lite register bank (4 KiB at the NPU base): the uCA HAL
// registers (INSTR_LO, INSTR_HI, STATUS) and the platform's error, level,
// retired-count and performance-counter registers, all 32 bits wide.
//
// The registers are the rows of PCCX_NPU_REGISTERS (pccx_npu_regs.h) plus
// the performance counters, built as register objects (infra/regs) with the
// behaviour attached here.
//
// Timing: the bank adds no delay of its own (the initiator's access cost
// models the bus). Reads see NPU state, so a read first synchronises the
// caller's quantum offset; an INSTR_HI write into a full CMD_IN blocks the
// caller until a slot frees, as the RTL's awready does. When the NPU is
// halted at an error no slot can free, so such a write is reported on
// hung_writes (on the board it would hang the CPU's bus) and then held.
#pragma once

#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <string>
#include <systemc>
#include <tlm>

#include "infra/log/logger.h"
#include "infra/regs/register_bank.h"
#include "infra/trace/analysis_port.h"
#include "models/npu/core/command_fifo.h"
#include "models/npu/core/command_processor.h"
#include "models/npu/core/perf_counters.h"

namespace pccx::npu {

class npu_register_bank : public sc_core::sc_module {
 public:
  npu_register_bank(sc_core::sc_module_name name, const npu_params& params, command_fifo& fifo,
                    command_processor& cmd, perf_counters& counters);

  tlm_utils::simple_target_socket<npu_register_bank> mmio;

  // "STATUS", "PERF_LO[3]", ... or "" for an unmapped offset.
  static std::string register_name(uint64_t offset);
  // The driver lint, told of each word pushed after a timed-out sync.
  void set_lint(driver_lint* lint) { lint_ = lint; }

  // An INSTR_HI write into a full CMD_IN while the NPU is halted at an
  // error: what happened, in words; the write never completes.
  trace::analysis_port<std::string> hung_writes;

 private:
  void b_transport(tlm::tlm_generic_payload& tx, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& tx);
  uint32_t status() const;
  // INSTR_HI: {HI, INSTR_LO} into CMD_IN, held while CMD_IN is full.
  void push_instruction(uint32_t hi, sc_core::sc_time& delay);
  static std::string perf_name(uint32_t index, bool hi);

  npu_params params_;
  command_fifo& fifo_;
  command_processor& cmd_;
  perf_counters& counters_;
  log::logger log_;
  regs::register_bank bank_;
  regs::reg32* instr_lo_ = nullptr;
  driver_lint* lint_ = nullptr;
};

}  // namespace pccx::npu
