// `pccx-vp replay --auto-dma`: the DMA descriptors an instruction stream
// needs, planned from the stream itself, so that a third-party program (the
// upstream smoke program has no host side at all) replays without a
// hand-written DMA file. Each host move (MEMCPY host->L2 on ACP_FMAP,
// L2->host on ACP_RESULT) and each GEMV/GEMM weight stream (INT4 rows on the
// GEMV's FIFOs, tiles on HP0/HP1) gets a descriptor over its own buffer in
// DDR, submitted just before the word that uses it. Sizes come from the
// shape slots the stream's MEMSETs write, resolved as the NPU resolves them
// (models/npu/core/matmul_extents.h); buffers hold zeros unless a --dma
// preload puts bytes there. KV appends and KV-format GEMVs name ring slots
// only a driver knows: they need their descriptors from a --dma file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "platform/config/platform_config.h"
#include "platform/workload/replay_runner.h"

namespace pccx::workload {

// DDR address of the first planned buffer, unless --auto-dma=ADDR says otherwise.
constexpr uint64_t kAutoDmaBase = 0x40000000;

// Appends the planned descriptors to in.descriptors (their pointer reads
// "auto: line N") and returns how many; throws vp::input_error when the
// buffers would leave DDR, a descriptor would exceed 4 GiB - 1 or the
// stream would need more descriptors than the replay takes.
std::size_t plan_auto_dma(replay_input& in, const config::platform_config& cfg, uint64_t base);

}  // namespace pccx::workload
