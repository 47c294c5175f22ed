#include "fuzz_platform.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "infra/log/logger.h"
#include "platform/config/platform_loader.h"

namespace pccx::fuzz {

namespace {

const std::function<void()>* g_job = nullptr;
bool g_done = false;

// The "firmware": an endless loop serving one job per resumption of the
// kernel. sc_pause() returns control to run() at the end of this delta
// cycle; the zero-time wait is the first thing the next sc_start resumes.
int job_loop() {
  for (;;) {
    if (g_job != nullptr) {
      (*g_job)();
      g_job = nullptr;
      g_done = true;
    }
    sc_core::sc_pause();
    sc_core::wait(sc_core::SC_ZERO_TIME);
  }
}

}  // namespace

void violated(const char* harness, const std::string& what) {
  std::fprintf(stderr, "%s: invariant violated at %s: %s\n", harness,
               sc_core::sc_time_stamp().to_string().c_str(), what.c_str());
  __builtin_trap();
}

fuzz_platform& fuzz_platform::get() {
  static fuzz_platform* p = new fuzz_platform();  // lives as long as the kernel
  return *p;
}

fuzz_platform::fuzz_platform() {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  verbose_ = std::getenv("PCCX_FUZZ_VERBOSE") != nullptr;
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
  // Every refused descriptor and latched error would print a warning;
  // thousands of inputs a second make that the dominant cost.
  log::log_config::instance().set_default(log::level::off);
  // A small DDR bounds the pages functional mode allocates for random
  // writes and makes out-of-DDR addresses common.
  const config::platform_config cfg = config::load({{}, {"memory_map.ddr_size=0x1000000"}});
  rt_ = vp::to_runtime(cfg);
  ddr_base_ = cfg.memory_map.ddr_base;
  ddr_size_ = cfg.memory_map.ddr_size;
  tlm_utils::tlm_quantumkeeper::set_global_quantum(rt_.quantum);
  top_ = std::make_unique<vp::platform_top>(rt_, traces_, nullptr);
  top_->cpu.load(&job_loop, "fuzz-job-loop");
}

void fuzz_platform::run(const std::function<void()>& job, const sc_core::sc_time& max_sim) {
  g_job = &job;
  g_done = false;
  sc_core::sc_start(max_sim);
  if (!g_done) {
    g_job = nullptr;
    violated("fuzz_platform", "the input did not finish within " + max_sim.to_string() +
                                  " of simulated time (hang or deadlock)");
  }
  if (top_->control.current() != vp::run_control::state::running)
    violated("fuzz_platform", "the run ended: " + top_->control.message());
}

tlm::tlm_response_status fuzz_platform::access(tlm::tlm_command cmd, uint64_t offset,
                                               uint32_t& data, unsigned length) {
  uint8_t buf[8] = {};
  std::memcpy(buf, &data, sizeof data);
  tlm::tlm_generic_payload tx;
  tx.set_command(cmd);
  tx.set_address(rt_.npu_base + offset);
  tx.set_data_ptr(buf);
  tx.set_data_length(length);
  tx.set_streaming_width(length);
  tx.set_byte_enable_ptr(nullptr);
  tx.set_dmi_allowed(false);
  tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  top_->cpu.bus->b_transport(tx, delay);
  if (delay > sc_core::SC_ZERO_TIME) sc_core::wait(delay);
  std::memcpy(&data, buf, sizeof data);
  return tx.get_response_status();
}

uint32_t fuzz_platform::read(uint64_t offset) {
  uint32_t v = 0;
  const auto r = access(tlm::TLM_READ_COMMAND, offset, v);
  if (r != tlm::TLM_OK_RESPONSE)
    violated("fuzz_platform", "read of documented register " +
                                  top_->bus.describe(rt_.npu_base + offset) + " failed");
  return v;
}

void fuzz_platform::write(uint64_t offset, uint32_t value) {
  const auto r = access(tlm::TLM_WRITE_COMMAND, offset, value);
  if (r != tlm::TLM_OK_RESPONSE)
    violated("fuzz_platform", "write of documented register " +
                                  top_->bus.describe(rt_.npu_base + offset) + " failed");
}

bool fuzz_platform::wait_irq(const sc_core::sc_time& timeout) {
  auto& irq = top_->cpu.npu_irq;
  const sc_core::sc_time end = sc_core::sc_time_stamp() + timeout;
  while (!irq.read()) {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (now >= end) return false;
    sc_core::wait(end - now, irq.value_changed_event());
  }
  return true;
}

void fuzz_platform::dma_submit(unsigned ch, uint64_t addr, uint32_t bytes, unsigned tag) {
  write(dma_reg(ch, PCCX_DMA_REG_ADDR_LO), static_cast<uint32_t>(addr));
  write(dma_reg(ch, PCCX_DMA_REG_ADDR_HI), static_cast<uint32_t>(addr >> 32));
  write(dma_reg(ch, PCCX_DMA_REG_BYTES), bytes);
  write(dma_reg(ch, PCCX_DMA_REG_PUSH), tag);
}

void fuzz_platform::fifo_discard(unsigned ch) {
  mem::stream_fifo& f = top_->fifo(ch);
  if (f.level() > 0 && !f.try_pop(f.level(), nullptr, sc_core::sc_time_stamp()))
    violated("fuzz_platform", f.name() + ": try_pop of its own level failed");
}

void fuzz_platform::fifo_fill(unsigned ch, uint64_t bytes) {
  mem::stream_fifo& f = top_->fifo(ch);
  const uint64_t n = std::min(bytes, f.free_space());
  if (n == 0) return;
  // Chunks must not become ready before earlier ones.
  sc_core::sc_time ready = sc_core::sc_time_stamp();
  if (f.level() > 0) ready = std::max(ready, *f.ready_time(f.level()));
  if (!f.try_push(n, ready, nullptr))
    violated("fuzz_platform", f.name() + ": try_push into free space failed");
}

void fuzz_platform::dma_quiesce(const char* harness, const sc_core::sc_time& bound,
                                const std::function<void(unsigned, uint32_t)>& on_status) {
  const sc_core::sc_time end = sc_core::sc_time_stamp() + bound;
  auto pop_all = [&](unsigned ch) {
    for (uint32_t n = read(dma_reg(ch, PCCX_DMA_REG_STS_LVL)); n > 0; --n) {
      const uint32_t s = read(dma_reg(ch, PCCX_DMA_REG_STS_POP));
      if ((s & PCCX_DMA_STS_VALID) == 0)
        violated(harness, "STS_POP empty although STS_LVL counted an entry");
      on_status(ch, s);
    }
  };
  for (;;) {
    bool busy = false;
    for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch) {
      pop_all(ch);
      if (top_->dma[ch]->params().direction == mem::dma_direction::ddr_to_stream)
        fifo_discard(ch);
      else if (top_->dma[ch]->busy())
        fifo_fill(ch, top_->fifo(ch).capacity());
      busy = busy || top_->dma[ch]->busy();
    }
    if (!busy) break;
    if (sc_core::sc_time_stamp() >= end)
      violated(harness, "a DMA channel is still busy " + bound.to_string() +
                            " after the harness started draining it");
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_US));
  }
  for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch) {
    pop_all(ch);
    write(dma_reg(ch, PCCX_DMA_REG_ERR), PCCX_DMA_ERR_ALL);
    fifo_discard(ch);
    // At rest: nothing queued, nothing to pop, no error, not busy.
    const uint32_t flags = read(dma_reg(ch, PCCX_DMA_REG_FLAGS));
    const uint32_t want = PCCX_DMA_FLAG_CMD_EMPTY | PCCX_DMA_FLAG_STS_EMPTY;
    if (flags != want)
      violated(harness, "channel " + std::to_string(ch) + " at rest shows FLAGS 0x" +
                            std::to_string(flags) + " instead of CMD_EMPTY|STS_EMPTY");
    if (read(dma_reg(ch, PCCX_DMA_REG_CMD_LVL)) != 0 ||
        read(dma_reg(ch, PCCX_DMA_REG_STS_LVL)) != 0 || read(dma_reg(ch, PCCX_DMA_REG_ERR)) != 0)
      violated(harness, "channel " + std::to_string(ch) + " at rest with levels or ERR set");
    if (read(dma_reg(ch, PCCX_DMA_REG_STS_POP)) != PCCX_DMA_STS_EMPTY)
      violated(harness, "STS_POP of an empty status queue is not 0");
  }
}

}  // namespace pccx::fuzz
