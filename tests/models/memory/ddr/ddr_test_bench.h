// Test bench of the DDR controller: DMA-like stream initiators with their own
// quantum keeper, and a system (controller + streams) built from --set-style
// configuration overrides through the platform's own conversion.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "models/memory/ddr/ddr_controller.h"
#include "platform/config/platform_config.h"

namespace pccx::test {

using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_US;

struct stream_job {
  mem::ddr_port port = mem::ddr_port::hp0;
  mem::traffic_class cls = mem::traffic_class::weights;
  bool write = false;
  uint64_t address = 0;
  uint64_t bytes = 0;
  uint32_t block_bytes = 4096;
  sc_time start_at = sc_core::SC_ZERO_TIME;
  // 0: the next block arrives when the previous transfer ends (a DMA with
  // enough blocks in flight to cover the latency). N: at most N blocks in
  // flight; block k arrives when block k - N completes.
  uint32_t outstanding = 0;
  // Stop issuing once the next arrival would be at or after this time (0: never).
  sc_time until = sc_core::SC_ZERO_TIME;
};

// A quantum keeper with its own quantum, aligned to multiples of it as the
// global one is, so two systems in one process can use different quanta.
class local_quantum_keeper : public tlm_utils::tlm_quantumkeeper {
 public:
  explicit local_quantum_keeper(sc_time quantum) : quantum_(quantum) {}

 protected:
  sc_time compute_local_quantum() override;

 private:
  sc_time quantum_;
};

class stream_initiator : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(stream_initiator);
  stream_initiator(sc_core::sc_module_name name, const stream_job& job, sc_time quantum,
                   const mem::ddr_params& params);

  tlm_utils::simple_initiator_socket<stream_initiator> socket;
  stream_job job;

  uint64_t bytes_done = 0;
  uint64_t blocks = 0;
  tlm::tlm_response_status last_status = tlm::TLM_INCOMPLETE_RESPONSE;
  bool failed = false;
  bool done = false;
  sc_time first_arrival;
  sc_time last_end;         // transfer end of the last block
  sc_time last_completion;  // completion of the last block
  // bytes_done / (last_end - first_arrival), GB/s
  double gbps() const;

 private:
  void run();
  sc_time quantum_;
  sc_time latency_;
  bool functional_;
};

struct ddr_system {
  // `sets` are --set overrides ("ddr.model=fixed"); `prefix` names the modules.
  // `tweak` may change the converted parameters before the controller is built.
  explicit ddr_system(const std::vector<std::string>& sets = {}, const std::string& prefix = "",
                      const std::function<void(mem::ddr_params&)>& tweak = {});
  stream_initiator& add(const stream_job& job, sc_time quantum = sc_time(1, SC_US));
  // Adds one stream per port with the same job otherwise.
  void add_ports(const std::vector<mem::ddr_port>& ports, stream_job job,
                 sc_time quantum = sc_time(1, SC_US));

  config::platform_config cfg;
  mem::ddr_params params;
  std::unique_ptr<mem::ddr_controller> ddr;
  std::vector<std::unique_ptr<stream_initiator>> streams;
  std::string prefix;
};

// Runs the simulation until every initiator is done.
void run_all();

// One b_transport from outside any thread (kernel time stays where it is).
tlm::tlm_response_status access(mem::ddr_controller& ddr, mem::ddr_port port, bool write,
                                uint64_t address, uint8_t* data, uint32_t length,
                                sc_time* delay = nullptr, bool with_extension = true);

inline double effective_gbps(const mem::ddr_controller& d) {
  return d.capacity().effective_bytes_per_s / 1e9;
}

}  // namespace pccx::test
