// Runtime parameters of the NPU's command path: its configuration section
// as it is, plus what the platform derives from elsewhere (the core clock,
// simulation.strict). The decoder limits follow from the section.
#pragma once

#include <systemc>

#include "models/npu/core/driver_lint.h"
#include "models/npu/isa/instruction.h"
#include "models/npu/npu_config.h"

namespace pccx::npu {

struct npu_params {
  config::npu_config section;  // npu.*: CMD_IN, stages, constant cache, the units' sections
  sc_core::sc_time core_period = sc_core::sc_time(2.5, sc_core::SC_NS);  // clocks.core_mhz
  bool strict = false;  // simulation.strict: an NPU error ends the run instead of latching
  lint_mode lint = lint_mode::warn;  // simulation.lint
  // simulation.inject_npu_fault_at: the instruction (sequence number, as
  // ERR_SEQ counts) that latches ERR_UNIT_FAULT instead of executing; -1 none.
  int64_t inject_fault_at = -1;
  // simulation.gemv_quantum_ns: how far the GEMV's thread runs ahead of the
  // kernel before it syncs; zero follows the global quantum.
  sc_core::sc_time gemv_quantum = sc_core::SC_ZERO_TIME;

  isa::decode_limits limits() const { return config::decode_limits_of(section, strict); }
};

}  // namespace pccx::npu
