#include "dma_bench.h"

#include <tlm_utils/tlm_quantumkeeper.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "models/npu/isa/instruction.h"
#include "uCA_v1_hal.h"

namespace pccx::test {

using sc_core::SC_ZERO_TIME;

uint8_t pattern(uint64_t i, uint8_t seed) {
  return static_cast<uint8_t>((i * 131u + (i >> 8) * 7u + seed) & 0xFF);
}

// ------------------------------------------------------------------ fake DDR

fake_ddr::fake_ddr(sc_core::sc_module_name name, uint64_t base, uint64_t size, double gbps,
                   sc_time latency)
    : sc_core::sc_module(name),
      socket("socket"),
      base_(base),
      bytes_(size, 0),
      gbps_(gbps),
      latency_(latency) {
  socket.register_b_transport(this, &fake_ddr::b_transport);
}

void fake_ddr::fill_pattern(uint64_t addr, uint64_t n, uint8_t seed) {
  for (uint64_t i = 0; i < n; ++i) *at(addr + i) = pattern(i, seed);
}

void fake_ddr::b_transport(int, tlm::tlm_generic_payload& tx, sc_time& delay) {
  auto* traffic = tx.get_extension<mem::ddr_traffic>();
  const sc_time now = sc_core::sc_time_stamp();
  record r{tx.get_command(),
           tx.get_address(),
           tx.get_data_length(),
           traffic != nullptr,
           traffic ? traffic->port : mem::ddr_port::cpu,
           traffic ? traffic->cls : mem::traffic_class::host,
           tx.get_data_ptr() != nullptr,
           now + delay,
           now + delay,
           sc_core::SC_ZERO_TIME,
           sc_core::SC_ZERO_TIME};
  if (!traffic) {
    tx.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    log.push_back(r);
    return;
  }
  const uint64_t a = tx.get_address(), n = tx.get_data_length();
  if (a < base_ || a - base_ >= bytes_.size() || n > bytes_.size() - (a - base_)) {
    tx.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    log.push_back(r);
    return;
  }
  sc_time& busy = busy_until_[static_cast<size_t>(traffic->port)];
  const sc_time begin = std::max(now + delay, busy);
  busy = begin + sc_time(static_cast<double>(n) / gbps_, sc_core::SC_NS);
  const sc_time completion = busy + latency_;
  if (unsigned char* p = tx.get_data_ptr()) {
    if (tx.is_read())
      std::memcpy(p, &bytes_[a - base_], n);
    else
      std::memcpy(&bytes_[a - base_], p, n);
  }
  r.completion = completion;
  r.transfer_start = begin;
  r.transfer_end = busy;
  log.push_back(r);
  traffic->transfer_start = begin;
  traffic->transfer_end = busy;
  delay = completion - now;
  tx.set_response_status(tlm::TLM_OK_RESPONSE);
}

// ------------------------------------------------------------------ router

page_router::page_router(sc_core::sc_module_name name)
    : sc_core::sc_module(name), in("in"), out("out") {
  in.register_b_transport(this, &page_router::b_transport);
  in.register_transport_dbg(this, &page_router::transport_dbg);
}

void page_router::b_transport(tlm::tlm_generic_payload& tx, sc_time& delay) {
  const uint64_t addr = tx.get_address();
  auto it = pages_.find(static_cast<unsigned>(addr >> 12));
  if (it == pages_.end()) {
    tx.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  delay += tx.is_read() ? read_latency : write_latency;
  tx.set_address(addr & 0xFFF);
  out[it->second]->b_transport(tx, delay);
  tx.set_address(addr);
}

unsigned int page_router::transport_dbg(tlm::tlm_generic_payload& tx) {
  const uint64_t addr = tx.get_address();
  auto it = pages_.find(static_cast<unsigned>(addr >> 12));
  if (it == pages_.end()) return 0;
  tx.set_address(addr & 0xFFF);
  const unsigned int n = out[it->second]->transport_dbg(tx);
  tx.set_address(addr);
  return n;
}

// ------------------------------------------------------------------ master

bus_master* bus_master::current = nullptr;

void bus_master::submit(unsigned ch, uint64_t addr, uint32_t bytes, unsigned tag) {
  dma_write(ch, PCCX_DMA_REG_ADDR_LO, static_cast<uint32_t>(addr));
  dma_write(ch, PCCX_DMA_REG_ADDR_HI, static_cast<uint32_t>(addr >> 32));
  dma_write(ch, PCCX_DMA_REG_BYTES, bytes);
  dma_write(ch, PCCX_DMA_REG_PUSH, tag);
}

uint32_t bus_master::wait_status(unsigned ch, sc_time poll) {
  for (;;) {
    const uint32_t s = dma_read(ch, PCCX_DMA_REG_STS_POP);
    if (s & PCCX_DMA_STS_VALID) return s;
    wait(poll);
  }
}

// ------------------------------------------------------------------ worker

worker::worker(sc_core::sc_module_name name, std::function<void()> body)
    : sc_core::sc_module(name), body_(std::move(body)) {
  SC_THREAD(run);
}

void worker::run() {
  body_();
  finished = true;
}

std::function<void()> drainer(mem::stream_fifo& fifo, uint64_t total, uint64_t chunk,
                              drain_record& into, sc_time start, sc_time between) {
  return [&fifo, total, chunk, &into, start, between] {
    if (start > SC_ZERO_TIME) sc_core::wait(start);
    std::vector<uint8_t> buf(chunk);
    for (uint64_t got = 0; got < total;) {
      const uint64_t n = std::min(chunk, total - got);
      into.times.push_back(fifo.pop(n, buf.data()));
      into.data.insert(into.data.end(), buf.begin(), buf.begin() + static_cast<long>(n));
      got += n;
      if (between > SC_ZERO_TIME) sc_core::wait(between);
    }
  };
}

// ------------------------------------------------------------------ bench

dma_bench::dma_bench(bench_options o) : opt(std::move(o)) {
  tlm_utils::tlm_quantumkeeper::set_global_quantum(opt.quantum);
  ddr = std::make_unique<fake_ddr>("ddr", opt.ddr_base, opt.fake_ddr_size, opt.ddr_gbps);
  router = std::make_unique<page_router>("bus");
  master = std::make_unique<bus_master>("master");
  master->socket.bind(router->in);

  if (opt.with_npu) {
    npu = std::make_unique<npu::npu>("npu", opt.npu, nullptr);
    npu->irq(irq);
    router->add_page(0);
    router->out.bind(npu->mmio());
  }
  static const char* names[] = {"hp0", "hp1", "hp2", "hp3", "acp_fmap", "acp_result"};
  for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch) {
    const bool hp = ch <= PCCX_DMA_HP3;
    fifos[ch] = std::make_unique<mem::stream_fifo>(std::string(names[ch]) + "_fifo",
                                                   hp ? opt.weight_fifo_bytes : opt.acp_fifo_bytes,
                                                   opt.functional);
    mem::dma_channel_params p = mem::dma_channel_params::for_page(ch);
    p.ddr_base = opt.ddr_base;
    p.ddr_size = opt.ddr_size;
    p.section = opt.dma.section;
    p.functional = opt.functional;
    channels[ch] = std::make_unique<mem::dma_channel>((std::string("dma_") + names[ch]).c_str(), p,
                                                      *fifos[ch]);
    channels[ch]->ddr.bind(ddr->socket);
    router->add_page(1 + ch);  // PCCX_DMA_PAGE_OFFSET(ch) >> 12
    router->out.bind(channels[ch]->mmio);
  }
  if (opt.with_npu) {
    opt.l2.functional = opt.functional;
    opt.l2.period = opt.npu.core_period;
    l2 = std::make_unique<mem::l2_memory>("l2", opt.l2);
    memcpy = std::make_unique<npu::memcpy_unit>("dma", opt.memcpy, *l2, *fifos[PCCX_DMA_ACP_FMAP],
                                                *fifos[PCCX_DMA_ACP_RESULT]);
    npu->bind_unit(npu::unit_kind::dma, *memcpy);
  }
}

dma_bench::~dma_bench() = default;

worker& dma_bench::spawn(std::function<void()> body) {
  workers.push_back(std::make_unique<worker>(("worker" + std::to_string(workers.size())).c_str(),
                                             std::move(body)));
  return *workers.back();
}

sc_time dma_bench::run(std::function<void(bus_master&)> script, sc_time limit) {
  master->script = [s = std::move(script)](mmio_master& m) { s(static_cast<bus_master&>(m)); };
  sc_core::sc_start(limit);
  return sc_core::sc_time_stamp();
}

// ------------------------------------------------------------------ encoders

uint64_t memset_word(uint8_t cache, uint8_t slot, uint16_t a, uint16_t b, uint16_t c) {
  return isa::encode({isa::opcode::memset, 0, isa::memset_instr{cache, slot, a, b, c}});
}

uint64_t memcpy_word(bool from_host, bool to_host, uint32_t dest, uint32_t src, uint8_t shape_ptr,
                     bool async) {
  return isa::encode({isa::opcode::memcpy, 0,
                      isa::memcpy_instr{from_host, to_host, dest, src, 0, shape_ptr, async}});
}

}  // namespace pccx::test
