// The host side of the decode core (firmware/programs/gemma_decode/): from
// a model file, the platform's KV formats, a context L, a token count N and
// a ring cap it plans the DDR (llm::plan_ddr), builds the parameter block,
// marks the KV rings as already holding L tokens, runs the firmware for N
// tokens and collects per-token latency, instructions, utilisation, engine
// time split, DDR bytes by class and the roofline bound. docs/models/decode.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "platform/config/platform_config.h"
#include "platform/vp/top/simulation.h"
#include "platform/workload/llm/ddr_plan.h"
#include "platform/workload/llm/model_config.h"
#include "platform/workload/llm/roofline.h"
#include "platform/workload/llm/weight_image.h"

namespace pccx::workload {

struct decode_options {
  uint32_t context = 1024;  // L: tokens already in the KV rings
  uint32_t tokens = 4;      // N: tokens decoded
  uint32_t ring_cap = 0;    // max_tokens of the rings; 0 = L + N
  uint32_t sinks = 0;       // first tokens every full-history ring keeps (sink + window)
  // Records a sliding-window ring holds beyond the window (llm::ring_of):
  // what a prefill of chunks of C rows needs (C - 1); the decode still
  // attends the window.
  uint32_t window_extra = 0;
  // P: prompt tokens prefilled before the N decoded (their K/V appended to
  // the rings after the L context tokens; the last one's logits kept), in
  // chunks of `chunk` rows. token_ids then holds P + N ids.
  uint32_t prompt_tokens = 0;
  uint32_t chunk = 1;
  uint32_t lm_tile = 2048;  // LM-head rows per GEMV (<= 2048; rounded down to whole words and F)
  std::vector<uint32_t> token_ids;  // the N tokens decoded; empty = default_token_ids
  bool per_layer = false;           // time and instructions per part (entry, layers, exit)
  // Non-zero: a functional check. Synthetic weights (llm::weight_image of
  // this seed) and KV history (seed + 1) are written into DDR, and the
  // logits are compared with llm::reference_decoder. Needs
  // simulation.mode=functional and a small model.
  uint64_t reference_seed = 0;
  // With reference_seed: DDR contents written after the reference's inputs
  // (e.g. another run's KV rings, to decode from a cache written directly).
  std::vector<llm::blob> ddr_overrides;
  // Empty: the decode program runs as host code. Else the path of its
  // AArch64 ELF (the board's binary, firmware/aarch64/programs/
  // gemma_decode.elf in the build), run on the instruction-set simulator.
  std::string firmware_elf;
};

// One part of a token (entry, layer l, exit, sync), averaged over the
// tokens: from the completion of the previous part's last instruction to
// the completion of this part's last one (entry: from the token's start;
// sync: from the exit's last instruction to the token's end marker).
struct part_time {
  std::string name;
  double instructions = 0;
  double ns = 0;
};

// Where the runner puts the firmware's working memory (docs/models/decode.md).
struct block_addresses {
  uint64_t scratch = 0;                  // GD_SCRATCH_BYTES of staging
  uint64_t logits = 0;                   // 2 x vocab bytes per token
  uint32_t logits_stride = 0;            // 0: every token writes the same logits
  llm::planned_matrix rotation;          // H / sqrt(d) in the plan's F parts (rotated KV formats)
  std::vector<uint8_t> weight_channels;  // the GEMV's weight FIFOs (npu.gemv.weight_fifos)
  uint32_t l2_words = 0;                 // npu.l2.words (0: the firmware's default)
  uint64_t prefill_scratch = 0;          // chunk > 1: chunk x GD_SCRATCH_BYTES of staging
  uint32_t ffn_part = 0;                 // chunk > 1: FFN columns per GEMM slice
};

// The most prompt rows a chunk of the decode program's prefill takes: the
// GEMM's activation buffer (npu.gemm.act_buffer_bytes over the widest
// K-part), the L2 after the decode's layout (the rows' buffers,
// gd_plan_prefill_l2) and GD_MAX_CHUNK; a prompt's chunk 0 means this.
uint32_t prefill_chunk_limit(const config::platform_config& cfg, const llm::model_config& m,
                             const decode_options& o);

// The query tiles of the prompt's last whole chunk (its longest spans), per
// KV ring group: rows attending together and the records of their stream.
struct prefill_query_tile {
  std::string ring;
  uint32_t rows = 0, span = 0;
};
std::vector<prefill_query_tile> prefill_query_tiles(const config::platform_config& cfg,
                                                    const llm::model_config& m,
                                                    const decode_options& o, uint32_t chunk);

// Token ids a run decodes when none are given: (7919 t + 2) mod vocab.
std::vector<uint32_t> default_token_ids(const llm::model_config& m, uint32_t n);

struct engine_time {
  uint64_t busy = 0, idle = 0, stall = 0;  // core clocks; stall: the engine's stall counters
};

// The prompt's share of a run with a prompt, between the markers "decode:
// prefill" and "decode: prefill end" (counters and DDR bytes read at both).
struct prefill_report {
  uint32_t prompt = 0, chunk = 0;
  double ttft_ns = 0;
  double tokens_per_s = 0;  // prompt / ttft
  uint64_t gemm_macs = 0, macs = 0, cycles = 0, instructions = 0;
  double gemm_utilisation = 0;  // gemm_macs / (GEMM peak x cycles)
  double npu_utilisation = 0;   // macs / ((GEMV + GEMM peak) x cycles)
  std::map<std::string, uint64_t> ddr_bytes;  // per class
  // Of that, the last row's exit and LM head (from the marker "decode:
  // prefill exit"; chunks above 1 only).
  struct {
    double ns = 0;
    uint64_t gemm_macs = 0, macs = 0, cycles = 0;
    std::map<std::string, uint64_t> ddr_bytes;
  } exit;
  llm::roofline bound;                        // llm::prefill_roofline of the run's tiling
  double bound_ratio = 0;                     // ttft / bound
};

struct decode_report {
  std::string model;
  uint32_t context = 0, tokens = 0, ring_cap = 0;
  std::vector<double> latency_ns;      // per token, between its two markers
  std::vector<uint64_t> instructions;  // per token, NPU instructions retired
  // An AArch64 ELF: per token, instructions the firmware CPU retired and
  // their time at the A53 clock (cpu.clock_mhz, cpu.cycles_per_instruction).
  std::vector<uint64_t> cpu_instructions;
  std::vector<double> cpu_busy_ns;
  uint64_t gemv_macs = 0, macs = 0, cycles = 0;
  double gemv_utilisation = 0;                        // gemv_macs / (GEMV peak per clock x cycles)
  double npu_utilisation = 0;                         // macs / ((GEMV + GEMM peak) x cycles)
  std::map<std::string, engine_time> engines;         // gemv, gemm, sfu, dma
  std::map<std::string, uint64_t> ddr_bytes;          // per class, whole run
  std::map<std::string, double> ddr_bytes_per_token;  // decode classes / N
  double achieved_gbps = 0;                           // decode bytes / summed token latency
  // DRAM energy (IDD method, ddr.energy) per decode class / N, and per bit
  // the decode classes moved; empty with the fixed DDR model.
  std::map<std::string, double> dram_mj_per_token;
  double dram_pj_per_bit = 0;
  std::vector<llm::roofline> bound;  // per token (context L + 1 + t)
  double bound_ratio = 0;            // mean latency / mean bound
  std::vector<part_time> parts;      // with decode_options::per_layer
  // With reference_seed, per token: cosine of the platform's logits to the
  // reference's through the platform's KV formats, and to the exact one.
  std::vector<double> reference_cosine, reference_cosine_exact;
  // With a prompt: its time to first token (the prefill's markers) and the
  // cosines of its last token's logits (through the formats, exact).
  double ttft_ns = 0;
  prefill_report prefill;
  double prompt_cosine = 0, prompt_cosine_exact = 0;
  // With reference_seed: the logits of every slot as read back (BF16 bits)
  // and the KV rings' regions at the end of the run.
  std::vector<std::vector<uint16_t>> logits;
  std::vector<llm::blob> kv_rings;
  // With reference_seed: every record the run wrote that the rings still
  // hold, decoded, against the reference's record of that position (through
  // the same KV formats): the lowest cosine, and how many were compared.
  double kv_record_min_cosine = 0;
  uint64_t kv_records_compared = 0;
  double wall_time_s = 0;
  vp::run_result run;
  std::string text() const;  // a human-readable summary
};

// The parameter block of docs/models/decode.md for a planned model.
std::vector<uint8_t> decode_param_block(const llm::model_config& m, const llm::ddr_plan& plan,
                                        const decode_options& o, const block_addresses& at,
                                        const llm::kv_formats& kvf);

// Everything run_decode checks before it simulates (the DDR plan, the
// decode program's limits, the L2 layout), without simulating: throws as
// run_decode would (--validate-only).
void check_decode(const config::platform_config& cfg, const llm::model_config& m,
                  const decode_options& o);

// Runs the decode on a platform (simulation.mode is the caller's; timing
// mode writes no weight bytes, only the block). One per process.
decode_report run_decode(const config::platform_config& cfg, const llm::model_config& m,
                         const decode_options& o);

}  // namespace pccx::workload
