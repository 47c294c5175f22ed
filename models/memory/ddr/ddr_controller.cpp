#include "models/memory/ddr/ddr_controller.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>

#include "infra/text/hex.h"
#include "infra/time/kernel_time.h"
#include "infra/time/round_ticks.h"
#include "infra/trace/trace_hub.h"

namespace pccx::mem {

using sc_core::sc_time;
using trace::to_ns;

namespace {

using socket_array = std::array<ddr_controller::target_socket, kDdrPorts>;

template <size_t... I>
socket_array make_sockets(std::index_sequence<I...>) {
  return {ddr_controller::target_socket(ddr_port_name(static_cast<ddr_port>(I)))...};
}

const ddr_params& checked(const ddr_params& p) {
  if (p.size == 0) throw std::invalid_argument("DDR: size must be > 0");
  if (p.base + p.size < p.base && p.base + p.size != 0)
    throw std::invalid_argument("DDR: base + size wraps the address space");
  for (double cap : p.port_cap_bytes_per_s)
    if (!(cap > 0)) throw std::invalid_argument("DDR: port caps must be > 0");
  if (p.window == sc_core::SC_ZERO_TIME)
    throw std::invalid_argument("DDR: statistics window must be > 0");
  return p;
}

using text::hex;

}  // namespace

ddr_controller::ddr_controller(sc_core::sc_module_name name, const ddr_params& params)
    : sc_core::sc_module(name),
      socket(make_sockets(std::make_index_sequence<kDdrPorts>{})),
      params_(checked(params)),
      tick_s_(sc_core::sc_get_time_resolution().to_seconds()),
      capacity_(derive_capacity(params.dram)),
      log_(this->name()),
      scheduler_(params_, capacity_.effective_bytes_per_s),
      recorder_(params_.window, capacity_.peak_bytes_per_s, capacity_.effective_bytes_per_s),
      store_(params_.size) {
  if (params_.dram.model == config::dram_model::banks) {
    if (params_.size > params_.dram.capacity_bytes())
      throw std::invalid_argument("DDR: size " + hex(params_.size) +
                                  " exceeds the rank's capacity " +
                                  hex(params_.dram.capacity_bytes()));
    dram_ = std::make_unique<dram_scheduler>(params_.dram);
  }
  if (params_.plot_series)
    plot_recorder_ = std::make_unique<bandwidth_recorder>(
        sc_core::sc_time(kPlotWindowNs, sc_core::SC_NS), capacity_.peak_bytes_per_s,
        capacity_.effective_bytes_per_s, kPlotWindows);
  for (size_t p = 0; p < kDdrPorts; ++p) {
    socket[p].register_b_transport(this, &ddr_controller::b_transport, static_cast<int>(p));
    socket[p].register_transport_dbg(this, &ddr_controller::transport_dbg, static_cast<int>(p));
  }
  PCCX_LOG(log_, debug,
           "front end " << capacity_.effective_bytes_per_s / 1e9 << " GB/s of "
                        << capacity_.peak_bytes_per_s / 1e9 << " GB/s peak ("
                        << config::enum_name(capacity_.model) << "), "
                        << scheduler_.policy().name());
}

bool ddr_controller::in_range(uint64_t address, uint64_t length) const {
  if (address < params_.base) return false;
  const uint64_t offset = address - params_.base;
  return offset < params_.size && length <= params_.size - offset;
}

void ddr_controller::reject(tlm::tlm_generic_payload& tr, tlm::tlm_response_status status,
                            ddr_port port, const std::string& why) const {
  PCCX_LOG(log_, error,
           ddr_port_name(port) << ": " << (tr.is_write() ? "write" : "read") << " of "
                               << tr.get_data_length() << " bytes at " << hex(tr.get_address())
                               << " rejected: " << why);
  tr.set_response_status(status);
}

void ddr_controller::b_transport(int id, tlm::tlm_generic_payload& tr, sc_time& delay) {
  const auto port = static_cast<ddr_port>(id);
  ddr_traffic* ext = tr.get_extension<ddr_traffic>();
  if (!ext)
    return reject(tr, tlm::TLM_GENERIC_ERROR_RESPONSE, port,
                  "no ddr_traffic extension (every DDR transaction must name its port and "
                  "traffic class)");
  if (ext->port != port)
    return reject(tr, tlm::TLM_GENERIC_ERROR_RESPONSE, port,
                  std::string("ddr_traffic names port ") + ddr_port_name(ext->port) +
                      " but arrived on socket " + ddr_port_name(port));
  const tlm::tlm_command cmd = tr.get_command();
  if (cmd == tlm::TLM_IGNORE_COMMAND) {
    tr.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  const uint64_t address = tr.get_address();
  const uint64_t length = tr.get_data_length();
  if (!in_range(address, length))
    return reject(
        tr, tlm::TLM_ADDRESS_ERROR_RESPONSE, port,
        "outside DDR [" + hex(params_.base) + ", " + hex(params_.base + params_.size) + ")");
  if (tr.get_streaming_width() != 0 && tr.get_streaming_width() < length)
    return reject(tr, tlm::TLM_BURST_ERROR_RESPONSE, port, "streaming bursts are not supported");
  if (length == 0) {
    tr.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  const bool write = cmd == tlm::TLM_WRITE_COMMAND;

  if (params_.functional) {
    uint8_t* data = tr.get_data_ptr();
    if (!data)
      return reject(tr, tlm::TLM_GENERIC_ERROR_RESPONSE, port,
                    "no data pointer in functional mode");
    const uint64_t offset = address - params_.base;
    if (!write)
      store_.read(offset, data, length);
    else if (tr.get_byte_enable_ptr() && tr.get_byte_enable_length() > 0)
      store_.write_enabled(offset, data, length, tr.get_byte_enable_ptr(),
                           tr.get_byte_enable_length());
    else
      store_.write(offset, data, length);
  }

  const sc_time now = kernel_time();
  // Decoupled initiators issue many transactions at one kernel time; the
  // history before it needs dropping once.
  if (now != forgotten_before_) {
    forgotten_before_ = now;
    scheduler_.forget_before(now);
    if (dram_) dram_->forget_before(ns_(now));
  }
  ddr_access a;
  a.port = port;
  a.cls = ext->cls;
  a.write = write;
  a.address = address;
  a.bytes = length;
  a.arrival = now + delay;
  const ddr_grant g = scheduler_.schedule(port, write, a.arrival, length);
  uint64_t end = g.end;
  if (dram_) {
    // The DRAM has the request when it arrives (the controller queues it
    // while the port moves earlier data); the transfer cannot end before the
    // DRAM has moved its data (a read) or the write buffer has taken it (a
    // write). The port itself is busy only for its own transfer, so
    // requests in flight overlap their DRAM latency.
    const uint64_t offset = address - params_.base;
    const double arrived_ns = ns_(a.arrival);
    const double done_ns =
        write ? dram_->write(port, ext->cls, offset, length, arrived_ns)
              : dram_->read(port, ext->cls, offset, length, arrived_ns).data_end_ns;
    end = std::max(end, ns_ticks_(done_ns));
    scheduler_.extend(port, end);
  }
  a.start = time_of_(g.start);
  a.end = time_of_(end);
  a.completion = a.end + (write ? params_.write_latency : params_.read_latency);
  // Waiting to start, plus the time the transfer took beyond what its port
  // alone would need (both in whole ticks, as the timeline rounds).
  at_cap_memo& memo = at_cap_[static_cast<size_t>(id)];
  if (memo.bytes != length) {
    memo.bytes = length;
    memo.ticks =
        round_ticks(static_cast<double>(length) / params_.port_cap_bytes_per_s[id] / tick_s_);
  }
  const uint64_t at_cap = memo.ticks;
  const uint64_t took = end - g.start;  // front end and DRAM
  a.queueing = a.start - a.arrival;
  if (took > at_cap) a.queueing += time_of_(took - at_cap);
  const uint64_t arrived = a.arrival.value();
  a.port_wait = g.ready == arrived ? sc_core::SC_ZERO_TIME : time_of_(g.ready - arrived);

  recorder_.record(a);
  if (plot_recorder_) plot_recorder_->record_series(a);
  if (trace_) write_trace(a);
  if (accesses.connected()) accesses.write(a);

  ext->transfer_start = a.start;
  ext->transfer_end = a.end;
  delay = a.completion - now;
  tr.set_response_status(tlm::TLM_OK_RESPONSE);
}

void ddr_controller::drain_writes() {
  if (dram_) dram_->flush(to_ns(kernel_time()));
}

unsigned int ddr_controller::transport_dbg(int id, tlm::tlm_generic_payload& tr) {
  const uint64_t address = tr.get_address();
  const uint64_t length = tr.get_data_length();
  if (!params_.functional || !tr.get_data_ptr() || !in_range(address, length)) {
    PCCX_LOG(log_, debug,
             ddr_port_name(static_cast<ddr_port>(id))
                 << ": debug access at " << hex(address) << " not served ("
                 << (!params_.functional ? "timing mode keeps no data" : "out of range") << ")");
    return 0;
  }
  const uint64_t offset = address - params_.base;
  if (tr.is_read())
    store_.read(offset, tr.get_data_ptr(), length);
  else if (tr.is_write())
    store_.write(offset, tr.get_data_ptr(), length);
  else
    return 0;
  tr.set_response_status(tlm::TLM_OK_RESPONSE);
  return static_cast<unsigned int>(length);
}

void ddr_controller::write_trace(const ddr_access& a) {
  nlohmann::ordered_json r;
  r["t_ns"] = to_ns(a.arrival);
  r["port"] = ddr_port_name(a.port);
  r["class"] = traffic_class_name(a.cls);
  r["dir"] = a.write ? "W" : "R";
  r["addr"] = hex(a.address);
  r["bytes"] = a.bytes;
  r["start_ns"] = to_ns(a.start);
  r["end_ns"] = to_ns(a.end);
  r["latency_ns"] = to_ns(a.latency());
  r["queueing_ns"] = to_ns(a.queueing);
  r["port_wait_ns"] = to_ns(a.port_wait);
  trace_->write(r);
}

nlohmann::json ddr_controller::summary() const {
  nlohmann::json j;
  j["mode"] = params_.functional ? "functional" : "timing";
  j["arbitration"] = scheduler_.policy().name();
  j["read_latency_ns"] = to_ns(params_.read_latency);
  j["write_latency_ns"] = to_ns(params_.write_latency);
  j["capacity"] = nlohmann::json::parse(to_json(capacity_).dump());
  if (dram_) j["dram"] = nlohmann::json::parse(dram_->summary(to_ns(kernel_time())).dump());
  j["bandwidth"] = recorder_.summary();
  j["store"] = {{"allocated_pages", store_.allocated_pages()},
                {"allocated_bytes", store_.allocated_bytes()}};
  return j;
}

}  // namespace pccx::mem
