// A trace in the Chrome trace-event JSON object format,
// {"traceEvents": [...], "displayTimeUnit": "ns"}, which ui.perfetto.dev and
// chrome://tracing open. Events go to the file as they are added, one per
// line, so memory does not grow with the run. Times are sc_time values,
// written in microseconds with the exact decimals of the tick count, so the
// same run gives the same bytes.
#pragma once

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <systemc>

namespace pccx::trace {

class perfetto_trace {
 public:
  explicit perfetto_trace(const std::string& path);  // throws std::runtime_error
  ~perfetto_trace();
  perfetto_trace(const perfetto_trace&) = delete;
  perfetto_trace& operator=(const perfetto_trace&) = delete;

  // Metadata (ph "M"): names and display order of processes and threads.
  void process_name(int pid, const std::string& name, int sort_index);
  void thread_name(int pid, int tid, const std::string& name, int sort_index);
  // A complete event (ph "X") from `start` lasting `duration`.
  void complete(int pid, int tid, const std::string& name, const std::string& category,
                const sc_core::sc_time& start, const sc_core::sc_time& duration,
                const nlohmann::ordered_json& args);
  // A global instant event (ph "i", s "g"): a line across the whole timeline.
  void instant(int pid, int tid, const std::string& name, const std::string& category,
               const sc_core::sc_time& at);
  // A counter sample (ph "C"): `series` of counter `name` is `value` from
  // `at` until the next sample of the same counter.
  void counter(int pid, const std::string& name, const sc_core::sc_time& at,
               const std::string& series, double value);
  // The same with an integer value (written without a decimal point).
  void counter(int pid, const std::string& name, const sc_core::sc_time& at,
               const std::string& series, uint64_t value);
  // Flow events (ph "s" and "f") of flow `id`, which readers match by id,
  // name and category: the start binds to the slice of (pid, tid) that
  // encloses `at`, the finish, written with "bp":"e", too. A reader needs
  // the start at or before the finish in time; the arrow goes from the
  // earlier of the two slices to the later.
  void flow_start(int pid, int tid, const std::string& name, const std::string& category,
                  uint64_t id, const sc_core::sc_time& at);
  void flow_finish(int pid, int tid, const std::string& name, const std::string& category,
                   uint64_t id, const sc_core::sc_time& at);
  // Ends the array and the object; throws std::runtime_error when the file
  // could not be written. Called by the destructor if not before.
  void close();

  const std::string& path() const { return path_; }
  uint64_t events() const { return events_; }

 private:
  void begin_event();

  std::string path_;
  std::ofstream out_;
  uint64_t events_ = 0;
  bool closed_ = false;
};

// Microseconds of t as a decimal number with the exact digits of its tick
// count ("1234.5675"), as the trace writes ts and dur.
std::string to_us_text(const sc_core::sc_time& t);

}  // namespace pccx::trace
