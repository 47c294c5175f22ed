#include "models/npu/npu.h"

#include <stdexcept>

namespace pccx::npu {

namespace {

const char* const kChannelNames[PCCX_DMA_CHANNELS] = {"hp0", "hp1",      "hp2",
                                                      "hp3", "acp_fmap", "acp_result"};

}  // namespace

const char* dma_channel_name(unsigned channel) {
  return channel < PCCX_DMA_CHANNELS ? kChannelNames[channel] : "?";
}

npu::npu(sc_core::sc_module_name name, const npu_params& params, trace::trace_hub* traces,
         const npu_datapath_params* datapath)
    : sc_core::sc_module(name),
      irq("irq"),
      params_(params),
      fifo_(params.section.cmd_fifo_depth),
      cache_(params.section.constant_cache),
      lint_(std::string(sc_core::sc_module::name()) + ".lint", params.lint, params.limits(),
            datapath && datapath->functional),
      cmd_("cmd", params_, fifo_, cache_, counters_, traces),
      regs_("regs", params_, fifo_, cmd_, counters_) {
  cmd_.irq(irq);
  cmd_.set_lint(&lint_);
  regs_.set_lint(&lint_);
  if (!datapath) return;
  // Each part's parameters are its section of npu.* as it is, plus the clock.
  const npu_datapath_params& dp = *datapath;
  const config::npu_config& s = params.section;
  const sc_core::sc_time& clk = params.core_period;
  const std::string prefix = std::string(this->name()) + ".";
  l2_ = std::make_unique<mem::l2_memory>(prefix + "l2", mem::l2_params{s.l2, clk, dp.functional});
  for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch)
    stream_fifos_[ch] = std::make_unique<mem::stream_fifo>(
        prefix + kChannelNames[ch] + "_fifo",
        ch <= PCCX_DMA_HP3 ? dp.dma.weight_fifo_bytes : dp.dma.acp_fifo_bytes, dp.functional);
  std::vector<mem::stream_fifo*> gemv_fifos;
  // npu.gemv.weight_fifos: the HP channels whose FIFOs feed the GEMV.
  for (unsigned ch : s.gemv.weight_fifos) gemv_fifos.push_back(stream_fifos_.at(ch).get());
  memcpy_ = std::make_unique<memcpy_unit>("memcpy", memcpy_unit_params{s.memcpy, s.kv, clk}, *l2_,
                                          *stream_fifos_[PCCX_DMA_ACP_FMAP],
                                          *stream_fifos_[PCCX_DMA_ACP_RESULT]);
  sfu_ = std::make_unique<sfu_unit>("sfu", sfu_unit_params{clk, s.sfu}, *l2_, counters_);
  gemv_ = std::make_unique<gemv_unit>(
      "gemv", gemv_unit_params{s.gemv, clk, s.gemv_cores, s.kv, params.gemv_quantum}, *l2_,
      gemv_fifos, counters_);
  gemm_ =
      std::make_unique<gemm_unit>("gemm", gemm_unit_params{s.gemm, clk}, *l2_,
                                  std::vector<mem::stream_fifo*>{stream_fifos_[PCCX_DMA_HP0].get(),
                                                                 stream_fifos_[PCCX_DMA_HP1].get()},
                                  counters_);
  bind_unit(unit_kind::dma, *memcpy_);
  bind_unit(unit_kind::sfu, *sfu_);
  bind_unit(unit_kind::gemv, *gemv_);
  bind_unit(unit_kind::gemm, *gemm_);
  // findemax: the GEMV engine hands its row maximum to the SFU's e_max register.
  gemv_->emax.subscribe([this](float e_max) { sfu_->set_emax(e_max); });
}

uint64_t npu::cycles() const {
  return static_cast<uint64_t>(sc_core::sc_time_stamp() / params_.core_period);
}

template <class T>
T& npu::part(const std::unique_ptr<T>& p) const {
  if (!p) throw std::logic_error(std::string(name()) + " was built without its datapath");
  return *p;
}

mem::l2_memory& npu::l2() {
  return part(l2_);
}
mem::stream_fifo& npu::stream_fifo(unsigned channel) {
  return part(stream_fifos_.at(channel));
}
memcpy_unit& npu::memcpy() {
  return part(memcpy_);
}
sfu_unit& npu::sfu() {
  return part(sfu_);
}
gemv_unit& npu::gemv() {
  return part(gemv_);
}
gemm_unit& npu::gemm() {
  return part(gemm_);
}

}  // namespace pccx::npu
