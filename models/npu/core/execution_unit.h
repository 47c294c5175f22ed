// The contract between the command processor and the units it dispatches
// to (GEMV, GEMM, SFU, DMA). A unit receives an instruction whose static
// fields are validated and whose shape slots are already resolved, runs it in
// its own thread, and reports completion through completion_if.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "infra/container/bounded_vector.h"
#include "models/npu/core/result_stream.h"
#include "models/npu/isa/instruction.h"

namespace pccx::npu {

enum class unit_kind : uint8_t { gemv = 0, gemm, sfu, dma, count };
const char* unit_kind_name(unit_kind k);

struct dispatched_instruction {
  uint64_t seq = 0;  // position in the command stream, from 0
  isa::instruction ins;
  // Constant-cache slots the instruction names, read at issue:
  // GEMV/GEMM: shape = weight_shape[shape_ptr] (M, N, K), size = fmap_shape[size_ptr];
  // MEMCPY: size = fmap_shape[shape_ptr] (X, Y, Z).
  std::array<uint16_t, 3> shape{};
  std::array<uint16_t, 3> size{};
  // L2 words read (the source; also the destination when the instruction
  // accumulates into it or takes it as an operand) and written. Inline:
  // every instruction builds and copies them.
  bounded_vector<isa::l2_range, 2> reads;
  bounded_vector<isa::l2_range, 1> writes;
  // Direct GEMV -> SFU path (npu.sfu.gemv_chaining): a GEMV publishes its
  // result words into `produces`; a chained CVO takes its source words from
  // `consumes` (the producing GEMV's stream) instead of L2.
  std::shared_ptr<result_stream> produces;
  std::shared_ptr<result_stream> consumes;
};

class completion_if {
 public:
  virtual ~completion_if() = default;
  // err = PCCX_ERR_NONE on success; detail explains a failure.
  virtual void retire(uint64_t seq, uint32_t err, const std::string& detail) = 0;
};

class execution_unit_if {
 public:
  virtual ~execution_unit_if() = default;
  virtual const char* unit_name() const = 0;
  // Called from the command processor's thread when the unit is free (one
  // instruction in flight per unit). Must not block.
  virtual void start(const dispatched_instruction& d, completion_if& done) = 0;
};

}  // namespace pccx::npu
