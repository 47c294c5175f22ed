#include "ddr_test_bench.h"

#include <algorithm>
#include <cmath>
#include <deque>

#include "platform/config/platform_loader.h"

namespace pccx::test {

sc_time local_quantum_keeper::compute_local_quantum() {
  if (quantum_ == sc_core::SC_ZERO_TIME) return sc_core::SC_ZERO_TIME;
  const sc_time now = sc_core::sc_time_stamp();
  const uint64_t q = quantum_.value();
  const uint64_t next = (now.value() / q + 1) * q;
  return sc_time::from_value(next - now.value());
}

stream_initiator::stream_initiator(sc_core::sc_module_name name, const stream_job& j,
                                   sc_time quantum, const mem::ddr_params& params)
    : sc_core::sc_module(name),
      socket("socket"),
      job(j),
      quantum_(quantum),
      latency_(j.write ? params.write_latency : params.read_latency),
      functional_(params.functional) {
  SC_THREAD(run);
}

double stream_initiator::gbps() const {
  const double ns = (last_end - first_arrival).to_seconds() * 1e9;
  return ns > 0 ? static_cast<double>(bytes_done) / ns : 0.0;
}

void stream_initiator::run() {
  if (job.start_at > sc_core::SC_ZERO_TIME) wait(job.start_at);
  local_quantum_keeper qk(quantum_);
  qk.reset();

  tlm::tlm_generic_payload tr;
  tr.set_extension(new mem::ddr_traffic(job.port, job.cls));  // owned by tr
  std::vector<uint8_t> buffer(functional_ ? job.block_bytes : 0);
  for (size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<uint8_t>(i * 7 + 1);
  std::deque<sc_time> in_flight;  // completions, oldest first

  uint64_t offset = 0;
  while (offset < job.bytes) {
    const sc_time now = sc_core::sc_time_stamp();
    if (job.outstanding > 0 && in_flight.size() >= job.outstanding) {
      const sc_time free_at = in_flight.front();
      in_flight.pop_front();
      if (free_at > now + qk.get_local_time()) qk.set(free_at - now);
    }
    if (job.until > sc_core::SC_ZERO_TIME && now + qk.get_local_time() >= job.until) break;
    const uint32_t len =
        static_cast<uint32_t>(std::min<uint64_t>(job.block_bytes, job.bytes - offset));
    tr.set_command(job.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    tr.set_address(job.address + offset);
    tr.set_data_ptr(functional_ ? buffer.data() : nullptr);
    tr.set_data_length(len);
    tr.set_streaming_width(len);
    tr.set_byte_enable_ptr(nullptr);
    tr.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_time delay = qk.get_local_time();
    if (blocks == 0) first_arrival = now + delay;
    socket->b_transport(tr, delay);
    last_status = tr.get_response_status();
    if (!tr.is_response_ok()) {
      failed = true;
      break;
    }
    const sc_time completion = now + delay;
    last_completion = completion;
    last_end = completion - latency_;
    offset += len;
    bytes_done += len;
    ++blocks;
    if (job.outstanding == 0)
      qk.set(last_end - now);
    else
      in_flight.push_back(completion);
    if (qk.need_sync()) qk.sync();
  }
  // Let simulated time reach the last completion.
  const sc_time now = sc_core::sc_time_stamp();
  if (last_completion > now) wait(last_completion - now);
  done = true;
}

ddr_system::ddr_system(const std::vector<std::string>& sets, const std::string& p,
                       const std::function<void(mem::ddr_params&)>& tweak)
    : cfg(config::load({{}, sets})),
      params(mem::make_ddr_params(
          cfg.ddr, {cfg.memory_map.ddr_base, cfg.memory_map.ddr_size, cfg.simulation.functional(),
                    cfg.clocks.axi_mhz, cfg.simulation.quantum_ns, cfg.stats.window_ns})),
      prefix(p) {
  if (tweak) tweak(params);
  ddr = std::make_unique<mem::ddr_controller>((prefix + "ddr").c_str(), params);
}

stream_initiator& ddr_system::add(const stream_job& job, sc_time quantum) {
  const std::string name = prefix + "s_" + mem::ddr_port_name(job.port);
  streams.push_back(std::make_unique<stream_initiator>(name.c_str(), job, quantum, params));
  streams.back()->socket.bind(ddr->port(job.port));
  return *streams.back();
}

void ddr_system::add_ports(const std::vector<mem::ddr_port>& ports, stream_job job,
                           sc_time quantum) {
  uint64_t base = job.address;
  for (auto p : ports) {
    job.port = p;
    job.address = base;
    base += job.bytes;
    add(job, quantum);
  }
}

void run_all() {
  sc_core::sc_start();
}

tlm::tlm_response_status access(mem::ddr_controller& ddr, mem::ddr_port port, bool write,
                                uint64_t address, uint8_t* data, uint32_t length, sc_time* delay,
                                bool with_extension) {
  tlm::tlm_generic_payload tr;
  if (with_extension) tr.set_extension(new mem::ddr_traffic(port, mem::traffic_class::host));
  tr.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  tr.set_address(address);
  tr.set_data_ptr(data);
  tr.set_data_length(length);
  tr.set_streaming_width(length);
  tr.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_time d = delay ? *delay : sc_core::SC_ZERO_TIME;
  ddr.port(port).get_base_export()->b_transport(tr, d);
  if (delay) *delay = d;
  return tr.get_response_status();
}

}  // namespace pccx::test
