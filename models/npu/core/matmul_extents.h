// The extents of a GEMM/GEMV from its constant-cache slots, in the
// platform's reading and in the upstream readings the platform also runs
// (docs/reference/spec-decisions.md, "GEMV/GEMM shapes"). The command
// processor resolves every matmul this way; the replay's DMA planner sizes
// weight streams the same way, so the two cannot disagree.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "models/npu/isa/instruction.h"

namespace pccx::npu {

using slot_value = std::array<uint16_t, 3>;
// A constant-cache read: bank (0 fmap_shape, 1 weight_shape) and slot;
// nullopt for a slot never written.
using slot_reader = std::function<std::optional<slot_value>(uint8_t bank, uint8_t slot)>;

struct matmul_extents {
  slot_value shape{};    // (M, N, K)
  slot_value size{};     // activation extents (X, Y, Z), X*Y*Z = M*K
  std::string upstream;  // which upstream reading gave them; "" for the platform's
};

// The RTL's GEMM STORE writes 4 L2 words: 32 BF16 results of one array pass.
constexpr uint16_t kRtlGemmStoreElements = 32;

// The upstream readings of a matmul whose slots do not resolve the
// platform's way (weight_shape[shape_ptr] and fmap_shape[size_ptr] both
// written); nullopt when neither applies or the extents would not fit.
std::optional<matmul_extents> upstream_extents(isa::opcode op, const isa::matmul_instr& mm,
                                               const slot_reader& read);

// The platform's reading, else (unless strict) an upstream one.
std::optional<matmul_extents> resolve_extents(isa::opcode op, const isa::matmul_instr& mm,
                                              const slot_reader& read, bool strict);

}  // namespace pccx::npu
