#include "traces/vcd_signals.h"

#include <sysc/tracing/sc_tracing_ids.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace pccx::trace {

namespace {
const std::string kSuffix = ".vcd";
}

vcd_signals::vcd_signals(const std::string& path) : path_(path) {
  if (path.size() <= kSuffix.size() ||
      path.compare(path.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0)
    throw std::runtime_error("waveform file '" + path + "' must end in .vcd");
  {
    // SystemC reports a file it cannot open only once the simulation runs.
    std::ofstream probe(path, std::ios::trunc);
    if (!probe)
      throw std::runtime_error("cannot open waveform file '" + path +
                               "' for writing: " + std::strerror(errno));
  }
  // SystemC appends the suffix itself.
  file_ = sc_core::sc_create_vcd_trace_file(path.substr(0, path.size() - kSuffix.size()).c_str());
  // Whole ticks: events at any resolution keep their exact time. Setting
  // the unit is routine here, not news worth a line on the console.
  sc_core::sc_report_handler::set_actions(sc_core::SC_ID_TRACING_TIMESCALE_UNIT_, sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
  file_->set_time_unit(std::round(sc_core::sc_get_time_resolution().to_seconds() * 1e15),
                       sc_core::SC_FS);
}

vcd_signals::~vcd_signals() {
  try {
    close();
  } catch (const std::runtime_error&) {
    // A destructor cannot report it; close() called explicitly does.
  }
}

void vcd_signals::add(const bool& variable, const std::string& name) {
  sc_core::sc_trace(file_, variable, name);
}

void vcd_signals::add(const uint64_t& variable, const std::string& name, int bits) {
  sc_core::sc_trace(file_, variable, name, bits);
}

void vcd_signals::close() {
  if (!file_) return;
  sc_core::sc_close_vcd_trace_file(file_);
  file_ = nullptr;
  // The header's "$date <wall clock> $end": same length, fixed text.
  std::fstream f(path_, std::ios::in | std::ios::out | std::ios::binary);
  if (!f) throw std::runtime_error("cannot reopen waveform file '" + path_ + "'");
  std::string head(4096, '\0');
  f.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(f.gcount()));
  f.clear();
  const size_t date = head.find("$date");
  if (date == std::string::npos) return;
  const size_t from = date + 5;
  const size_t end = head.find("$end", from);
  if (end == std::string::npos) return;
  std::string blank(end - from, ' ');
  blank.front() = '\n';
  blank.back() = '\n';
  f.seekp(static_cast<std::streamoff>(from));
  f.write(blank.data(), static_cast<std::streamsize>(blank.size()));
  if (!f) throw std::runtime_error("cannot rewrite waveform file '" + path_ + "'");
}

}  // namespace pccx::trace
