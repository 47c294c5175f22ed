// The assembled platform, elaborated once per process for the SystemC fuzz
// harnesses. SystemC elaborates once, and libFuzzer calls the harness many
// times in one process, so every input runs as a job on the firmware CPU's
// thread: run() resumes the kernel, the thread executes the job, pauses the
// kernel (sc_pause) and waits for the next one. A job that does not end
// within a bound of simulated time is a hang and traps. Nothing here calls
// sc_stop: bus accesses go straight into the CPU's bus socket and their TLM
// response is returned to the harness, instead of the CPU's HAL, whose bus
// errors end the simulation.
#pragma once

#include <cstdint>
#include <functional>
#include <systemc>
#include <tlm>

#include "pccx_dma.h"
#include "platform/vp/top/platform_top.h"

namespace pccx::fuzz {

// Reports which invariant failed and traps (libFuzzer records the input).
[[noreturn]] void violated(const char* harness, const std::string& what);

class fuzz_platform {
 public:
  // Elaborates on first use: the default (KV260) configuration with a 16 MiB
  // DDR, functional mode, logging off.
  static fuzz_platform& get();

  // Runs job on the CPU thread; traps when it does not return within
  // max_sim of simulated time or the run ended (something called fail/finish).
  void run(const std::function<void()>& job, const sc_core::sc_time& max_sim);

  vp::platform_top& top() { return *top_; }
  // PCCX_FUZZ_VERBOSE set: the harnesses print a line per input.
  bool verbose() const { return verbose_; }
  const vp::runtime_params& params() const { return rt_; }
  uint64_t ddr_base() const { return ddr_base_; }
  uint64_t ddr_size() const { return ddr_size_; }

  // From inside a job: one 32-bit access at `offset` from the NPU base
  // through the interconnect, as the CPU does it, then a wait for the
  // access latency (the harness thread is not decoupled). `length` other
  // than 4 or an unaligned offset are allowed, to reach the bus errors.
  tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t offset, uint32_t& data,
                                  unsigned length = 4);
  // Accesses that must succeed (documented registers): trap otherwise.
  uint32_t read(uint64_t offset);
  void write(uint64_t offset, uint32_t value);
  // Waits for the NPU's idle-or-error line, at most `timeout`; true if high.
  bool wait_irq(const sc_core::sc_time& timeout);

  // ---- DMA channel pages (from inside a job) ----
  static uint64_t dma_reg(unsigned ch, uint32_t reg) { return PCCX_DMA_PAGE_OFFSET(ch) + reg; }
  // ADDR_LO, ADDR_HI, BYTES, PUSH; the caller makes sure the queue has room.
  void dma_submit(unsigned ch, uint64_t addr, uint32_t bytes, unsigned tag);
  // The harness as the stream consumer of a read channel: drops what is in
  // its FIFO (the engines are idle when this is called).
  void fifo_discard(unsigned ch);
  // The harness as the producer of ACP_RESULT: up to `bytes` zeros, as many
  // as fit.
  void fifo_fill(unsigned ch, uint64_t bytes);
  // Brings every channel to rest within `bound`: the harness consumes and
  // produces stream bytes, on_status is called for every status popped,
  // ERR is cleared, the FIFOs are emptied. Traps if a channel stays busy.
  void dma_quiesce(const char* harness, const sc_core::sc_time& bound,
                   const std::function<void(unsigned ch, uint32_t status)>& on_status);

 private:
  fuzz_platform();

  vp::runtime_params rt_;
  uint64_t ddr_base_ = 0;
  uint64_t ddr_size_ = 0;
  bool verbose_ = false;
  trace::trace_hub traces_;
  std::unique_ptr<vp::platform_top> top_;
};

}  // namespace pccx::fuzz
