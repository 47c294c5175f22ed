#include "traces/perfetto_trace.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace pccx::trace {

namespace {

// Firmware text (markers, counter names) may hold any bytes: invalid UTF-8
// is replaced rather than thrown on.
std::string quoted(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string dumped(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string to_us_text(const sc_core::sc_time& t) {
  // SystemC resolutions are powers of ten, so a microsecond is 10^digits ticks.
  static const double ticks_per_us =
      std::round(1e-6 / sc_core::sc_get_time_resolution().to_seconds());
  static const int digits =
      ticks_per_us >= 1 ? static_cast<int>(std::lround(std::log10(ticks_per_us))) : 0;
  const uint64_t ticks = t.value();
  if (digits == 0)
    return std::to_string(static_cast<uint64_t>(static_cast<double>(ticks) / ticks_per_us));
  uint64_t scale = 1;
  for (int i = 0; i < digits; ++i) scale *= 10;
  std::string text = std::to_string(ticks / scale);
  uint64_t frac = ticks % scale;
  if (frac == 0) return text;
  std::string f = std::to_string(frac);
  f.insert(0, static_cast<size_t>(digits) - f.size(), '0');
  while (!f.empty() && f.back() == '0') f.pop_back();
  return text + "." + f;
}

perfetto_trace::perfetto_trace(const std::string& path) : path_(path), out_(path, std::ios::trunc) {
  if (!out_)
    throw std::runtime_error("cannot open trace file '" + path +
                             "' for writing: " + std::strerror(errno));
  out_ << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
}

perfetto_trace::~perfetto_trace() {
  try {
    close();
  } catch (const std::runtime_error&) {
    // A destructor cannot report it; close() called explicitly does.
  }
}

void perfetto_trace::begin_event() {
  out_ << (events_ == 0 ? "\n" : ",\n");
  ++events_;
}

void perfetto_trace::process_name(int pid, const std::string& name, int sort_index) {
  begin_event();
  out_ << "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" << pid
       << ",\"args\":{\"name\":" << quoted(name) << "}}";
  begin_event();
  out_ << "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":" << pid
       << ",\"args\":{\"sort_index\":" << sort_index << "}}";
}

void perfetto_trace::thread_name(int pid, int tid, const std::string& name, int sort_index) {
  begin_event();
  out_ << "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" << pid << ",\"tid\":" << tid
       << ",\"args\":{\"name\":" << quoted(name) << "}}";
  begin_event();
  out_ << "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":" << pid << ",\"tid\":" << tid
       << ",\"args\":{\"sort_index\":" << sort_index << "}}";
}

void perfetto_trace::complete(int pid, int tid, const std::string& name,
                              const std::string& category, const sc_core::sc_time& start,
                              const sc_core::sc_time& duration,
                              const nlohmann::ordered_json& args) {
  begin_event();
  out_ << "{\"name\":" << quoted(name) << ",\"cat\":" << quoted(category)
       << ",\"ph\":\"X\",\"ts\":" << to_us_text(start) << ",\"dur\":" << to_us_text(duration)
       << ",\"pid\":" << pid << ",\"tid\":" << tid << ",\"args\":" << dumped(args) << "}";
}

void perfetto_trace::instant(int pid, int tid, const std::string& name, const std::string& category,
                             const sc_core::sc_time& at) {
  begin_event();
  out_ << "{\"name\":" << quoted(name) << ",\"cat\":" << quoted(category)
       << ",\"ph\":\"i\",\"s\":\"g\",\"ts\":" << to_us_text(at) << ",\"pid\":" << pid
       << ",\"tid\":" << tid << "}";
}

void perfetto_trace::counter(int pid, const std::string& name, const sc_core::sc_time& at,
                             const std::string& series, double value) {
  begin_event();
  out_ << "{\"name\":" << quoted(name) << ",\"ph\":\"C\",\"ts\":" << to_us_text(at)
       << ",\"pid\":" << pid << ",\"args\":{" << quoted(series) << ":" << dumped(value) << "}}";
}

void perfetto_trace::counter(int pid, const std::string& name, const sc_core::sc_time& at,
                             const std::string& series, uint64_t value) {
  begin_event();
  out_ << "{\"name\":" << quoted(name) << ",\"ph\":\"C\",\"ts\":" << to_us_text(at)
       << ",\"pid\":" << pid << ",\"args\":{" << quoted(series) << ":" << value << "}}";
}

void perfetto_trace::flow_start(int pid, int tid, const std::string& name,
                                const std::string& category, uint64_t id,
                                const sc_core::sc_time& at) {
  begin_event();
  out_ << "{\"name\":" << quoted(name) << ",\"cat\":" << quoted(category)
       << ",\"ph\":\"s\",\"id\":" << id << ",\"ts\":" << to_us_text(at) << ",\"pid\":" << pid
       << ",\"tid\":" << tid << "}";
}

void perfetto_trace::flow_finish(int pid, int tid, const std::string& name,
                                 const std::string& category, uint64_t id,
                                 const sc_core::sc_time& at) {
  begin_event();
  out_ << "{\"name\":" << quoted(name) << ",\"cat\":" << quoted(category)
       << ",\"ph\":\"f\",\"bp\":\"e\",\"id\":" << id << ",\"ts\":" << to_us_text(at)
       << ",\"pid\":" << pid << ",\"tid\":" << tid << "}";
}

void perfetto_trace::close() {
  if (closed_) return;
  closed_ = true;
  out_ << "\n]}\n";
  out_.flush();
  if (!out_) throw std::runtime_error("cannot write trace file '" + path_ + "'");
  out_.close();
}

}  // namespace pccx::trace
