#include "models/npu/core/matmul_extents.h"

namespace pccx::npu {

namespace {
std::string text(const slot_value& v) {
  return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) +
         ")";
}
}  // namespace

std::optional<matmul_extents> upstream_extents(isa::opcode op, const isa::matmul_instr& mm,
                                               const slot_reader& read) {
  const bool gemv = op == isa::opcode::gemv;
  const std::string name = gemv ? "GEMV" : "GEMM";
  matmul_extents e;
  const auto weight = read(1, mm.shape_ptr);
  if (!weight) {
    // The RTL's reading: shape_ptr names the fmap_shape slot whose X*Y*Z
    // activations the L2->L1 load moves; a GEMV accumulates size_ptr
    // results (num_recur), a GEMM stores one array pass of 32 results.
    const auto act = read(0, mm.shape_ptr);
    if (!act) return std::nullopt;
    const uint64_t k = uint64_t{(*act)[0]} * (*act)[1] * (*act)[2];
    if (k == 0 || k > 0xFFFF) return std::nullopt;
    const uint16_t n = gemv ? mm.size_ptr : kRtlGemmStoreElements;
    e.shape = {1, n, static_cast<uint16_t>(k)};
    e.size = {1, 1, static_cast<uint16_t>(k)};
    e.upstream = name + " shape_ptr names weight_shape[" + std::to_string(mm.shape_ptr) +
                 "], never written: read the RTL's way, activations fmap_shape[" +
                 std::to_string(mm.shape_ptr) + "] = " + text(*act) + ", " +
                 (gemv ? "N = size_ptr = " + std::to_string(n) + " results"
                       : "N = " + std::to_string(n) + " results (one array pass)") +
                 ": (M, N, K) = " + text(e.shape);
    return e;
  }
  if (read(0, mm.size_ptr)) return std::nullopt;
  // The API documentation's example writes weight shapes only: the
  // activations are the M x K the weight shape implies.
  const uint64_t mk = uint64_t{(*weight)[0]} * (*weight)[2];
  if (mk == 0 || mk > 0xFFFF) return std::nullopt;
  e.shape = *weight;
  e.size = {1, (*weight)[0], (*weight)[2]};
  e.upstream = name + " size_ptr names fmap_shape[" + std::to_string(mm.size_ptr) +
               "], never written: activations taken as M x K = " + std::to_string(mk) +
               " from weight_shape[" + std::to_string(mm.shape_ptr) + "] = " + text(*weight);
  return e;
}

std::optional<matmul_extents> resolve_extents(isa::opcode op, const isa::matmul_instr& mm,
                                              const slot_reader& read, bool strict) {
  const auto weight = read(1, mm.shape_ptr);
  const auto act = read(0, mm.size_ptr);
  if (weight && act) return matmul_extents{*weight, *act, ""};
  if (strict) return std::nullopt;
  return upstream_extents(op, mm, read);
}

}  // namespace pccx::npu
