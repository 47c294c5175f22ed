// The configuration section of the NPU (`npu.*`), owned by the NPU module:
// the command path (CMD_IN depth, decoder and scheduler stages, constant
// cache), the GEMV core count and the sections of the datapath's parts, each
// defined next to its model. npu_params (models/npu/core/npu_params.h) holds
// this section as it is; decode_limits_of() is all the instruction decoder
// needs, so `disasm` and `replay` read it without building the NPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "infra/config/config_schema.h"
#include "models/kv/kv_datapath_config.h"
#include "models/memory/l2/l2_config.h"
#include "models/npu/isa/instruction.h"
#include "models/npu/units/gemm_config.h"
#include "models/npu/units/gemv_config.h"
#include "models/npu/units/sfu_config.h"

namespace pccx::config {

struct cache_bank_config {
  std::string name;
  bool enabled = true;

  template <class V>
  void visit(V& v) {
    v.field("name", name, "Bank name (unique)");
    v.field("enabled", enabled, "Whether the bank accepts writes");
  }
};

struct constant_cache_config {
  std::uint32_t slots = 64;
  std::uint32_t write_cycles = 1;
  std::vector<cache_bank_config> banks = {
      {"fmap_shape", true}, {"weight_shape", true}, {"head_scale", true}, {"channel_scale", true}};

  template <class V>
  void visit(V& v) {
    v.field("slots", slots, "Slots per bank",
            range(1, 64, "at least one slot; MEMSET dest_addr and shape_ptr are 6 bits (64)"));
    v.field("write_cycles", write_cycles, "Cycles to write one slot",
            range(0, 1000, "0 = free writes (RTL: 1 clock); 1,000 is a modelling cap"));
    v.field("banks", banks,
            "Constant-cache banks; the first two must be fmap_shape and weight_shape, enabled",
            items(4));
  }
  void validate(validator& check) const;
};

struct memcpy_config {
  bool kv_append = true;
  std::uint32_t chunk_words = 16;

  template <class V>
  void visit(V& v) {
    v.field("kv_append", kv_append, "Route from_device=1,to_device=1 (KV append) is available");
    v.field("chunk_words", chunk_words,
            "Words MEMCPY moves per pipeline step: finer traces versus simulation speed",
            range(1, 65536,
                  "at least one word per step; 65,536 words (a 1 MiB buffer) is a modelling cap"));
  }
};

// Shared by the decoder and scheduler register stages.
constexpr const char* kStageCyclesRange =
    "0 = no register stage (RTL: 1 clock each); 1,000 is a modelling cap";

struct npu_config {
  std::uint32_t cmd_fifo_depth = 8;
  std::uint32_t decode_cycles = 1;
  std::uint32_t issue_cycles = 1;
  std::uint32_t gemv_cores = 4;
  gemv_config gemv;
  gemm_config gemm;
  l2_config l2;
  constant_cache_config constant_cache;
  sfu_config sfu;
  memcpy_config memcpy;
  kv_datapath_config kv;

  template <class V>
  void visit(V& v) {
    v.field("cmd_fifo_depth", cmd_fifo_depth, "Depth of the CMD_IN instruction FIFO",
            range(1, 1024,
                  "at least one slot (RTL: 8); 1,024 64-bit words fill a BRAM36 pair (1K x 72)"));
    v.field("decode_cycles", decode_cycles, "Decoder register stage",
            range(0, 1000, kStageCyclesRange));
    v.field("issue_cycles", issue_cycles, "Scheduler stage", range(0, 1000, kStageCyclesRange));
    v.field("gemv_cores", gemv_cores, "Number of GEMV cores",
            range(1, 32, "at least one core; 32 is a modelling cap, 8x the four v002 cores"));
    v.field("gemv", gemv, "GEMV engine");
    v.field("gemm", gemm, "GEMM systolic array (weights from HP0 and HP1)");
    v.field("l2", l2, "L2 scratchpad");
    v.field("constant_cache", constant_cache, "Constant cache (shapes and scales)");
    v.field("sfu", sfu, "Special-function unit (CVO instructions)");
    v.field("memcpy", memcpy, "MEMCPY routes");
    v.field("kv", kv, "KV-cache append and read datapath");
  }
};

// simulation.lint: what a driver-lint warning does (models/npu/core/driver_lint.h).
enum class lint_mode : uint8_t { off, warn, error };

// The instruction decoder's limits: L2 size, cores, CVO limits, enabled banks;
// strict (simulation.strict) refuses the upstream artefacts' readings.
isa::decode_limits decode_limits_of(const npu_config& npu, bool strict = false);

}  // namespace pccx::config
