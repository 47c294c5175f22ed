// The instruction decoder's limits taken from the configuration: all that
// `disasm` and `replay`'s listing need, without building the runtime.
#pragma once

#include "models/npu/isa/instruction.h"
#include "platform/config/platform_config.h"

namespace pccx::config {

isa::decode_limits decode_limits_of(const platform_config& cfg);

}  // namespace pccx::config
