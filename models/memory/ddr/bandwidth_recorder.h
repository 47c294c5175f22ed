// Bandwidth statistics of the DDR: totals per port, per traffic class and
// overall, and a time series of bytes per window. A transaction's bytes are
// spread over the windows its transfer interval covers, pro rata (in whole
// bytes, so the windows add up exactly to the bytes moved).
//
// Memory does not grow with the number of transactions: only the window
// series grows, with simulated time (12 counters per window), and it is
// bounded: a series that would pass kMaxWindows windows is coarsened, each
// pair of windows merged into one of twice the width (the summary reports
// the window used and the one asked for).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <systemc>
#include <vector>

#include "infra/trace/trace_hub.h"
#include "models/memory/common/traffic.h"

namespace pccx::mem {

// One DDR transaction as the controller timed it.
struct ddr_access {
  ddr_port port = ddr_port::cpu;
  traffic_class cls = traffic_class::host;
  bool write = false;
  uint64_t address = 0;
  uint64_t bytes = 0;
  sc_core::sc_time arrival;     // kernel time + the initiator's local offset
  sc_core::sc_time start;       // transfer start
  sc_core::sc_time end;         // transfer end: the port is free again
  sc_core::sc_time completion;  // end + read or write latency
  // (start - arrival) + (end - start - bytes / port cap)
  sc_core::sc_time queueing;
  // The part of the queueing spent waiting for this port's own earlier
  // transfers (an initiator with several blocks in flight): the rest of the
  // queueing is contention with other ports for the DDR.
  sc_core::sc_time port_wait;
  sc_core::sc_time latency() const { return completion - arrival; }
};

struct traffic_totals {
  uint64_t transactions = 0;
  uint64_t bytes = 0;
  uint64_t read_bytes = 0;
  uint64_t write_bytes = 0;
  sc_core::sc_time first_arrival;    // valid when transactions > 0
  sc_core::sc_time last_completion;  // valid when transactions > 0
  double latency_sum_ns = 0;
  double latency_max_ns = 0;
  double queueing_sum_ns = 0;
  double queueing_max_ns = 0;
  double port_wait_sum_ns = 0;

  // last_completion - first_arrival; 0 without transactions.
  double span_ns() const;
  // bytes / span_ns (bytes per ns = GB/s); 0 without transactions.
  double avg_gbps() const;
  double avg_latency_ns() const;
  double avg_queueing_ns() const;
  double avg_port_wait_ns() const;
  // Inline: each transaction is added to its port's, its class's and the
  // total's, millions of times in a prefill chunk.
  void add(const ddr_access& a, double latency_ns, double queueing_ns, double port_wait_ns) {
    if (transactions == 0 || a.arrival < first_arrival) first_arrival = a.arrival;
    if (transactions == 0 || a.completion > last_completion) last_completion = a.completion;
    ++transactions;
    bytes += a.bytes;
    (a.write ? write_bytes : read_bytes) += a.bytes;
    latency_sum_ns += latency_ns;
    latency_max_ns = std::max(latency_max_ns, latency_ns);
    queueing_sum_ns += queueing_ns;
    queueing_max_ns = std::max(queueing_max_ns, queueing_ns);
    port_wait_sum_ns += port_wait_ns;
  }
};

class bandwidth_recorder {
 public:
  // peak and effective bandwidth are the references of the utilisation figures.
  // max_windows: the series is coarsened (window doubled) to stay within it.
  bandwidth_recorder(const sc_core::sc_time& window, double peak_bytes_per_s,
                     double effective_bytes_per_s, size_t max_windows = kMaxWindows);

  void record(const ddr_access& a);
  // The windows and the byte counts alone, what write_series_csv draws: for
  // a recorder that only plots (the latency and queueing sums are left out).
  void record_series(const ddr_access& a);
  void reset();

  const traffic_totals& port(ddr_port p) const { return ports_[static_cast<size_t>(p)]; }
  const traffic_totals& cls(traffic_class c) const { return classes_[static_cast<size_t>(c)]; }
  const traffic_totals& total() const { return total_; }

  // Windows the series may hold (about 50 MB): a finer stats.window_ns over
  // a long run is coarsened by powers of two to fit.
  static constexpr size_t kMaxWindows = size_t{1} << 19;
  // Window w covers [w x window, (w + 1) x window) of simulated time.
  const sc_core::sc_time& window() const { return window_; }
  size_t window_count() const { return windows_.size(); }
  uint64_t window_bytes(ddr_port p, size_t w) const;
  uint64_t window_bytes(traffic_class c, size_t w) const;
  // Highest window bandwidth, GB/s.
  double peak_gbps(ddr_port p) const;
  double peak_gbps(traffic_class c) const;
  double peak_gbps_total() const;

  // ddr_bandwidth.csv (window_start_ns, window_end_ns, kind, name, bytes,
  // gbps; kind port or class; series that moved bytes, windows from the
  // first active one) and ddr_totals.csv (one row per port, class and the
  // total). Creates `dir`; throws std::runtime_error when it cannot write.
  void write_csv(const std::string& dir) const;
  // The time series alone, as ddr_bandwidth.csv, into `path`.
  void write_series_csv(const std::string& path) const;
  // Totals per port, class and overall with bandwidth, utilisation, latency
  // and queueing figures.
  nlohmann::json summary() const;

 private:
  static constexpr size_t kSeries = kDdrPorts + kTrafficClasses;
  using window_row = std::array<uint64_t, kSeries>;
  // The windows in blocks that are never moved once allocated: a series of
  // hundreds of thousands of windows grows without copying itself.
  class window_series {
   public:
    size_t size() const { return size_; }
    window_row& operator[](size_t w) { return blocks_[w / kBlockRows][w % kBlockRows]; }
    const window_row& operator[](size_t w) const {
      return blocks_[w / kBlockRows][w % kBlockRows];
    }
    void grow_to(size_t n);  // new windows are zero
    void clear();

   private:
    static constexpr size_t kBlockRows = 4096;
    std::vector<std::vector<window_row>> blocks_;
    size_t size_ = 0;
  };

  // The busiest window of every series and of the ports together, in
  // bytes, from one pass over the windows: the summary and the totals CSV
  // need all of them, and a pass per series walks the windows eleven times.
  struct window_peaks {
    window_row series{};
    uint64_t total = 0;
  };
  window_peaks peaks() const;
  double gbps_of_window(uint64_t bytes) const { return static_cast<double>(bytes) / window_ns_; }
  nlohmann::json totals_json(const traffic_totals& t, double peak_gbps) const;
  void spread(size_t port_series, size_t class_series, uint64_t start, uint64_t end,
              uint64_t bytes);

  // Doubles the window width: window pairs merge.
  void coarsen();
  void forget_last_window() {
    last_window_ = 0;
    last_window_start_ = ~uint64_t{0};  // no transfer starts there
  }

  sc_core::sc_time window_;
  uint64_t window_ticks_;
  double window_ns_;
  trace::ns_converter ns_;             // to_ns() per transaction
  sc_core::sc_time requested_window_;  // stats.window_ns, before any coarsening
  size_t max_windows_;
  double peak_bytes_per_s_;
  double effective_bytes_per_s_;
  std::array<traffic_totals, kDdrPorts> ports_;
  std::array<traffic_totals, kTrafficClasses> classes_;
  traffic_totals total_;
  window_series windows_;
  // The window the last transfer ended in, and its first tick.
  size_t last_window_ = 0;
  uint64_t last_window_start_ = ~uint64_t{0};
};

}  // namespace pccx::mem
