// The uCA HAL and the host-memory calls (pccx_host_mem.h) of the virtual
// platform: the only firmware symbols the platform supplies. Everything above it (uCA API, drivers,
// programs) comes from the firmware being run. pccx-vp exports exactly these symbols to a loaded
// firmware object (see hal_exports.list), and exit, _exit, abort and raise, which end a run, not
// the process.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "pccx_host_mem.h"
#include "platform/vp/cpu/fatal_signal_report.h"
#include "platform/vp/cpu/firmware_cpu.h"
#include "uCA_v1_hal.h"

namespace {
pccx::vp::firmware_cpu& cpu(const char* function) {
  auto* c = pccx::vp::firmware_cpu::current();
  if (!c) {
    // Firmware code called outside a platform run: a harness bug, not firmware behaviour.
    std::fprintf(stderr, "pccx-vp: %s called while no firmware is running\n", function);
    std::abort();
  }
  return *c;
}
// `name` (exit or _exit) called with `status`: the run's end when the
// firmware called it, else the C library's function of that name.
[[noreturn]] void end_run_or_process(const char* name, int status) {
  if (auto* c = pccx::vp::firmware_cpu::current(); c && c->on_firmware_thread())
    c->firmware_escaped(std::string("called ") + name + "(" + std::to_string(status) + ")");
  using exit_fn = void (*)(int);
  reinterpret_cast<exit_fn>(dlsym(RTLD_NEXT, name))(status);
  __builtin_unreachable();
}

}  // namespace

extern "C" {

int uca_hal_init(void) {
  return uca_hal_read_status() == 0xFFFFFFFFu ? -1 : 0;
}

void uca_hal_deinit(void) {}

void uca_hal_write32(uint32_t offset, uint32_t val) {
  cpu(__func__).write32(offset, val);
}

uint32_t uca_hal_read32(uint32_t offset) {
  return cpu(__func__).read32(offset);
}

void uca_hal_issue_instr(uint64_t instr) {
  auto& c = cpu(__func__);
  c.write32(UCA_REG_INSTR_LO, static_cast<uint32_t>(instr));
  c.write32(UCA_REG_INSTR_HI, static_cast<uint32_t>(instr >> 32));
}

uint32_t uca_hal_read_status(void) {
  return cpu(__func__).read32(UCA_REG_STATUS);
}

int uca_hal_wait_idle(uint32_t timeout_us) {
  return cpu(__func__).wait_idle(timeout_us);
}

void pccx_host_write(uint64_t ddr_addr, const void* src, uint32_t bytes) {
  cpu(__func__).host_write(ddr_addr, src, bytes);
}

void pccx_host_read(uint64_t ddr_addr, void* dst, uint32_t bytes) {
  cpu(__func__).host_read(ddr_addr, dst, bytes);
}

// A firmware that calls exit() or _exit() would end pccx-vp on the spot:
// no outputs, no end check, exit code 0. On the firmware's thread these
// end the run instead; anywhere else they are the C library's.
void exit(int status) noexcept {
  end_run_or_process("exit", status);
}

void _exit(int status) noexcept {
  end_run_or_process("_exit", status);
}

// abort() (an assert that failed, a fatal error path) and raise() of a
// signal that would end the process: on the firmware's thread they end the
// run with what the firmware did, so the outputs and the end check follow.
void abort(void) noexcept {
  if (auto* c = pccx::vp::firmware_cpu::current(); c && c->on_firmware_thread())
    c->firmware_escaped("called abort() (an assert that failed?)");
  using abort_fn = void (*)(void);
  reinterpret_cast<abort_fn>(dlsym(RTLD_NEXT, "abort"))();
  __builtin_unreachable();
}

int raise(int sig) noexcept {
  if (auto* c = pccx::vp::firmware_cpu::current();
      c && c->on_firmware_thread() && pccx::vp::fatal_signal_report::ends_process(sig))
    c->firmware_escaped("raised signal " + std::to_string(sig) + " (" +
                        pccx::vp::fatal_signal_report::signal_name(sig) + ")");
  using raise_fn = int (*)(int);
  return reinterpret_cast<raise_fn>(dlsym(RTLD_NEXT, "raise"))(sig);
}

}  // extern "C"
