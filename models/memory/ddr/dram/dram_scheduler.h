// The DRAM side of the DDR controller: reads go to the rank as they come;
// writes are posted into the write buffer and reach the rank in batches
// (drained from the high watermark down to the low one, or when the buffer
// is full), so the bus turns around once per batch. The buffer keeps its
// writes in age order: a drain sends the oldest write that hits its bank's
// open row before older misses (FR-FCFS), unless the oldest has been
// overtaken age_limit times. Reads are not reordered: an LT target returns
// a read's completion when it arrives, before the requests behind it
// exist. Keeps the row-hit figures per port and traffic class and the DRAM
// energy's command counts per class. Times are nanoseconds at the boundary, DRAM clocks inside;
// SystemC-free.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <nlohmann/json.hpp>

#include "models/memory/common/traffic.h"
#include "models/memory/ddr/ddr_config.h"
#include "models/memory/ddr/dram/address_map.h"
#include "models/memory/ddr/dram/dram_energy.h"
#include "models/memory/ddr/dram/dram_rank.h"
#include "models/memory/ddr/dram/dram_timing.h"

namespace pccx::mem {

class dram_scheduler {
 public:
  explicit dram_scheduler(const config::ddr_config& c);

  struct read_result {
    double data_start_ns = 0;
    double data_end_ns = 0;
  };
  // offset within the rank; earliest_ns: the controller has the request.
  read_result read(ddr_port port, traffic_class cls, uint64_t offset, uint64_t bytes,
                   double earliest_ns);
  // Returns when the write buffer accepted the write (later than arrival
  // only when the buffer was full).
  double write(ddr_port port, traffic_class cls, uint64_t offset, uint64_t bytes,
               double arrival_ns);
  // Drains every buffered write, no earlier than at_ns (end of a run).
  void flush(double at_ns);
  void forget_before(double now_ns);

  struct row_stats {
    uint64_t hits = 0, misses = 0;
    uint64_t activates = 0, read_bursts = 0, write_bursts = 0;  // for energy by class
    double hit_rate() const { return hits + misses ? double(hits) / double(hits + misses) : 0; }
  };
  const row_stats& port_stats(ddr_port p) const { return ports_[static_cast<size_t>(p)]; }
  const row_stats& class_stats(traffic_class c) const { return classes_[static_cast<size_t>(c)]; }
  uint32_t buffered_bursts() const { return pending_bursts_; }
  uint64_t drains() const { return drains_; }
  const dram_rank& rank() const { return rank_; }
  const dram_timing& timing() const { return timing_; }

  // Where the DRAM's time went up to until_ns, the commands, the row-hit
  // rates per port and class and the energy (total and per class: a
  // class's own commands plus background and refresh by its share of data).
  nlohmann::ordered_json summary(double until_ns) const;
  dram_energy energy(double until_ns) const;
  dram_energy class_energy(traffic_class c, double until_ns) const;

 private:
  struct pending_write {
    ddr_port port;
    traffic_class cls;
    uint64_t offset, bytes;
    uint32_t bursts;
    uint32_t overtaken;  // by younger row hits
  };
  // The buffered write a drain at `clock` sends next (index into pending_).
  size_t next_write(int64_t clock) const;
  int64_t clocks(double ns) const;
  // Bursts of [offset, offset + bytes).
  uint32_t bursts_of(uint64_t offset, uint64_t bytes) const;
  void account(ddr_port port, traffic_class cls, const dram_rank::access& a, uint32_t bursts,
               bool write);
  double drain(double at_ns, uint32_t down_to);

  config::ddr_config config_;
  dram_timing timing_;
  dram_rank rank_;
  dram_energy_costs costs_;
  std::deque<pending_write> pending_;
  uint32_t pending_bursts_ = 0;
  uint64_t drains_ = 0;
  std::array<row_stats, kDdrPorts> ports_{};
  std::array<row_stats, kTrafficClasses> classes_{};
};

}  // namespace pccx::mem
