// One DMA (DataMover-style) channel: a 4 KiB register page taking
// descriptors {DDR address, bytes, tag, traffic class}, a thread that moves
// the bytes between DDR and a stream FIFO, and a status queue reporting each
// descriptor's outcome. Registers and codes: firmware/include/pccx_dma.h;
// behaviour and timing: docs/models/memory-dma-l2.md.
//
// Direction ddr_to_stream (HP0..HP3, ACP_FMAP) reads DDR into the FIFO;
// stream_to_ddr (ACP_RESULT) drains the FIFO into DDR. Each DDR transaction
// moves one block, carries the ddr_traffic extension {port, class} and uses
// absolute DDR addresses. The thread is temporally decoupled (global
// quantum): it issues up to `outstanding` blocks ahead, stamps FIFO data with
// the transaction's completion time, and synchronises only when the FIFO,
// the outstanding limit or the quantum makes it.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "infra/container/ring_queue.h"
#include "infra/log/logger.h"
#include "infra/regs/register_bank.h"
#include "infra/time/decoupled_clock.h"
#include "infra/time/ticks_as_time.h"
#include "infra/trace/analysis_port.h"
#include "models/memory/common/traffic.h"
#include "models/memory/dma/dma_config.h"
#include "models/memory/dma/stream_fifo.h"

namespace pccx::mem {

enum class dma_direction : uint8_t { ddr_to_stream, stream_to_ddr };

struct dma_channel_params {
  unsigned page = 0;  // PCCX_DMA_HP0 .. PCCX_DMA_ACP_RESULT
  ddr_port port = ddr_port::hp0;
  dma_direction direction = dma_direction::ddr_to_stream;
  traffic_class default_class = traffic_class::weights;  // CLASS after reset
  uint64_t ddr_base = 0;                                 // memory_map.ddr_base
  uint64_t ddr_size = 0x100000000ull;                    // memory_map.ddr_size
  // dma: block size, outstanding blocks, coalescing, queue depths, alignment.
  config::dma_config section;
  bool functional = true;  // simulation.mode == functional

  // Port, direction and default class of page n (0..5); the other fields
  // keep their defaults.
  static dma_channel_params for_page(unsigned n);
};

// A descriptor the channel refused or could not finish.
struct dma_fault {
  unsigned page = 0;
  uint64_t seq = 0;  // descriptor number on this channel, from 0
  uint64_t addr = 0;
  uint32_t bytes = 0;
  unsigned tag = 0;
  uint32_t errors = 0;  // PCCX_DMA_ERR_* bits
  std::string reason;
};

class dma_channel : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(dma_channel);
  dma_channel(sc_core::sc_module_name name, const dma_channel_params& params, stream_fifo& fifo);
  ~dma_channel() override;

  // Register page; addresses are offsets inside the page.
  tlm_utils::simple_target_socket<dma_channel> mmio;
  // To the DDR controller port of this channel.
  tlm_utils::simple_initiator_socket<dma_channel> ddr;

  struct stats {
    uint64_t bytes_done = 0;  // bytes whose transaction completed
    uint64_t descriptors_done = 0;
    uint64_t errors = 0;  // descriptors refused or failed
    uint64_t transactions = 0;
    sc_core::sc_time busy;   // some descriptor being moved
    sc_core::sc_time stall;  // waiting on the FIFO (full or empty) or a full status queue
  };
  // Completed work up to the current simulation time.
  const stats& statistics();

  // "STS_POP", ... or "" for an unmapped offset (for traces and bus errors).
  static std::string register_name(uint64_t offset);

  const dma_channel_params& params() const { return params_; }
  stream_fifo& fifo() { return fifo_; }
  uint32_t block_bytes() const { return block_; }  // effective block size
  uint32_t error_bits() const { return err_; }
  // "RANGE, ALIGN_ADDR" for PCCX_DMA_ERR_* bits.
  static std::string error_names(uint32_t bits);
  bool busy() const;
  // A descriptor pushed by time `t` (the writer's time of the PUSH, which a
  // CPU running ahead of the kernel stamps in the future) is queued or
  // running: what the NPU can count on at `t`.
  bool has_work_at(const sc_core::sc_time& t) const;

  // Descriptors the channel refuses or fails (besides ERR, status, log);
  // the platform may forward them (strict mode, NPU error).
  trace::analysis_port<dma_fault> faults;

  // Each descriptor as the channel finished it, for trace writers: bytes
  // is what moved (less than requested after a failure), from start (the
  // channel took it) to end (its last block completed).
  struct descriptor_record {
    unsigned page = 0;
    uint64_t seq = 0;
    uint64_t addr = 0;
    uint64_t requested = 0;  // rows x bytes per row
    uint64_t bytes = 0;
    unsigned tag = 0;
    traffic_class cls = traffic_class::weights;
    bool to_ddr = false;
    uint32_t errors = 0;
    sc_core::sc_time start, end;
  };
  trace::analysis_port<descriptor_record> descriptors;

 private:
  struct descriptor {
    uint64_t seq = 0;
    uint64_t addr = 0;
    uint32_t bytes = 0;  // per row
    uint32_t rows = 1;   // a 2-D descriptor: row r at addr + r x stride
    uint32_t stride = 0;
    uint64_t total() const { return uint64_t{rows} * bytes; }
    unsigned tag = 0;
    traffic_class cls = traffic_class::weights;
    sc_core::sc_time arrival;  // the writer's local time of the PUSH
  };
  struct status_entry {
    uint32_t word = 0;
    sc_core::sc_time ready;
  };

  void run();
  void move(const descriptor& d);
  uint32_t check(const descriptor& d, std::string& reason) const;
  void fault(const descriptor& d, uint32_t errors, const std::string& reason);
  void post_status(const descriptor& d, uint32_t errors, const sc_core::sc_time& at);
  void finished(const descriptor& d, uint64_t moved, uint32_t errors, const sc_core::sc_time& from,
                const sc_core::sc_time& to);
  const sc_core::sc_time& local_now() const { return clock_.local(); }
  void mature(const sc_core::sc_time& now);
  uint32_t ready_statuses(const sc_core::sc_time& now) const;

  void b_transport(tlm::tlm_generic_payload& tx, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& tx);
  // The page's registers: the rows of PCCX_DMA_REGISTERS with their behaviour.
  void build_registers();
  uint32_t pop_status(bool debug);
  void push_descriptor(uint32_t tag_word, sc_core::sc_time& delay);
  void set_class(uint32_t value);
  uint32_t flags(const sc_core::sc_time& now) const;

  dma_channel_params params_;
  stream_fifo& fifo_;
  uint32_t block_;
  log::logger log_;
  decoupled_clock clock_;
  tlm::tlm_generic_payload tx_;
  ddr_traffic traffic_;
  std::vector<uint8_t> buffer_;  // one block, functional mode

  // Registers.
  traffic_class cls_;
  uint32_t err_ = 0;
  regs::register_bank bank_;
  regs::reg32* addr_lo_ = nullptr;
  regs::reg32* addr_hi_ = nullptr;
  regs::reg32* bytes_ = nullptr;
  regs::reg32* rows_ = nullptr;
  regs::reg32* stride_ = nullptr;

  std::deque<descriptor> queue_;
  std::deque<status_entry> status_;
  uint64_t pushed_ = 0;
  bool active_ = false;
  sc_core::sc_time active_arrival_;  // the PUSH time of the descriptor being moved
  sc_core::sc_time busy_until_;      // completion of the last block issued
  sc_core::sc_time busy_end_;        // end of the busy time already counted
  ring_queue<std::pair<sc_core::sc_time, uint64_t>> in_flight_bytes_;  // (completion, bytes)
  // The blocks of the descriptor being moved, by completion: kept between
  // descriptors so that a driver's many small ones allocate nothing.
  ring_queue<sc_core::sc_time> in_flight_;
  ring_queue<sc_core::sc_time> pending_done_;  // completion of descriptors done later
  ticks_as_time time_of_;                      // a coalesced transaction's block times
  stats stats_;

  sc_core::sc_event cmd_pushed_, cmd_popped_, status_popped_;
};

}  // namespace pccx::mem
