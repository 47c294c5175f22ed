// An AArch64 core (Cortex-A53 model) on the Unicorn engine, as the firmware
// CPU sees it: RAM regions for the program, device windows whose loads and
// stores the platform serves, the instruction count, and the reason it
// stopped. SystemC-free: firmware_cpu drives it from its thread and turns
// the instruction count into time.
//
// A basic block's instructions are counted when it starts (AArch64
// instructions are 4 bytes), so a device access inside a block sees the
// block's instructions as retired. Unicorn runs with the MMU off, as the
// board's bare-metal firmware does.
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
                           invalid_instruction, exception, device_fault, engine_error };
  struct stop_info {
    stop_reason reason = stop_reason::stopped;
    uint64_t pc = 0;
    uint64_t address = 0;  // the faulting data address, for unmapped accesses
    unsigned size = 0;
    std::string engine_message;  // Unicorn's words (engine error), or the device's
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

  // Called at the start of every basic block with its instruction count.
  std::function<void(uint64_t instructions)> on_block;
  // Called after a store to [address, address + bytes) with the value stored.
  void watch_stores(uint64_t address, uint64_t bytes,
                    std::function<void(uint64_t address, uint64_t value)> on_store);

  // Runs from `pc` until stop(), a fault, or a jump to address 0.
  stop_info run(uint64_t pc);
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
  uint64_t instructions_ = 0;
  uint64_t pc_ = 0;  // of the instruction being executed
  bool faulted_ = false;
  stop_info fault_;
  bool running_ = false;
};

}  // namespace pccx::vp
