// A VCD waveform file written by SystemC's own tracing
// (sc_create_vcd_trace_file, sc_trace): model variables are registered
// before the simulation starts and SystemC writes a value change at the end
// of every time step in which one of them changed. GTKWave opens it.
#pragma once

#include <cstdint>
#include <string>
#include <systemc>

namespace pccx::trace {

class vcd_signals {
 public:
  // `path` names the file, ending in ".vcd". Create before sc_start; throws
  // std::runtime_error when the file cannot be written.
  explicit vcd_signals(const std::string& path);
  ~vcd_signals();
  vcd_signals(const vcd_signals&) = delete;
  vcd_signals& operator=(const vcd_signals&) = delete;

  // Signal names may contain '.', which SystemC turns into VCD scopes. The
  // variables must outlive the file.
  void add(const bool& variable, const std::string& name);
  void add(const uint64_t& variable, const std::string& name, int bits);

  // Closes the file (after the simulation) and blanks the wall-clock date
  // SystemC writes into the header, so the same run gives the same bytes.
  // Throws std::runtime_error when the file cannot be rewritten.
  void close();

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  sc_core::sc_trace_file* file_ = nullptr;
};

}  // namespace pccx::trace
