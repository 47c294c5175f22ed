// Who is moving DDR bytes and why: every DDR transaction carries a
// ddr_traffic extension naming its port and traffic class, so bandwidth can
// be reported per port and per class.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <tlm>

namespace pccx::mem {

enum class ddr_port : uint8_t { hp0 = 0, hp1, hp2, hp3, acp, cpu, count };
constexpr size_t kDdrPorts = static_cast<size_t>(ddr_port::count);
const char* ddr_port_name(ddr_port p);

enum class traffic_class : uint8_t {
  weights = 0,
  kv_read,
  kv_write,
  kv_metadata,
  activations,
  host,
  count
};
constexpr size_t kTrafficClasses = static_cast<size_t>(traffic_class::count);
const char* traffic_class_name(traffic_class c);
std::optional<traffic_class> parse_traffic_class(std::string_view name);

// Attached by the initiator; the DDR controller rejects a transaction
// without it (it cannot be accounted).
struct ddr_traffic : tlm::tlm_extension<ddr_traffic> {
  ddr_port port = ddr_port::cpu;
  traffic_class cls = traffic_class::host;
  // Set by the controller: when the first byte moved and when the last one
  // had moved (before the access latency). An initiator that carries several
  // blocks in one transaction uses them to time each block.
  sc_core::sc_time transfer_start, transfer_end;

  ddr_traffic() = default;
  ddr_traffic(ddr_port p, traffic_class c) : port(p), cls(c) {}
  tlm::tlm_extension_base* clone() const override { return new ddr_traffic(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const ddr_traffic&>(other);
  }
};

}  // namespace pccx::mem
