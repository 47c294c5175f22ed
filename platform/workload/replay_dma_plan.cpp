#include "platform/workload/replay_dma_plan.h"

#include <algorithm>
#include <map>

#include "infra/text/hex.h"
#include "models/npu/core/matmul_extents.h"
#include "models/npu/npu_config.h"
#include "models/npu/units/gemm_unit.h"
#include "models/npu/units/gemv_unit.h"
#include "pccx_dma.h"
#include "pccx_isa.h"
#include "pccx_replay.h"
#include "platform/vp/top/simulation.h"
#include "uCA_v1_api.h"

namespace pccx::workload {

namespace {

constexpr uint64_t kBufferAlign = 64;

struct planner {
  replay_input& in;
  const config::platform_config& cfg;
  uint64_t next;  // next free buffer byte
  std::size_t added = 0;

  void add(unsigned channel, unsigned cls, uint64_t bytes, std::size_t word) {
    if (bytes == 0) return;
    const std::size_t line = in.words[word].line;
    if (bytes > 0xFFFFFFFFull)
      throw vp::input_error(in.file + ":" + std::to_string(line) + ": --auto-dma: " +
                            std::to_string(bytes) + " bytes exceed one DMA descriptor (4 GiB - 1)");
    const uint64_t ddr_end = cfg.memory_map.ddr_base + cfg.memory_map.ddr_size;
    if (next < cfg.memory_map.ddr_base || next > ddr_end || bytes > ddr_end - next)
      throw vp::input_error(
          in.file + ":" + std::to_string(line) + ": --auto-dma: the buffer of " +
          std::to_string(bytes) + " bytes at " + text::hex_word(next) +
          " does not fit in DDR (memory_map.ddr_base, ddr_size); give a lower --auto-dma=ADDR");
    replay_descriptor d;
    d.index = in.descriptors.size();
    d.channel = channel;
    d.cls = cls;
    d.addr = next;
    d.bytes = static_cast<uint32_t>(bytes);
    d.tag = static_cast<unsigned>(d.index % (PCCX_DMA_TAG_MASK + 1));
    d.before_word = word;
    d.before_line = line;
    d.pointer = "auto: line " + std::to_string(line);
    in.descriptors.push_back(d);
    next += (bytes + kBufferAlign - 1) / kBufferAlign * kBufferAlign;
    ++added;
  }
};

}  // namespace

std::size_t plan_auto_dma(replay_input& in, const config::platform_config& cfg, uint64_t base) {
  const bool strict = cfg.simulation.strict;
  const isa::decode_limits limits = config::decode_limits_of(cfg.npu, strict);
  std::map<std::pair<uint8_t, uint8_t>, npu::slot_value> slots;  // (bank, slot) -> value
  const npu::slot_reader read = [&](uint8_t bank, uint8_t slot) -> std::optional<npu::slot_value> {
    const auto it = slots.find({bank, slot});
    if (it == slots.end()) return std::nullopt;
    return it->second;
  };
  planner p{in, cfg, (base + kBufferAlign - 1) / kBufferAlign * kBufferAlign};

  for (std::size_t w = 0; w < in.words.size(); ++w) {
    const auto decoded = isa::decode(in.words[w].word, limits);
    const auto* ins = std::get_if<isa::instruction>(&decoded);
    if (!ins) continue;  // the NPU refuses it: nothing to feed
    if (const auto* ms = std::get_if<isa::memset_instr>(&ins->body)) {
      slots[{ms->cache, ms->slot}] = {ms->a, ms->b, ms->c};
    } else if (const auto* mc = std::get_if<isa::memcpy_instr>(&ins->body)) {
      const auto size = read(0, mc->shape_ptr);
      if (!size) continue;
      const uint64_t bytes =
          uint64_t{isa::l2_words_for_elements(static_cast<uint32_t>(
              std::min<uint64_t>(uint64_t{(*size)[0]} * (*size)[1] * (*size)[2], 0xFFFFFFFFu)))} *
          16;
      if (mc->route() == isa::memcpy_route::host_to_l2)
        p.add(PCCX_DMA_ACP_FMAP, PCCX_DMA_CLASS_ACTIVATIONS, bytes, w);
      else if (mc->route() == isa::memcpy_route::l2_to_host)
        p.add(PCCX_DMA_ACP_RESULT, PCCX_DMA_CLASS_ACTIVATIONS, bytes, w);
    } else if (const auto* mm = std::get_if<isa::matmul_instr>(&ins->body)) {
      if ((mm->flags & PCCX_MM_WFMT_MASK) != 0) continue;  // KV records: the driver's rings
      const auto e = npu::resolve_extents(ins->op, *mm, read, strict);
      if (!e) continue;
      const uint32_t n = e->shape[1], k = e->shape[2];
      const bool w_scale = mm->flags & UCA_FLAG_W_SCALE;
      if (ins->op == isa::opcode::gemm) {
        // Column n on HP(n mod 2); a FIFO without columns gets no descriptor.
        for (unsigned f = 0; f < 2; ++f)
          if (const uint64_t bytes = npu::gemm_stream_bytes_of_fifo(n, k, w_scale, f))
            p.add(f == 0 ? PCCX_DMA_HP0 : PCCX_DMA_HP1, PCCX_DMA_CLASS_WEIGHTS, bytes, w);
      } else {
        // Output row r comes from FIFO r mod F.
        const auto& fifos = cfg.npu.gemv.weight_fifos;
        const uint64_t rec = npu::gemv_record_bytes(cfg.npu.gemv, k, w_scale);
        for (std::size_t f = 0; f < fifos.size(); ++f) {
          const uint64_t rows = n / fifos.size() + (f < n % fifos.size() ? 1 : 0);
          p.add(fifos[f], PCCX_DMA_CLASS_WEIGHTS, rows * rec, w);
        }
      }
    }
  }
  if (in.descriptors.size() > PCCX_REPLAY_MAX_DESCRIPTORS)
    throw vp::input_error("--auto-dma: " + std::to_string(in.descriptors.size()) +
                          " DMA descriptors, more than the replay takes (" +
                          std::to_string(PCCX_REPLAY_MAX_DESCRIPTORS) + ")");
  // Submission order: by place in the stream, the DMA file's before the planned.
  std::stable_sort(in.descriptors.begin(), in.descriptors.end(),
                   [](const replay_descriptor& a, const replay_descriptor& b) {
                     return a.before_word < b.before_word;
                   });
  return p.added;
}

}  // namespace pccx::workload
