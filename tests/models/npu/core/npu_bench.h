// A test bench around the NPU alone: a scripted MMIO master in place of the
// CPU, fake execution units with fixed latencies that record what they ran,
// and helpers to encode instructions.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "mmio_master.h"
#include "models/npu/core/threaded_unit.h"
#include "models/npu/isa/instruction.h"
#include "models/npu/npu.h"
#include "pccx_isa.h"
#include "uCA_v1_api.h"

namespace pccx::test {

// An execution unit that takes `latency_cycles` per instruction and records
// start and end times; `fault_seq` makes one instruction fail.
class fake_unit : public npu::threaded_unit {
 public:
  struct run_record {
    npu::dispatched_instruction d;
    sc_core::sc_time start, end;
  };
  fake_unit(sc_core::sc_module_name name, sc_core::sc_time period, uint32_t latency_cycles);
  std::vector<run_record> runs;
  int64_t fault_seq = -1;
  uint32_t latency_cycles;

 protected:
  result execute(const npu::dispatched_instruction& d) override;

 private:
  sc_core::sc_time period_;
};

struct npu_bench {
  explicit npu_bench(npu::npu_params p = npu::npu_params{});
  ~npu_bench();
  npu::npu_params params;
  std::unique_ptr<npu::npu> dut;
  std::unique_ptr<mmio_master> master;
  std::map<npu::unit_kind, std::unique_ptr<fake_unit>> units;
  sc_core::sc_signal<bool> irq{"irq"};

  fake_unit& add_unit(npu::unit_kind kind, uint32_t latency_cycles);
  // Runs the script to completion (or until `limit`); returns sim time.
  sc_core::sc_time run(std::function<void(mmio_master&)> script,
                       sc_core::sc_time limit = sc_core::sc_time(1, sc_core::SC_MS));
};

// Instruction words through isa::encode, so the model's instruction structs
// are exercised too (the bits come from pccx_isa_encode.h, as the driver's).
uint64_t memset_word(uint8_t cache, uint8_t slot, uint16_t a, uint16_t b, uint16_t c);
uint64_t gemv_word(uint32_t dest, uint32_t src, uint8_t size_ptr, uint8_t shape_ptr,
                   uint8_t flags = 0, uint8_t lanes = 0, bool gemm = false);
uint64_t cvo_word(uint8_t func, uint32_t src, uint32_t dst, uint16_t length, bool async,
                  uint8_t flags = 0);
uint64_t memcpy_word(bool from_host, bool to_host, uint32_t dest, uint32_t src, uint8_t shape_ptr,
                     bool async);

}  // namespace pccx::test
