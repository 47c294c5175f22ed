// Test bench for the DMA channels, stream FIFOs, L2 and the MEMCPY unit:
// a fake DDR target (fixed bandwidth per port, fixed latency, a byte array),
// a page router standing in for the AXI-Lite interconnect, a scripted bus
// master, free-running worker threads, and optionally an NPU with the L2 and
// the MEMCPY unit bound as its DMA unit.
#pragma once

#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "mmio_master.h"
#include "models/memory/common/traffic.h"
#include "models/memory/dma/dma_channel.h"
#include "models/memory/dma/stream_fifo.h"
#include "models/memory/l2/l2_memory.h"
#include "models/npu/npu.h"
#include "models/npu/units/memcpy_unit.h"
#include "pccx_dma.h"

namespace pccx::test {

using sc_core::sc_time;

inline sc_time ns(double v) {
  return sc_time(v, sc_core::SC_NS);
}
inline sc_time us(double v) {
  return sc_time(v, sc_core::SC_US);
}

// DDR stand-in: one busy-until per port at `gbps`, plus a fixed latency;
// b_transport returns delay = completion - now and never waits.
class fake_ddr : public sc_core::sc_module {
 public:
  struct record {
    tlm::tlm_command cmd;
    uint64_t addr;
    uint32_t bytes;
    bool has_traffic;
    mem::ddr_port port;
    mem::traffic_class cls;
    bool has_data;
    sc_time start, completion;
    sc_time transfer_start, transfer_end;  // the data's own stretch (answered requests)
  };
  fake_ddr(sc_core::sc_module_name name, uint64_t base, uint64_t size, double gbps = 4.0,
           sc_time latency = ns(100));

  tlm_utils::multi_passthrough_target_socket<fake_ddr> socket;
  std::vector<record> log;
  uint8_t* at(uint64_t addr) { return &bytes_.at(addr - base_); }
  void fill_pattern(uint64_t addr, uint64_t n, uint8_t seed);

 private:
  void b_transport(int id, tlm::tlm_generic_payload& tx, sc_time& delay);
  uint64_t base_;
  std::vector<uint8_t> bytes_;
  double gbps_;
  sc_time latency_;
  std::array<sc_time, mem::kDdrPorts> busy_until_{};
};

// Address decoder for the NPU window: 4 KiB page p goes to the target added
// for p (offset inside the page), with AXI-Lite-like access costs.
class page_router : public sc_core::sc_module {
 public:
  explicit page_router(sc_core::sc_module_name name);
  tlm_utils::simple_target_socket<page_router> in;
  tlm_utils::multi_passthrough_initiator_socket<page_router> out;
  // Bind `out` to the target right after calling this.
  void add_page(unsigned page) { pages_[page] = next_++; }
  sc_time read_latency = ns(200);
  sc_time write_latency = ns(40);

 private:
  void b_transport(tlm::tlm_generic_payload& tx, sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& tx);
  std::map<unsigned, int> pages_;
  int next_ = 0;
};

// Runs `script` in a thread; sc_stop() when it returns. Accesses are
// offsets from the NPU base, as the uCA HAL's.
class bus_master : public mmio_master {
 public:
  explicit bus_master(sc_core::sc_module_name name) : mmio_master(name) {}

  uint32_t dma_read(unsigned ch, uint32_t reg) { return read32(PCCX_DMA_REG(ch, reg)); }
  void dma_write(unsigned ch, uint32_t reg, uint32_t v) { write32(PCCX_DMA_REG(ch, reg), v); }
  void submit(unsigned ch, uint64_t addr, uint32_t bytes, unsigned tag);
  // Polls STS_POP every `poll` until a status comes (VALID set).
  uint32_t wait_status(unsigned ch, sc_time poll = ns(100));

  static bus_master* current;  // for the firmware HAL of the helper tests

 protected:
  void started() override { current = this; }
};

// A thread running a function, started with the simulation.
class worker : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(worker);
  worker(sc_core::sc_module_name name, std::function<void()> body);
  bool finished = false;

 private:
  void run();
  std::function<void()> body_;
};

struct bench_options {
  uint64_t ddr_base = 0x10000000;
  uint64_t ddr_size = 0x01000000;       // what the channels accept
  uint64_t fake_ddr_size = 0x01000000;  // what the fake DDR holds
  bool functional = true;
  uint64_t weight_fifo_bytes = 65536;
  uint64_t acp_fifo_bytes = 512;
  double ddr_gbps = 4.0;        // the fake DDR's rate per port
  mem::dma_channel_params dma;  // block, outstanding, depths, alignment (page fields ignored)
  sc_time quantum = us(1);
  bool with_npu = false;
  npu::npu_params npu;
  mem::l2_params l2;
  npu::memcpy_unit_params memcpy;
};

struct dma_bench {
  explicit dma_bench(bench_options o = bench_options{});
  ~dma_bench();
  bench_options opt;
  std::unique_ptr<fake_ddr> ddr;
  std::array<std::unique_ptr<mem::stream_fifo>, PCCX_DMA_CHANNELS> fifos;
  std::array<std::unique_ptr<mem::dma_channel>, PCCX_DMA_CHANNELS> channels;
  std::unique_ptr<page_router> router;
  std::unique_ptr<bus_master> master;
  std::vector<std::unique_ptr<worker>> workers;
  // With the NPU.
  std::unique_ptr<npu::npu> npu;
  std::unique_ptr<mem::l2_memory> l2;
  std::unique_ptr<npu::memcpy_unit> memcpy;
  sc_core::sc_signal<bool> irq{"irq"};

  mem::stream_fifo& fifo(unsigned ch) { return *fifos[ch]; }
  mem::dma_channel& channel(unsigned ch) { return *channels[ch]; }
  worker& spawn(std::function<void()> body);
  // Runs the script (sc_stop at its end) or until `limit`; returns sim time.
  sc_time run(std::function<void(bus_master&)> script, sc_time limit = sc_time(1, sc_core::SC_MS));
};

// Pops `total` bytes from `fifo` in `chunk` pieces; records what it got.
struct drain_record {
  std::vector<uint8_t> data;
  std::vector<sc_time> times;  // kernel time of each pop
};
std::function<void()> drainer(mem::stream_fifo& fifo, uint64_t total, uint64_t chunk,
                              drain_record& into, sc_time start = sc_core::SC_ZERO_TIME,
                              sc_time between = sc_core::SC_ZERO_TIME);

// Instruction words through the model's encoder.
uint64_t memset_word(uint8_t cache, uint8_t slot, uint16_t a, uint16_t b, uint16_t c);
uint64_t memcpy_word(bool from_host, bool to_host, uint32_t dest, uint32_t src, uint8_t shape_ptr,
                     bool async);

uint8_t pattern(uint64_t i, uint8_t seed);

}  // namespace pccx::test
