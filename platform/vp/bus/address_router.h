// The PS-side interconnect seen by the firmware CPU: maps address regions
// to targets, rebases addresses to region offsets, and adds each region's
// access latency (AXI-Lite through the HPM port for the NPU, nothing for the
// sim-control device). An unmapped address answers with an address error.
#pragma once

#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <functional>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

namespace pccx::vp {

class address_router : public sc_core::sc_module {
 public:
  struct region {
    std::string name;
    uint64_t base = 0;
    uint64_t size = 0;
    sc_core::sc_time read_latency;
    sc_core::sc_time write_latency;
    std::function<std::string(uint64_t)> register_name;  // optional
  };

  explicit address_router(sc_core::sc_module_name name);

  tlm_utils::simple_target_socket<address_router> cpu;
  tlm_utils::multi_passthrough_initiator_socket<address_router> targets;

  // Regions are added in the order their targets are bound to `targets`.
  void add_region(const region& r);
  // "npu.STATUS", "simctl+0x40", or "" when unmapped.
  std::string describe(uint64_t address) const;

 private:
  void b_transport(tlm::tlm_generic_payload& tx, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& tx);
  const region* find(uint64_t address, size_t& index) const;

  std::vector<region> regions_;
};

}  // namespace pccx::vp
