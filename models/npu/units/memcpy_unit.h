// The MEMCPY execution unit (bound as unit_kind::dma): moves 128-bit words
// between the L2 and the ACP stream FIFOs, or inside the L2.
//
//   host->L2  pops the ACP_FMAP stream FIFO, writes L2 port 0 at `dest`;
//   L2->host  reads L2 port 0 at `src`, pushes into the ACP_RESULT FIFO;
//   L2->L2    reads L2 port 1 at `src`, writes L2 port 0 at `dest`;
//   KV append reads head-vectors (BF16) from L2 port 0 at `src`, quantizes
//             each in line into a KV record (key format if dest = 0, value
//             format if dest = 1) and pushes the records into the ACP_RESULT
//             FIFO, whose descriptor names the ring slot in DDR.
//
// The length is ceil(X*Y*Z / 8) words, (X, Y, Z) = fmap_shape[shape_ptr],
// resolved by the command processor. Words move in chunks of up to
// `chunk_words` through the L2 port reservations and FIFO time stamps, so
// the transfer is pipelined at one word per clock without a wait per word;
// the unit's thread is temporally decoupled (global quantum) and blocks only
// on an empty or full FIFO. It retires when the last word is written to L2
// (host->L2, L2->L2) or has entered the ACP_RESULT FIFO (L2->host); the
// bytes are in DDR when the ACP_RESULT channel reports its descriptor done.
#pragma once

#include <cstdint>
#include <optional>
#include <systemc>
#include <vector>

#include "models/kv/kv_codec.h"
#include "models/kv/kv_datapath_config.h"
#include "models/memory/dma/stream_fifo.h"
#include "models/memory/l2/l2_memory.h"
#include "infra/time/decoupled_clock.h"
#include "models/npu/core/threaded_unit.h"
#include "models/npu/npu_config.h"

namespace pccx::npu {

struct memcpy_unit_params {
  config::memcpy_config section;  // npu.memcpy: words per pipeline step
  config::kv_datapath_config kv;  // npu.kv: the append quantizer's formats and widths
  sc_core::sc_time core_period = sc_core::sc_time(2.5, sc_core::SC_NS);  // clocks.core_mhz
};

class memcpy_unit : public threaded_unit {
 public:
  memcpy_unit(sc_core::sc_module_name name, const memcpy_unit_params& params, mem::l2_memory& l2,
              mem::stream_fifo& from_host, mem::stream_fifo& to_host);

  struct stats {
    uint64_t instructions = 0;
    uint64_t words_host_to_l2 = 0;
    uint64_t words_l2_to_host = 0;
    uint64_t words_l2_to_l2 = 0;
    uint64_t kv_records = 0;  // records appended
    uint64_t kv_record_bytes = 0;
    sc_core::sc_time stall;  // waiting on an empty ACP_FMAP or a full ACP_RESULT FIFO
  };
  const stats& statistics() const { return stats_; }

 protected:
  result execute(const dispatched_instruction& d) override;

 private:
  void host_to_l2(uint32_t dest, uint32_t words);
  void l2_to_host(uint32_t src, uint32_t words);
  void l2_to_l2(uint32_t src, uint32_t dest, uint32_t words);
  void kv_append(uint32_t src, uint32_t vectors, const kv::kv_codec& codec);

  memcpy_unit_params params_;
  uint32_t chunk_words_;  // section.chunk_words, at most what the ACP FIFOs hold
  mem::l2_memory& l2_;
  mem::stream_fifo& from_host_;
  mem::stream_fifo& to_host_;
  std::vector<uint8_t> buffer_;  // one chunk
  kv::kv_codec key_codec_, value_codec_;
  decoupled_clock clock_;
  sc_core::sc_time end_;  // completion of the last word of the current instruction
  stats stats_;
};

}  // namespace pccx::npu
