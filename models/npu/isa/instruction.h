// Decoded pccx v002 instructions and the static (word-only) decoder.
//
// Decoding is split in two: decode() checks everything the word alone can
// tell (opcode, reserved bits, field ranges, function codes, lane counts);
// checks that need NPU state (shape slots written, units present) happen in
// the command processor. disassemble() never fails: an illegal word prints
// as ".word" with the reason.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "pccx_npu_regs.h"

namespace pccx::isa {

enum class opcode : uint8_t { gemv = 0x0, gemm = 0x1, memcpy = 0x2, memset = 0x3, cvo = 0x4 };

// GEMV and GEMM share one layout.
struct matmul_instr {
  uint32_t dest_reg = 0;  // L2 word address of the result
  uint32_t src_addr = 0;  // L2 word address of the activations
  uint8_t flags = 0;      // UCA_FLAG_*
  uint8_t size_ptr = 0;   // fmap_shape slot: activation extents (X, Y, Z)
  uint8_t shape_ptr = 0;  // weight_shape slot: (M, N, K)
  uint8_t lanes = 0;      // GEMV: [3:0] active cores, 0 = all; [4] head-parallel
};

enum class memcpy_route : uint8_t {
  l2_to_l2 = 0,    // from NPU to NPU
  l2_to_host = 1,  // from NPU to host
  host_to_l2 = 2,  // from host to NPU
  kv_append = 3,   // from=1 to=1: L2 -> DDR ring slot, quantized in line
};

struct memcpy_instr {
  bool from_host = false;  // from_device bit (1 = host)
  bool to_host = false;    // to_device bit (1 = host)
  uint32_t dest = 0;       // L2 word address (NPU side)
  uint32_t src = 0;        // L2 word address (NPU side)
  uint32_t aux_addr = 0;   // reserved: host addresses come from DMA descriptors
  uint8_t shape_ptr = 0;   // fmap_shape slot giving the length
  bool async = false;
  memcpy_route route() const;
};

struct memset_instr {
  uint8_t cache = 0;  // 0 fmap_shape, 1 weight_shape, 2/3 constant banks
  uint8_t slot = 0;
  uint16_t a = 0, b = 0, c = 0;
};

struct cvo_instr {
  uint8_t func = 0;     // UCA_CVO_* or PCCX_CVO_*
  uint32_t src = 0;     // L2 word address
  uint32_t dst = 0;     // L2 word address
  uint16_t length = 0;  // elements (BF16)
  uint8_t flags = 0;    // UCA_CVO_FLAG_*
  bool async = false;
};

struct instruction {
  opcode op = opcode::memset;
  uint64_t word = 0;
  std::variant<matmul_instr, memcpy_instr, memset_instr, cvo_instr> body;
};

// Limits the static decoder checks against; filled from the configuration.
struct decode_limits {
  uint32_t l2_words = 114688;      // valid word addresses are 0..l2_words-1
  uint32_t gemv_cores = 4;         // parallel_lane[3:0] may be 0..gemv_cores
  bool gemv_head_parallel = true;  // parallel_lane[4] (head-parallel) accepted
  bool gemv_kv_formats = true;     // GEMV flags[2:0] = 1, 2 (KV weight streams) accepted
  uint32_t cvo_max_length = 2048;  // elements per CVO instruction
  bool cvo_extensions = true;      // accept PCCX_CVO_* codes 0x8..0xB
  uint32_t cache_slots = 64;       // constant-cache slots per bank
  uint8_t enabled_banks = 0x0F;    // bit n set: MEMSET dest_cache n exists
  bool kv_append = true;           // MEMCPY from=1 to=1 exists
  // Accept what upstream pccx artefacts write where they depart from the
  // platform's strict reading (GEMV lanes as a core mask, GEMM lanes, CVO
  // longer than cvo_max_length); the command processor warns on each.
  // simulation.strict turns this off: the departures are decode errors.
  bool upstream_readings = true;
};

struct decode_error {
  uint32_t code = PCCX_ERR_NONE;  // PCCX_ERR_*
  std::string message;            // names the field and its value
};

using decode_result = std::variant<instruction, decode_error>;

// Static checks of one word. When several fail, the first in this order is
// reported (docs/reference/isa.md): unknown opcode, reserved bits, CVO function code,
// lanes, cache slot/bank, MEMCPY route, zero length, length too large, L2
// range; inside one step, fields are checked from the most significant bit
// down (and L2 start addresses before range ends).
decode_result decode(uint64_t word, const decode_limits& limits);

// The GEMV cores parallel_lane asks for: [3:0] a count (0 = all), or, read
// the upstream API documentation's way when the count is above `cores` and
// upstream readings are on, a mask of cores (0x0F = four cores). nullopt:
// neither reading fits.
struct gemv_lane_reading {
  uint32_t cores = 0;
  bool mask = false;  // read as a mask
};
std::optional<gemv_lane_reading> gemv_lanes(uint8_t lanes, uint32_t cores, bool upstream);

// Inverse of decode for a legal instruction (used by tests and tools).
uint64_t encode(const instruction& ins);

// One readable line, e.g. "MEMSET weight_shape[3] <- (1, 2048, 2048)".
std::string disassemble(uint64_t word, const decode_limits& limits);
// The same text for an already decoded instruction (never fails).
std::string disassemble(const instruction& ins);

std::string opcode_name(opcode op);
std::string cvo_func_name(uint8_t func);
std::string error_name(uint32_t code);
// "L2->L2", "L2->host", "host->L2", "kv-append".
std::string memcpy_route_name(memcpy_route route);
// MEMSET dest_cache: "fmap_shape", "weight_shape", "head_scale",
// "channel_scale" (else "cache_N").
std::string cache_bank_name(uint8_t bank);

// L2 word ranges an instruction reads and writes, for hazard checks. The
// lengths that depend on shape slots are passed in by the caller.
struct l2_range {
  uint32_t first = 0;  // first word
  uint32_t words = 0;  // 0 = empty range
  bool overlaps(const l2_range& o) const {
    return words != 0 && o.words != 0 && first < o.first + o.words && o.first < first + words;
  }
};

// 128-bit L2 words holding `elements` BF16 values: ceil(elements / 8).
uint32_t l2_words_for_elements(uint32_t elements);
// Words a CVO reads at src: ceil(length / 8), plus the scalar word for SCALE. (MUL and ADD also
// read the vector at dst, i.e. cvo_dest_range.)
l2_range cvo_source_range(const cvo_instr& cvo);
// Words a CVO writes at dst: 1 for REDUCE_SUM, ceil(length / 8) otherwise.
l2_range cvo_dest_range(const cvo_instr& cvo);

}  // namespace pccx::isa
