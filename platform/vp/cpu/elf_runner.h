// The firmware CPU running the board's own binary: a static AArch64 ELF on
// the instruction-set simulator (aarch64_core), in the firmware CPU's
// thread. Its memory map is the board's with the MMU off:
//
//   the ELF's segments, then cpu.elf_stack_kib of stack   RAM
//   [npu_base, npu_base + 2 MiB): NPU registers, DMA       device window: each load or
//     pages, sim-control                                    store is a TLM transaction
//                                                           with the CPU's local time
//   the rest of DDR                                         device window: the DDR
//                                                           controller's bytes (functional
//                                                           mode), else the CPU's own
//
// Time: every instruction costs cpu.cycles_per_instruction clocks of
// cpu.clock_mhz, plus the bus time of each device access; the CPU
// synchronises at the global quantum like the host-code CPU. The run ends
// when the program stores its exit code (kv260_exit_code, what
// kv260_start.c does when pccx_firmware_main returns), writes the
// sim-control EXIT register, or faults.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/memory/ddr/backing_store.h"
#include "platform/vp/cpu/aarch64_core.h"
#include "platform/vp/cpu/gdb_server.h"
#include "platform/vp/firmware/elf_image.h"

namespace pccx::vp {

class firmware_cpu;

struct elf_layout {
  uint64_t npu_base = 0xA0000000;
  uint64_t device_bytes = 2u << 20;  // NPU window, DMA pages and sim-control
  uint64_t ddr_base = 0;
  uint64_t ddr_size = 1ull << 32;
  uint64_t stack_bytes = 64u << 10;
  uint16_t gdb_port = 0;  // nonzero: a GDB server holds the CPU at its entry
  // Variables written before the program starts (symbol, value; at most 8
  // bytes, as wide as the symbol).
  std::vector<std::pair<std::string, uint64_t>> boot_values;
  // The RAM the image and its stack take, page aligned.
  uint64_t ram_begin(const elf_image& elf) const;
  uint64_t ram_end(const elf_image& elf) const;
  // Throws firmware_error when a segment or the stack lies outside DDR or
  // on the device window.
  void check(const elf_image& elf) const;
};

class elf_runner : public gdb_target {
 public:
  elf_runner(firmware_cpu& cpu, std::shared_ptr<const elf_image> elf, const elf_layout& layout);
  ~elf_runner() override;
  // Runs the program to its end; the run's outcome goes to the CPU's
  // run_control (returns only when the program stored its exit code).
  int run();
  uint64_t instructions() const { return core_.instructions(); }
  // Bytes the host side wrote to DDR: the program sees them (timing mode
  // keeps them in the CPU's own view; the controller keeps none).
  void host_wrote(uint64_t address, const uint8_t* data, uint64_t bytes);

  // gdb_target: the debugger's view of the CPU.
  uint64_t read_register(unsigned n) override { return core_.reg(n); }
  void write_register(unsigned n, uint64_t value) override { core_.set_reg(n, value); }
  bool read_memory(uint64_t address, uint8_t* data, size_t bytes) override;
  bool write_memory(uint64_t address, const uint8_t* data, size_t bytes) override;
  void set_breakpoint(uint64_t address, bool on) override { core_.set_breakpoint(address, on); }
  bool set_watchpoint(uint64_t address, uint64_t bytes, watch_kind kind, bool on) override {
    return core_.set_watchpoint(address, bytes, static_cast<int>(kind), on);
  }

 private:
  class npu_window;
  class ddr_window;
  [[noreturn]] void report(const aarch64_core::stop_info& stop);
  // Hands the CPU to the debugger after `stop`; false: run without stops.
  bool debugger_holds(const aarch64_core::stop_info& stop, bool& step);
  enum class area { ram, device, ddr, none };
  area area_of(uint64_t address, size_t bytes) const;
  std::string where(uint64_t pc) const;

  firmware_cpu& cpu_;
  std::shared_ptr<const elf_image> elf_;
  elf_layout layout_;
  aarch64_core core_;
  std::unique_ptr<npu_window> npu_;
  std::unique_ptr<ddr_window> ddr_;
  std::unique_ptr<gdb_server> gdb_;
  uint64_t retired_ = 0, charged_ps_ = 0;  // instructions, and their time handed to the CPU
  bool exited_ = false;
  int exit_code_ = 0;
};

}  // namespace pccx::vp
