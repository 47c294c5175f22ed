// The application CPU that runs driver firmware: native C code executing in
// an SC_THREAD, whose every MMIO access (through the uCA HAL) is a TLM
// b_transport carrying the thread's local time offset. Temporal decoupling
// uses tlm_quantumkeeper; reads of NPU state synchronise (the register bank
// catches up), so a polling loop advances simulated time by the read
// latency per iteration, and uca_hal_wait_idle sleeps on the NPU's
// idle-or-error line instead of polling at all.
//
// Firmware code runs only MMIO accesses in simulated time; its own
// instructions take none.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <systemc>
#include <tlm>

#include "infra/log/logger.h"
#include "infra/trace/analysis_port.h"
#include "infra/trace/trace_hub.h"
#include "platform/vp/bus/address_router.h"
#include "platform/vp/cpu/elf_runner.h"
#include "platform/vp/cpu/firmware_activity.h"
#include "platform/vp/cpu/poll_watch.h"
#include "platform/vp/top/run_control.h"

namespace pccx::vp {

class wall_clock_watchdog;

using firmware_entry = int (*)(void);

class firmware_cpu : public sc_core::sc_module {
 public:
  struct params {
    uint64_t mmio_base = 0xA0000000;  // what HAL offsets are relative to
    size_t stack_bytes = 8u << 20;
    uint32_t host_block_bytes = 4096;  // DDR transaction size of pccx_host_read/write
    // An AArch64 ELF: the A53's clock and cycles per instruction, and its
    // memory map (elf_runner.h).
    double clock_mhz = 1333.0;
    double cycles_per_instruction = 1.0;
    elf_layout elf;
    // MMIO reads in a row that change nothing before a polling loop counts
    // as stuck (poll_watch.h); 0: never.
    uint64_t livelock_reads = 0;
  };

  SC_HAS_PROCESS(firmware_cpu);
  firmware_cpu(sc_core::sc_module_name name, const params& p, run_control& control,
               const address_router& names, trace::trace_hub* traces);
  // A run that ended inside a DDR transfer leaves the transfer's traffic
  // extension (a local of the parked firmware thread) on ddr_tx_; the
  // payload must not delete it.
  ~firmware_cpu() override;

  tlm_utils::simple_initiator_socket<firmware_cpu> bus;
  tlm_utils::simple_initiator_socket<firmware_cpu> ddr;  // the CPU's port of the DDR controller
  sc_core::sc_in<bool> npu_irq;

  // Host code: `entry` runs on this thread. An ELF: the instruction-set
  // simulator runs it (load_elf checks its layout; throws firmware_error).
  void load(firmware_entry entry, const std::string& firmware_name);
  void load_elf(std::shared_ptr<const elf_image> elf);
  const std::string& firmware_name() const { return firmware_name_; }
  // Host-side work done on this thread around an ELF's run, as host code
  // does it around its own entry: `before` places data in DDR
  // (pccx_host_write, which the ELF's view of DDR sees), `after` reads
  // results back (pccx_host_read).
  void set_host_steps(std::function<void()> before, std::function<void()> after) {
    host_before_ = std::move(before);
    host_after_ = std::move(after);
  }
  // A value the platform writes into the ELF's variable `symbol` before it
  // starts, as a boot loader hands a program its arguments.
  void set_gdb_port(uint16_t port) { params_.elf.gdb_port = port; }
  void set_boot_value(const std::string& symbol, uint64_t value) {
    params_.elf.boot_values.emplace_back(symbol, value);
  }
  // "host code" or "AArch64 ELF", and the instructions the ELF retired.
  std::string cpu_kind() const { return elf_ ? "AArch64 ELF" : "host code"; }
  uint64_t instructions() const { return runner_ ? runner_->instructions() : 0; }
  const params& parameters() const { return params_; }

  // The uCA HAL, as called from firmware through vp_hal.cpp.
  void write32(uint32_t offset, uint32_t value);
  uint32_t read32(uint32_t offset);
  int wait_idle(uint32_t timeout_us);
  // pccx_host_mem.h: timed DDR accesses through the CPU's DDR port.
  void host_write(uint64_t ddr_addr, const void* src, uint32_t bytes);
  void host_read(uint64_t ddr_addr, void* dst, uint32_t bytes);

  // Each uca_hal_wait_idle as it returns (from, to: the CPU's local time;
  // result 0, -1 or -2), for trace writers.
  struct wait_idle_record {
    sc_core::sc_time from, to;
    int result;
  };
  trace::analysis_port<wait_idle_record> idle_waits;

  // The MMIO trace shows, on each INSTR_HI write, the word the INSTR_LO /
  // INSTR_HI pair issued and this text of it (the platform's disassembler).
  std::function<std::string(uint64_t word)> describe_instruction;

  // A polling loop that cannot end (poll_watch.h) fails the run: the
  // platform's progress as one growing number, and what the platform is
  // doing, for the message.
  void set_progress_probe(std::function<uint64_t()> probe) {
    poll_watch_.set_progress_probe(std::move(probe));
  }
  std::function<std::string()> describe_platform_state;

  // Each HAL call ends the run once the watchdog's wall-clock limit passed.
  void set_watchdog(const wall_clock_watchdog* watchdog) { watchdog_ = watchdog; }
  // Firmware code or platform code, for the watchdog and crash reports.
  const firmware_activity& activity() const { return activity_; }

  // The CPU whose firmware is running, or nullptr outside a run.
  static firmware_cpu* current();
  // Whether the caller runs on the firmware's own thread (host-code
  // firmware calls the C library there).
  bool on_firmware_thread() const;
  // The firmware tried to end the process (exit, _exit) or let a C++
  // exception out: the run fails with `what` and the thread parks, so the
  // platform still ends the run, writes its outputs and says what happened.
  [[noreturn]] void firmware_escaped(const std::string& what);
  sc_core::sc_time local_time() const;

 private:
  friend class elf_runner;
  void run();
  // Marks a HAL call: the CPU is in the platform until the guard goes.
  struct hal_call {
    explicit hal_call(firmware_cpu& c);
    ~hal_call() { cpu.activity_.leave_platform(); }
    firmware_cpu& cpu;
  };
  void check_wall_clock();
  int sleep_until_idle(uint32_t timeout_us);
  void transact(tlm::tlm_command cmd, uint32_t offset, uint32_t& data);
  [[noreturn]] void livelocked(const poll_watch::livelock& l, const std::string& where);
  void host_transfer(tlm::tlm_command cmd, uint64_t ddr_addr, uint8_t* data, uint32_t bytes);
  // Ends the run as failed and parks the firmware thread for good.
  [[noreturn]] void fault(const std::string& message);
  [[noreturn]] void park();  // the run is over: the thread waits for good
  // An untimed access to DDR through the controller's debug interface
  // (elf_runner's DDR window); false when the controller keeps no bytes.
  bool ddr_debug(tlm::tlm_command cmd, uint64_t address, uint8_t* data, unsigned bytes);
  // A register's value as a debugger reads it (no side effects, no time);
  // false for a register that cannot be read so.
  bool register_debug_read(uint64_t address, uint32_t& value);
  unsigned debug_transport(tlm_utils::simple_initiator_socket<firmware_cpu>& socket,
                           tlm::tlm_command cmd, uint64_t address, uint8_t* data, unsigned bytes);

  params params_;
  run_control& control_;
  const address_router& names_;
  trace::jsonl_trace* mmio_trace_;
  uint32_t instr_lo_ = 0;  // the last INSTR_LO written, for the MMIO trace
  poll_watch poll_watch_;
  log::logger log_;
  tlm_utils::tlm_quantumkeeper qk_;
  firmware_entry entry_ = nullptr;
  std::string firmware_name_;
  sc_core::sc_process_handle process_;  // the firmware's thread, once it runs
  std::thread::id os_thread_;           // the OS thread the kernel runs it on
  std::shared_ptr<const elf_image> elf_;
  std::unique_ptr<elf_runner> runner_;
  std::function<void()> host_before_, host_after_;
  sc_core::sc_event never_;
  firmware_activity activity_;
  const wall_clock_watchdog* watchdog_ = nullptr;
  // The payloads of MMIO and DDR transactions. They are members, not locals
  // of transact() / host_transfer(): the firmware thread's frames are never
  // unwound when a run ends inside a transaction (a fault, the time limit),
  // so a local payload's extension array would never be freed.
  tlm::tlm_generic_payload mmio_tx_;
  tlm::tlm_generic_payload ddr_tx_;
  tlm::tlm_generic_payload debug_tx_;  // debug reads and writes (a debugger, the ELF's DDR view)
};

}  // namespace pccx::vp
