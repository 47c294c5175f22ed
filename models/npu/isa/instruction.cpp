// Static decoder and encoder of pccx v002 instructions (instruction.h); the
// words themselves are assembled by pccx_isa_encode.h.
#include "models/npu/isa/instruction.h"

#include <cinttypes>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "infra/text/hex.h"
#include "pccx_isa.h"
#include "pccx_isa_encode.h"
#include "uCA_v1_api.h"

namespace pccx::isa {

namespace {

uint32_t get(uint64_t word, unsigned lsb, unsigned width) {
  return static_cast<uint32_t>(PCCX_FIELD_GET(word, lsb, width));
}

using text::hex;

std::string addr(uint32_t value) {
  return hex(value, 5);
}

decode_error fail(uint32_t code, std::string message) {
  return decode_error{code, std::move(message)};
}

std::string beyond_l2(const decode_limits& lim) {
  if (lim.l2_words == 0) return "beyond L2 (no L2 words configured)";
  return "beyond the last L2 word " + addr(lim.l2_words - 1);
}

std::string reserved_msg(const char* op, const char* what, uint32_t value) {
  return std::string(op) + " " + what + " = " + hex(value) + " must be zero";
}

std::string slot_msg(const char* op, const char* field, uint32_t value, const decode_limits& lim) {
  return std::string(op) + " " + field + " " + std::to_string(value) + " beyond the " +
         std::to_string(lim.cache_slots) + " constant-cache slots";
}

std::string l2_msg(const char* op, const char* field, uint32_t value, const decode_limits& lim) {
  return std::string(op) + " " + field + " " + addr(value) + " " + beyond_l2(lim);
}

decode_result decode_matmul(uint64_t word, opcode op, const decode_limits& lim) {
  const char* name = op == opcode::gemv ? "GEMV" : "GEMM";
  matmul_instr m;
  m.dest_reg = get(word, PCCX_MM_DEST_LSB, PCCX_MM_DEST_W);
  m.src_addr = get(word, PCCX_MM_SRC_LSB, PCCX_MM_SRC_W);
  m.flags = static_cast<uint8_t>(get(word, PCCX_MM_FLAGS_LSB, PCCX_MM_FLAGS_W));
  m.size_ptr = static_cast<uint8_t>(get(word, PCCX_MM_SIZE_PTR_LSB, PCCX_MM_SIZE_PTR_W));
  m.shape_ptr = static_cast<uint8_t>(get(word, PCCX_MM_SHAPE_PTR_LSB, PCCX_MM_SHAPE_PTR_W));
  m.lanes = static_cast<uint8_t>(get(word, PCCX_MM_LANE_LSB, PCCX_MM_LANE_W));
  const uint32_t rsv = get(word, PCCX_MM_RSV_LSB, PCCX_MM_RSV_W);

  const uint32_t wfmt = m.flags & PCCX_MM_WFMT_MASK;
  const bool kv_format = op == opcode::gemv && lim.gemv_kv_formats &&
                         (wfmt == PCCX_WFMT_KV_KEY_ROWS || wfmt == PCCX_WFMT_KV_VALUE_ACCUMULATE);
  if (wfmt != 0 && !kv_format)
    return fail(PCCX_ERR_RESERVED_BITS,
                reserved_msg(name, "flags reserved bits [2:0]", wfmt) +
                    (op == opcode::gemv && lim.gemv_kv_formats && wfmt > 2
                         ? " (GEMV weight formats: 1 KV key rows, 2 KV value accumulate)"
                     : op == opcode::gemv && !lim.gemv_kv_formats && wfmt <= 2
                         ? " (KV weight formats are off: npu.kv.gemv_formats)"
                         : ""));
  if (rsv != 0) return fail(PCCX_ERR_RESERVED_BITS, reserved_msg(name, "reserved bits [2:0]", rsv));

  if (op == opcode::gemv) {
    const uint32_t count = m.lanes & PCCX_LANES_COUNT_MASK;
    const bool head = m.lanes & PCCX_LANES_HEAD_PARALLEL;
    if (head && !lim.gemv_head_parallel)
      return fail(PCCX_ERR_INVALID_LANES, "GEMV lanes " + std::to_string(m.lanes) +
                                              ": bit 4 (head-parallel) is a platform extension and "
                                              "npu.gemv.head_parallel is off");
    if (!gemv_lanes(m.lanes, lim.gemv_cores, lim.upstream_readings))
      return fail(PCCX_ERR_INVALID_LANES,
                  "GEMV lanes " + std::to_string(m.lanes) +
                      (head ? " (head-parallel, " + std::to_string(count) + " cores)" : "") +
                      " exceeds the " + std::to_string(lim.gemv_cores) + " GEMV cores (0 = all)" +
                      (gemv_lanes(m.lanes, lim.gemv_cores, true)
                           ? "; strict reading: a count, not the upstream API's core mask"
                           : ""));
  } else if (m.lanes > 1 && !lim.upstream_readings) {
    return fail(PCCX_ERR_INVALID_LANES, "GEMM lanes " + std::to_string(m.lanes) +
                                            ": the single systolic array takes 0 or 1 (strict "
                                            "reading; otherwise the lanes are ignored)");
  }

  if (m.size_ptr >= lim.cache_slots)
    return fail(PCCX_ERR_INVALID_CACHE, slot_msg(name, "size_ptr", m.size_ptr, lim));
  if (m.shape_ptr >= lim.cache_slots)
    return fail(PCCX_ERR_INVALID_CACHE, slot_msg(name, "shape_ptr", m.shape_ptr, lim));

  if (m.dest_reg >= lim.l2_words)
    return fail(PCCX_ERR_L2_RANGE, l2_msg(name, "dest_reg", m.dest_reg, lim));
  if (m.src_addr >= lim.l2_words)
    return fail(PCCX_ERR_L2_RANGE, l2_msg(name, "src_addr", m.src_addr, lim));

  return instruction{op, word, m};
}

decode_result decode_memcpy(uint64_t word, const decode_limits& lim) {
  memcpy_instr m;
  m.from_host = get(word, PCCX_MC_FROM_LSB, 1) != 0;
  m.to_host = get(word, PCCX_MC_TO_LSB, 1) != 0;
  m.dest = get(word, PCCX_MC_DEST_LSB, PCCX_MC_DEST_W);
  m.src = get(word, PCCX_MC_SRC_LSB, PCCX_MC_SRC_W);
  m.aux_addr = get(word, PCCX_MC_AUX_LSB, PCCX_MC_AUX_W);
  m.shape_ptr = static_cast<uint8_t>(get(word, PCCX_MC_SHAPE_PTR_LSB, PCCX_MC_SHAPE_PTR_W));
  m.async = get(word, PCCX_MC_ASYNC_LSB, 1) != 0;

  if (m.aux_addr != 0)
    return fail(PCCX_ERR_RESERVED_BITS, "MEMCPY aux_addr = " + addr(m.aux_addr) +
                                            " must be zero: host addresses come from DMA "
                                            "descriptors");
  if (m.shape_ptr >= lim.cache_slots)
    return fail(PCCX_ERR_INVALID_CACHE, slot_msg("MEMCPY", "shape_ptr", m.shape_ptr, lim));
  if (m.route() == memcpy_route::kv_append && !lim.kv_append)
    return fail(PCCX_ERR_INVALID_ROUTE,
                "MEMCPY route kv-append (from_device=1, to_device=1): KV append path disabled");
  if (m.dest >= lim.l2_words) return fail(PCCX_ERR_L2_RANGE, l2_msg("MEMCPY", "dest", m.dest, lim));
  if (m.src >= lim.l2_words) return fail(PCCX_ERR_L2_RANGE, l2_msg("MEMCPY", "src", m.src, lim));

  return instruction{opcode::memcpy, word, m};
}

decode_result decode_memset(uint64_t word, const decode_limits& lim) {
  memset_instr m;
  m.cache = static_cast<uint8_t>(get(word, PCCX_MS_CACHE_LSB, PCCX_MS_CACHE_W));
  m.slot = static_cast<uint8_t>(get(word, PCCX_MS_SLOT_LSB, PCCX_MS_SLOT_W));
  m.a = static_cast<uint16_t>(get(word, PCCX_MS_A_LSB, PCCX_MS_VALUE_W));
  m.b = static_cast<uint16_t>(get(word, PCCX_MS_B_LSB, PCCX_MS_VALUE_W));
  m.c = static_cast<uint16_t>(get(word, PCCX_MS_C_LSB, PCCX_MS_VALUE_W));
  const uint32_t rsv = get(word, PCCX_MS_RSV_LSB, PCCX_MS_RSV_W);

  if (rsv != 0)
    return fail(PCCX_ERR_RESERVED_BITS, reserved_msg("MEMSET", "reserved bits [3:0]", rsv));
  if (((lim.enabled_banks >> m.cache) & 1u) == 0)
    return fail(PCCX_ERR_INVALID_CACHE, "MEMSET dest_cache " + std::to_string(m.cache) + " (" +
                                            cache_bank_name(m.cache) + "): bank not enabled");
  if (m.slot >= lim.cache_slots)
    return fail(PCCX_ERR_INVALID_CACHE, slot_msg("MEMSET", "dest_addr", m.slot, lim));

  return instruction{opcode::memset, word, m};
}

std::string range_msg(const char* what, const l2_range& r, uint32_t length,
                      const decode_limits& lim) {
  return std::string("CVO ") + what + " range " + addr(r.first) + ".." +
         addr(r.first + r.words - 1) + " (" + std::to_string(r.words) + " words for " +
         std::to_string(length) + " elements) ends " + beyond_l2(lim);
}

bool range_beyond(const l2_range& r, const decode_limits& lim) {
  return static_cast<uint64_t>(r.first) + r.words > lim.l2_words;
}

decode_result decode_cvo(uint64_t word, const decode_limits& lim) {
  cvo_instr c;
  c.func = static_cast<uint8_t>(get(word, PCCX_CVO_FUNC_LSB, PCCX_CVO_FUNC_W));
  c.src = get(word, PCCX_CVO_SRC_LSB, PCCX_CVO_SRC_W);
  c.dst = get(word, PCCX_CVO_DST_LSB, PCCX_CVO_DST_W);
  c.length = static_cast<uint16_t>(get(word, PCCX_CVO_LEN_LSB, PCCX_CVO_LEN_W));
  c.flags = static_cast<uint8_t>(get(word, PCCX_CVO_FLAGS_LSB, PCCX_CVO_FLAGS_W));
  c.async = get(word, PCCX_CVO_ASYNC_LSB, 1) != 0;

  if ((c.flags & PCCX_CVO_FLAGS_RSV_MASK) != 0)
    return fail(PCCX_ERR_RESERVED_BITS, reserved_msg("CVO", "flags reserved bits [1:0]",
                                                     c.flags & PCCX_CVO_FLAGS_RSV_MASK));

  if (c.func > PCCX_CVO_LAST_DEFINED)
    return fail(PCCX_ERR_UNKNOWN_CVO_FUNC,
                "CVO cvo_func " + hex(c.func) + ": undefined function code");
  if (c.func > UCA_CVO_RECIP && !lim.cvo_extensions)
    return fail(PCCX_ERR_UNKNOWN_CVO_FUNC, "CVO cvo_func " + hex(c.func) + " (" +
                                               cvo_func_name(c.func) +
                                               "): platform extension disabled");

  if (c.length == 0) return fail(PCCX_ERR_ZERO_LENGTH, "CVO length 0: zero-length transfer");
  if (c.length > lim.cvo_max_length && !lim.upstream_readings)
    return fail(PCCX_ERR_LENGTH_TOO_LARGE, "CVO length " + std::to_string(c.length) +
                                               " exceeds the limit of " +
                                               std::to_string(lim.cvo_max_length) +
                                               " elements (strict reading; otherwise it runs in "
                                               "passes)");

  if (c.src >= lim.l2_words) return fail(PCCX_ERR_L2_RANGE, l2_msg("CVO", "src", c.src, lim));
  if (c.dst >= lim.l2_words) return fail(PCCX_ERR_L2_RANGE, l2_msg("CVO", "dst", c.dst, lim));
  const l2_range in = cvo_source_range(c);
  if (range_beyond(in, lim)) return fail(PCCX_ERR_L2_RANGE, range_msg("source", in, c.length, lim));
  const l2_range out = cvo_dest_range(c);
  if (range_beyond(out, lim))
    return fail(PCCX_ERR_L2_RANGE, range_msg("destination", out, c.length, lim));

  return instruction{opcode::cvo, word, c};
}

}  // namespace

std::optional<gemv_lane_reading> gemv_lanes(uint8_t lanes, uint32_t cores, bool upstream) {
  const uint32_t count = lanes & PCCX_LANES_COUNT_MASK;
  if (count <= cores) return gemv_lane_reading{count == 0 ? cores : count, false};
  if (!upstream || cores >= 32 || (count >> cores) != 0) return std::nullopt;
  uint32_t active = 0;
  for (uint32_t b = count; b != 0; b &= b - 1) ++active;
  return gemv_lane_reading{active, true};
}

memcpy_route memcpy_instr::route() const {
  if (from_host && to_host) return memcpy_route::kv_append;
  if (from_host) return memcpy_route::host_to_l2;
  if (to_host) return memcpy_route::l2_to_host;
  return memcpy_route::l2_to_l2;
}

uint32_t l2_words_for_elements(uint32_t elements) {
  return elements / PCCX_BF16_PER_L2_WORD + (elements % PCCX_BF16_PER_L2_WORD != 0 ? 1u : 0u);
}

l2_range cvo_source_range(const cvo_instr& cvo) {
  // SCALE streams its scalar first: the word at src holds it, the vector
  // follows from src + 1.
  const uint32_t scalar_word = cvo.func == UCA_CVO_SCALE && cvo.length != 0 ? 1 : 0;
  return l2_range{cvo.src, l2_words_for_elements(cvo.length) + scalar_word};
}

l2_range cvo_dest_range(const cvo_instr& cvo) {
  if (cvo.length == 0) return l2_range{cvo.dst, 0};
  if (cvo.func == UCA_CVO_REDUCE_SUM) return l2_range{cvo.dst, 1};
  return l2_range{cvo.dst, l2_words_for_elements(cvo.length)};
}

decode_result decode(uint64_t word, const decode_limits& limits) {
  const uint32_t op = get(word, PCCX_OPCODE_LSB, PCCX_OPCODE_W);
  switch (op) {
    case UCA_OP_GEMV: return decode_matmul(word, opcode::gemv, limits);
    case UCA_OP_GEMM: return decode_matmul(word, opcode::gemm, limits);
    case UCA_OP_MEMCPY: return decode_memcpy(word, limits);
    case UCA_OP_MEMSET: return decode_memset(word, limits);
    case UCA_OP_CVO: return decode_cvo(word, limits);
    default: return fail(PCCX_ERR_UNKNOWN_OPCODE, "opcode " + hex(op) + ": reserved opcode");
  }
}

uint64_t encode(const instruction& ins) {
  return std::visit(
      [&](const auto& body) -> uint64_t {
        using T = std::decay_t<decltype(body)>;
        if constexpr (std::is_same_v<T, matmul_instr>) {
          if (ins.op != opcode::gemv && ins.op != opcode::gemm)
            throw std::invalid_argument("encode: GEMV/GEMM body with opcode " +
                                        opcode_name(ins.op));
          return pccx_encode_matmul(static_cast<uint8_t>(ins.op), body.dest_reg, body.src_addr,
                                    body.flags, body.size_ptr, body.shape_ptr, body.lanes, 0);
        } else if constexpr (std::is_same_v<T, memcpy_instr>) {
          if (ins.op != opcode::memcpy)
            throw std::invalid_argument("encode: MEMCPY body with opcode " + opcode_name(ins.op));
          return pccx_encode_memcpy(body.from_host, body.to_host, body.dest, body.src,
                                    body.aux_addr, body.shape_ptr, body.async);
        } else if constexpr (std::is_same_v<T, memset_instr>) {
          if (ins.op != opcode::memset)
            throw std::invalid_argument("encode: MEMSET body with opcode " + opcode_name(ins.op));
          return pccx_encode_memset(body.cache, body.slot, body.a, body.b, body.c, 0);
        } else {
          static_assert(std::is_same_v<T, cvo_instr>);
          if (ins.op != opcode::cvo)
            throw std::invalid_argument("encode: CVO body with opcode " + opcode_name(ins.op));
          return pccx_encode_cvo(body.func, body.src, body.dst, body.length, body.flags,
                                 body.async);
        }
      },
      ins.body);
}

std::string opcode_name(opcode op) {
  switch (op) {
    case opcode::gemv: return "GEMV";
    case opcode::gemm: return "GEMM";
    case opcode::memcpy: return "MEMCPY";
    case opcode::memset: return "MEMSET";
    case opcode::cvo: return "CVO";
  }
  return "OP_" + hex(static_cast<uint8_t>(op));
}

std::string cvo_func_name(uint8_t func) {
  static const char* const names[] = {"EXP",   "SQRT",  "GELU", "SIN", "COS", "REDUCE_SUM",
                                      "SCALE", "RECIP", "TANH", "MUL", "ADD", "MAX"};
  static_assert(sizeof names / sizeof names[0] == PCCX_CVO_LAST_DEFINED + 1,
                "one name per defined CVO function");
  if (func <= PCCX_CVO_LAST_DEFINED) return names[func];
  char buf[16];
  std::snprintf(buf, sizeof buf, "FUNC_0x%X", static_cast<unsigned>(func));
  return buf;
}

std::string error_name(uint32_t code) {
  switch (code) {
    case PCCX_ERR_NONE: return "ERR_NONE";
    case PCCX_ERR_UNKNOWN_OPCODE: return "ERR_UNKNOWN_OPCODE";
    case PCCX_ERR_RESERVED_BITS: return "ERR_RESERVED_BITS";
    case PCCX_ERR_UNKNOWN_CVO_FUNC: return "ERR_UNKNOWN_CVO_FUNC";
    case PCCX_ERR_L2_RANGE: return "ERR_L2_RANGE";
    case PCCX_ERR_ZERO_LENGTH: return "ERR_ZERO_LENGTH";
    case PCCX_ERR_LENGTH_TOO_LARGE: return "ERR_LENGTH_TOO_LARGE";
    case PCCX_ERR_UNWRITTEN_SLOT: return "ERR_UNWRITTEN_SLOT";
    case PCCX_ERR_INVALID_ROUTE: return "ERR_INVALID_ROUTE";
    case PCCX_ERR_INVALID_CACHE: return "ERR_INVALID_CACHE";
    case PCCX_ERR_INVALID_LANES: return "ERR_INVALID_LANES";
    case PCCX_ERR_UNIT_UNAVAILABLE: return "ERR_UNIT_UNAVAILABLE";
    case PCCX_ERR_UNIT_FAULT: return "ERR_UNIT_FAULT";
    case PCCX_ERR_DMA_ADDRESS: return "ERR_DMA_ADDRESS";
    default: {
      char buf[24];
      std::snprintf(buf, sizeof buf, "ERR_0x%02X", static_cast<unsigned>(code));
      return buf;
    }
  }
}

std::string memcpy_route_name(memcpy_route route) {
  switch (route) {
    case memcpy_route::l2_to_l2: return "L2->L2";
    case memcpy_route::l2_to_host: return "L2->host";
    case memcpy_route::host_to_l2: return "host->L2";
    case memcpy_route::kv_append: return "kv-append";
  }
  return "route_" + std::to_string(static_cast<unsigned>(route));
}

std::string cache_bank_name(uint8_t bank) {
  switch (bank) {
    case 0: return "fmap_shape";
    case 1: return "weight_shape";
    case 2: return "head_scale";
    case 3: return "channel_scale";
    default: return "cache_" + std::to_string(static_cast<unsigned>(bank));
  }
}

}  // namespace pccx::isa
