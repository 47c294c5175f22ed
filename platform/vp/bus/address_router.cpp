#include "platform/vp/bus/address_router.h"

#include <cstdio>
#include <stdexcept>

namespace pccx::vp {

address_router::address_router(sc_core::sc_module_name name)
    : sc_core::sc_module(name), cpu("cpu"), targets("targets") {
  cpu.register_b_transport(this, &address_router::b_transport);
  cpu.register_transport_dbg(this, &address_router::transport_dbg);
}

void address_router::add_region(const region& r) {
  for (const auto& o : regions_)
    if (r.base < o.base + o.size && o.base < r.base + r.size)
      throw std::invalid_argument("address region " + r.name + " overlaps " + o.name);
  regions_.push_back(r);
}

const address_router::region* address_router::find(uint64_t address, size_t& index) const {
  for (index = 0; index < regions_.size(); ++index) {
    const region& r = regions_[index];
    if (address >= r.base && address - r.base < r.size) return &r;
  }
  return nullptr;
}

std::string address_router::describe(uint64_t address) const {
  size_t index = 0;
  const region* r = find(address, index);
  if (!r) return "";
  const uint64_t offset = address - r->base;
  if (r->register_name) {
    std::string reg = r->register_name(offset);
    if (!reg.empty()) return r->name + "." + reg;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "+0x%llx", static_cast<unsigned long long>(offset));
  return r->name + buf;
}

void address_router::b_transport(tlm::tlm_generic_payload& tx, sc_core::sc_time& delay) {
  const uint64_t address = tx.get_address();
  size_t index = 0;
  const region* r = find(address, index);
  if (!r) {
    tx.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  delay += tx.is_read() ? r->read_latency : r->write_latency;
  tx.set_address(address - r->base);
  targets[static_cast<int>(index)]->b_transport(tx, delay);
  tx.set_address(address);
}

unsigned int address_router::transport_dbg(tlm::tlm_generic_payload& tx) {
  const uint64_t address = tx.get_address();
  size_t index = 0;
  if (!find(address, index)) return 0;
  tx.set_address(address - regions_[index].base);
  const unsigned int n = targets[static_cast<int>(index)]->transport_dbg(tx);
  tx.set_address(address);
  return n;
}

}  // namespace pccx::vp
