// A GDB remote-serial-protocol server for the AArch64 firmware CPU
// (pccx-vp --gdb PORT): registers, memory, software breakpoints, single
// steps and watchpoints, on localhost. It speaks to the core through
// gdb_target, which the ELF runner implements.
//
// The server runs on the firmware CPU's thread: while the debugger holds the
// CPU, nothing else in the simulation runs, so simulated time stands still.
// The CPU stops at its entry for the debugger to connect; after a detach it
// runs on without stopping.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pccx::vp {

// What the server needs of the CPU.
class gdb_target {
 public:
  virtual ~gdb_target() = default;
  // Register n as GDB numbers them for AArch64: x0..x30, sp (31), pc (32),
  // cpsr (33, 32 bits).
  virtual uint64_t read_register(unsigned n) = 0;
  virtual void write_register(unsigned n, uint64_t value) = 0;
  // Memory as the debugger sees it: RAM and DDR; false where it cannot be
  // read without side effects (device registers) or nothing is mapped.
  virtual bool read_memory(uint64_t address, uint8_t* data, size_t bytes) = 0;
  virtual bool write_memory(uint64_t address, const uint8_t* data, size_t bytes) = 0;
  enum class watch_kind { write, read, access };
  virtual void set_breakpoint(uint64_t address, bool on) = 0;
  virtual bool set_watchpoint(uint64_t address, uint64_t bytes, watch_kind kind, bool on) = 0;
};

class gdb_server {
 public:
  // Listens on 127.0.0.1:port; throws std::runtime_error when it cannot.
  explicit gdb_server(uint16_t port);
  ~gdb_server();
  gdb_server(const gdb_server&) = delete;
  gdb_server& operator=(const gdb_server&) = delete;

  uint16_t port() const { return port_; }
  // Why the CPU stopped, for the debugger.
  struct stop {
    enum class kind { signal, watchpoint, exited } what = kind::signal;
    int signal = 5;  // SIGTRAP; 4 SIGILL, 11 SIGSEGV for faults
    uint64_t watch_address = 0;
    gdb_target::watch_kind watch = gdb_target::watch_kind::write;
    int exit_code = 0;
  };
  enum class resume { run, step, detached, killed };
  // Reports `s` (waiting for the debugger to connect the first time) and
  // serves its requests until it lets the CPU go.
  resume hold(const stop& s, gdb_target& target);
  // The program ended: tells the debugger (when one is attached).
  void exited(int code);
  bool attached() const { return client_ >= 0; }

 private:
  bool accept_client();
  bool read_packet(std::string& packet);
  void send_packet(const std::string& data);
  std::string stop_reply(const stop& s) const;
  std::string handle(const std::string& p, gdb_target& t, const stop& last, resume& go);
  std::string target_xml() const;

  uint16_t port_ = 0;
  int listener_ = -1;
  int client_ = -1;
  bool detached_ = false;
  bool no_ack_ = false;
};

}  // namespace pccx::vp
