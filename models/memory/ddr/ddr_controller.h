// The PS DDR4 controller of the KV260 as the NPU and the CPU see it: one
// TLM target socket per port (hp0..hp3, acp, cpu), the PS front end that
// shares the controller's capacity between busy ports (bandwidth_scheduler),
// the DRAM behind it with its banks, rows, bus, refresh and write buffer
// (dram_scheduler; model "banks"), a sparse backing store for functional
// runs, and bandwidth statistics (bandwidth_recorder).
//
// b_transport never waits: it reserves the transfer on the front end's
// timeline and on the DRAM, and returns delay = completion -
// sc_time_stamp(), where completion is the later of the two ends plus the
// PS path's read or write latency. A write is posted: it ends when the write
// buffer takes it. Every transaction must carry
// a ddr_traffic extension naming this socket's port (else
// TLM_GENERIC_ERROR_RESPONSE) and an address in [base, base + size) (else
// TLM_ADDRESS_ERROR_RESPONSE). In timing mode the data pointer may be null
// and no data is kept. transport_dbg reads and writes the store without
// timing (functional mode only). DMI is never granted: it would bypass the
// bandwidth model. docs/models/memory-ddr.md describes the model.
#pragma once

#include <tlm_utils/simple_target_socket.h>

#include <array>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <systemc>
#include <tlm>

#include "infra/log/logger.h"
#include "infra/time/ns_to_ticks.h"
#include "infra/time/ticks_as_time.h"
#include "infra/trace/analysis_port.h"
#include "infra/trace/trace_hub.h"
#include "models/memory/common/traffic.h"
#include "models/memory/ddr/backing_store.h"
#include "models/memory/ddr/bandwidth_recorder.h"
#include "models/memory/ddr/bandwidth_scheduler.h"
#include "models/memory/ddr/ddr_capacity.h"
#include "models/memory/ddr/ddr_params.h"
#include "models/memory/ddr/dram/dram_scheduler.h"
#include "traces/jsonl_trace.h"

namespace pccx::mem {

class ddr_controller : public sc_core::sc_module {
 public:
  // Optional: a platform need not wire every port.
  using target_socket = tlm_utils::simple_target_socket_tagged_optional<ddr_controller>;

  // Throws std::invalid_argument for parameters that make no sense (empty
  // or wrapping address range, unknown policy, no bandwidth).
  ddr_controller(sc_core::sc_module_name name, const ddr_params& params);

  // Indexed by ddr_port: socket[0] is "hp0", ... socket[5] is "cpu".
  std::array<target_socket, kDdrPorts> socket;
  target_socket& port(ddr_port p) { return socket[static_cast<size_t>(p)]; }

  const ddr_params& params() const { return params_; }
  const ddr_capacity& capacity() const { return capacity_; }
  // The DRAM side; nullptr with the fixed model.
  const dram_scheduler* dram() const { return dram_.get(); }
  const bandwidth_scheduler& scheduler() const { return scheduler_; }
  const bandwidth_recorder& recorder() const { return recorder_; }
  // The plots' series (ddr_params::plot_series), or nullptr. It keeps the
  // windows and byte counts only (bandwidth_recorder::record_series).
  const bandwidth_recorder* plot_recorder() const { return plot_recorder_.get(); }
  static constexpr double kPlotWindowNs = 10.0;
  static constexpr size_t kPlotWindows = 2048;
  const backing_store& store() const { return store_; }

  // Drains the write buffer at the current time (the end of a run), so the
  // DRAM's figures count every write.
  void drain_writes();
  // Model, mode, policy, the capacity's bounds, the DRAM's time breakdown,
  // commands, row hits and energy ("dram"), the recorder's summary
  // ("bandwidth") and the store's allocation.
  nlohmann::json summary() const;
  void write_csv(const std::string& dir) const { recorder_.write_csv(dir); }

  // Optional per-transaction JSON Lines trace (not owned; nullptr = off):
  // {t_ns (arrival), port, class, dir, addr, bytes, start_ns, end_ns,
  //  latency_ns, queueing_ns, port_wait_ns}.
  void set_trace(trace::jsonl_trace* t) { trace_ = t; }
  // Each timed transaction (tests, counters, trace writers).
  trace::analysis_port<ddr_access> accesses;

 private:
  void b_transport(int id, tlm::tlm_generic_payload& tr, sc_core::sc_time& delay);
  unsigned int transport_dbg(int id, tlm::tlm_generic_payload& tr);
  bool in_range(uint64_t address, uint64_t length) const;
  void reject(tlm::tlm_generic_payload& tr, tlm::tlm_response_status status, ddr_port port,
              const std::string& why) const;
  void write_trace(const ddr_access& a);

  ddr_params params_;
  double tick_s_;  // the kernel's time resolution, seconds
  trace::ns_converter ns_;  // to_ns() per transaction
  ticks_as_time time_of_;   // the scheduler's and DRAM's ticks as sc_time
  ns_to_ticks ns_ticks_;  // the DRAM's nanoseconds as kernel ticks
  ddr_capacity capacity_;
  log::logger log_;
  bandwidth_scheduler scheduler_;
  bandwidth_recorder recorder_;
  std::unique_ptr<bandwidth_recorder> plot_recorder_;
  sc_core::sc_time forgotten_before_;  // the kernel time of the last forget_before
  // Per port, the last transfer's length and the ticks it takes at the
  // port's cap: a port mostly repeats its length (a 2-D descriptor's rows).
  struct at_cap_memo {
    uint64_t bytes = 0;
    uint64_t ticks = 0;
  };
  std::array<at_cap_memo, kDdrPorts> at_cap_{};
  backing_store store_;
  std::unique_ptr<dram_scheduler> dram_;
  trace::jsonl_trace* trace_ = nullptr;
};

}  // namespace pccx::mem
