// An AArch64 core (Cortex-A53 model) on the Unicorn engine, as the firmware
// CPU sees it: RAM regions for the program, device windows whose loads and
// stores the platform serves, the instruction count, and the reason it
// stopped. SystemC-free: firmware_cpu drives it from its thread and turns
// the instruction count into time.
//
// Instructions are counted one by one as they execute (a breakpoint's is
// not, until it runs) and handed on at each block start and before each
// device access, so an access sees exactly the instructions before it.
// Unicorn runs with the MMU off, as the board's bare-metal firmware does.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

struct uc_struct;

namespace pccx::vp {

class aarch64_core {
 public:
  // Serves the loads and stores of a device window (address: absolute).
  class device {
   public:
    virtual ~device() = default;
    virtual uint64_t read(uint64_t address, unsigned size) = 0;
    virtual void write(uint64_t address, unsigned size, uint64_t value) = 0;
    // Sees each load and store as the instruction makes it, before the
    // engine splits it into the device's accesses; a device that refuses it
    // calls fault() and returns false.
    virtual bool accepts(uint64_t, unsigned, bool) { return true; }
  };

  // Why run() returned.
  enum class stop_reason { stopped, address_zero, unmapped_fetch, unmapped_read, unmapped_write,
                           invalid_instruction, exception, device_fault, engine_error,
                           breakpoint, step, watchpoint };  // the last three: a debugger's
  struct stop_info {
    stop_reason reason = stop_reason::stopped;
    uint64_t pc = 0;
    uint64_t address = 0;  // the faulting data address, for unmapped accesses
    unsigned size = 0;
    std::string engine_message;  // Unicorn's words (engine error), or the device's
    int watch_kind = 0;          // watchpoint: 0 write, 1 read, 2 access
  };

  aarch64_core();  // throws std::runtime_error when the engine cannot start
  ~aarch64_core();
  aarch64_core(const aarch64_core&) = delete;
  aarch64_core& operator=(const aarch64_core&) = delete;

  static constexpr uint64_t kPageBytes = 4096;
  // RAM at [address, address + bytes), page aligned, zero filled.
  void map_ram(uint64_t address, uint64_t bytes);
  void map_device(uint64_t address, uint64_t bytes, device& d);
  void write_memory(uint64_t address, const void* data, size_t bytes);
  bool read_memory(uint64_t address, void* data, size_t bytes) const;

  // Called with the instructions retired since its last call: at the start
  // of every basic block, and from charge().
  std::function<void(uint64_t instructions)> on_block;
  // Hands the instructions retired so far to on_block (a device access
  // does, so that its time includes the instructions before it).
  void charge();
  // Called after a store to [address, address + bytes) with the value stored.
  void watch_stores(uint64_t address, uint64_t bytes,
                    std::function<void(uint64_t address, uint64_t value)> on_store);

  // Runs from `pc` until stop(), a fault, or a jump to address 0; with a
  // debugger, also at a breakpoint (before its instruction), after one
  // instruction (`step`), or after an access that hits a watchpoint.
  stop_info run(uint64_t pc, bool step = false);
  void set_breakpoint(uint64_t address, bool on);
  // kind 0 write, 1 read, 2 access; false when the engine refuses.
  bool set_watchpoint(uint64_t address, uint64_t bytes, int kind, bool on);
  // GDB's AArch64 registers: x0..x30, sp (31), pc (32), cpsr (33).
  uint64_t reg(unsigned n) const;
  void set_reg(unsigned n, uint64_t value);
  void stop();  // from a callback: run() returns once the current instruction is done
  // From a device callback: the access faults (run() returns `info`).
  void fault(const stop_info& info);
  // A fault is pending: the rest of the current instruction does nothing.
  bool faulting() const { return faulted_; }

  uint64_t pc() const;  // the PC register (between runs)
  // The instruction being executed, from a callback during run().
  uint64_t instruction_pc() const { return pc_; }
  uint64_t x(unsigned n) const;  // X0..X30
  uint64_t sp() const;
  void set_sp(uint64_t value);
  uint64_t instructions() const { return instructions_; }

 private:
  friend struct aarch64_hooks;  // the engine's callbacks (aarch64_core.cpp)

  struct region {
    aarch64_core* core;
    uint64_t base;
    device* target;
  };
  struct watch {
    aarch64_core* core;
    std::function<void(uint64_t, uint64_t)> on_store;
  };

  uc_struct* uc_ = nullptr;
  std::vector<std::unique_ptr<region>> regions_;
  std::vector<std::unique_ptr<watch>> watches_;
  uint64_t instructions_ = 0;  // retired (counted per instruction)
  uint64_t charged_ = 0;       // of which handed to on_block
  uint64_t pc_ = 0;  // of the instruction being executed
  // Debugging: breakpoints, a step in progress, the first instruction of a
  // run (not stopped at again), watchpoints and their engine hooks.
  std::vector<uint64_t> breakpoints_;
  bool step_ = false, first_ = false;
  bool stopping_ = false;  // a stop was requested in this run
  struct watchpoint {
    uint64_t address, bytes;
    int kind;
    size_t hook;
    std::unique_ptr<watch> callback;
  };
  std::vector<watchpoint> watchpoints_;
  bool faulted_ = false;
  stop_info fault_;
  bool running_ = false;
};

}  // namespace pccx::vp
