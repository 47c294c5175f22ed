// One-line disassembly of pccx v002 instructions (syntax: docs/reference/isa.md).
#include <cinttypes>
#include <cstdio>
#include <string>
#include <type_traits>

#include "infra/text/hex.h"
#include "models/npu/isa/instruction.h"
#include "pccx_isa.h"
#include "uCA_v1_api.h"

namespace pccx::isa {

namespace {

std::string addr(uint32_t value) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%05" PRIx32, value);
  return buf;
}

std::string hex16(uint16_t value) {
  return text::hex(value, 4);
}

struct flag_name {
  uint8_t bit;
  const char* name;
};

// " flags=a|b" for the set bits (most significant first), "" when none.
// Bits without a name (reserved) print as bitN.
template <size_t N>
std::string flags_text(uint8_t flags, const flag_name (&names)[N], unsigned width) {
  std::string out;
  for (int bit = static_cast<int>(width) - 1; bit >= 0; --bit) {
    if ((flags >> bit & 1u) == 0) continue;
    std::string name = "bit" + std::to_string(bit);
    for (const auto& n : names)
      if ((1u << bit) == n.bit) name = n.name;
    out += (out.empty() ? " flags=" : "|") + name;
  }
  return out;
}

const flag_name mm_flags[] = {
    {UCA_FLAG_FINDEMAX, "findemax"}, {UCA_FLAG_ACCM, "accm"}, {UCA_FLAG_W_SCALE, "w_scale"}};
const flag_name cvo_flags[] = {{UCA_CVO_FLAG_SUB_EMAX, "sub_emax"},
                               {UCA_CVO_FLAG_RECIP_SCALE, "recip_scale"},
                               {UCA_CVO_FLAG_ACCM, "accm"}};

}  // namespace

std::string disassemble(const instruction& ins) {
  return std::visit(
      [&](const auto& b) -> std::string {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, matmul_instr>) {
          const uint8_t wfmt = b.flags & PCCX_MM_WFMT_MASK;
          const bool kv = ins.op == opcode::gemv &&
                          (wfmt == PCCX_WFMT_KV_KEY_ROWS || wfmt == PCCX_WFMT_KV_VALUE_ACCUMULATE);
          return opcode_name(ins.op) + " dest=" + addr(b.dest_reg) + " src=" + addr(b.src_addr) +
                 flags_text(kv ? b.flags & ~PCCX_MM_WFMT_MASK : b.flags, mm_flags, 6) +
                 (kv ? wfmt == PCCX_WFMT_KV_KEY_ROWS ? " weights=kv-keys" : " weights=kv-values"
                     : "") +
                 " size=" + cache_bank_name(0) + "[" + std::to_string(b.size_ptr) +
                 "] shape=" + cache_bank_name(1) + "[" + std::to_string(b.shape_ptr) + "] lanes=" +
                 (ins.op == opcode::gemv && (b.lanes & PCCX_LANES_HEAD_PARALLEL)
                      ? std::to_string(b.lanes & PCCX_LANES_COUNT_MASK) + ",head"
                      : std::to_string(b.lanes));
        } else if constexpr (std::is_same_v<T, memcpy_instr>) {
          std::string s = "MEMCPY " + memcpy_route_name(b.route()) + " dest=" + addr(b.dest) +
                          " src=" + addr(b.src);
          if (b.aux_addr != 0) s += " aux=" + addr(b.aux_addr);
          s += " shape=" + cache_bank_name(0) + "[" + std::to_string(b.shape_ptr) + "]";
          if (b.async) s += " async";
          return s;
        } else if constexpr (std::is_same_v<T, memset_instr>) {
          // Shape banks hold integer extents; the scale banks hold BF16 bit
          // patterns, which read better in hex.
          const bool shape_bank = b.cache < 2;
          auto v = [&](uint16_t x) { return shape_bank ? std::to_string(x) : hex16(x); };
          return "MEMSET " + cache_bank_name(b.cache) + "[" + std::to_string(b.slot) + "] <- (" +
                 v(b.a) + ", " + v(b.b) + ", " + v(b.c) + ")";
        } else {
          std::string s = "CVO " + cvo_func_name(b.func) + " src=" + addr(b.src) +
                          " dst=" + addr(b.dst) + " len=" + std::to_string(b.length) +
                          flags_text(b.flags, cvo_flags, 5);
          if (b.async) s += " async";
          return s;
        }
      },
      ins.body);
}

std::string disassemble(uint64_t word, const decode_limits& limits) {
  const decode_result r = decode(word, limits);
  if (const auto* ins = std::get_if<instruction>(&r)) return disassemble(*ins);
  const auto& err = std::get<decode_error>(r);
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, word);
  return std::string(".word ") + buf + " ; illegal: " + error_name(err.code) + ": " + err.message;
}

}  // namespace pccx::isa
