#include "platform/vp/cpu/aarch64_core.h"

#include <unicorn/unicorn.h>

#include <algorithm>
#include <stdexcept>

namespace pccx::vp {

namespace {

void check(uc_err e, const char* what) {
  if (e != UC_ERR_OK)
    throw std::runtime_error(std::string("AArch64 core: ") + what + ": " + uc_strerror(e));
}

}  // namespace

// The engine calls these with the user data given when they were added.
struct aarch64_hooks {
  static void block(uc_engine*, uint64_t, uint32_t, void* self) {
    static_cast<aarch64_core*>(self)->charge();
  }

  static void code(uc_engine* uc, uint64_t address, uint32_t, void* self) {
    auto* core = static_cast<aarch64_core*>(self);
    // After a stop request the engine may still announce the next
    // instruction; it does not run.
    if (core->stopping_) return;
    core->pc_ = address;
    if (core->first_) {  // the instruction a run starts at executes
      core->first_ = false;
      ++core->instructions_;
      return;
    }
    if (core->step_ || (!core->breakpoints_.empty() &&
                        std::find(core->breakpoints_.begin(), core->breakpoints_.end(),
                                  address) != core->breakpoints_.end())) {
      core->faulted_ = true;
      core->fault_ = {};
      core->fault_.reason =
          core->step_ ? aarch64_core::stop_reason::step : aarch64_core::stop_reason::breakpoint;
      core->fault_.pc = address;
      core->stopping_ = true;
      uc_emu_stop(uc);
      return;  // not executed
    }
    ++core->instructions_;
  }

  static bool unmapped(uc_engine*, uc_mem_type type, uint64_t address, int size, int64_t,
                       void* self) {
    auto* core = static_cast<aarch64_core*>(self);
    aarch64_core::stop_info info;
    info.reason = type == UC_MEM_FETCH_UNMAPPED ? aarch64_core::stop_reason::unmapped_fetch
                  : type == UC_MEM_WRITE_UNMAPPED ? aarch64_core::stop_reason::unmapped_write
                                                  : aarch64_core::stop_reason::unmapped_read;
    info.pc = type == UC_MEM_FETCH_UNMAPPED ? address : core->pc_;
    info.address = address;
    info.size = static_cast<unsigned>(size);
    core->faulted_ = true;
    core->fault_ = info;
    return false;  // ends the run
  }

  static bool invalid(uc_engine*, void* self) {
    auto* core = static_cast<aarch64_core*>(self);
    core->faulted_ = true;
    core->fault_ = {};
    core->fault_.reason = aarch64_core::stop_reason::invalid_instruction;
    core->fault_.pc = core->pc_;
    return false;
  }

  // SVC, HVC, SMC, BRK and the like: bare-metal firmware has no one to take
  // them, so they end the run as an exception.
  static void interrupt(uc_engine* uc, uint32_t number, void* self) {
    auto* core = static_cast<aarch64_core*>(self);
    core->faulted_ = true;
    core->fault_ = {};
    // The engine's exception numbers: 1 undefined instruction, 2 SVC,
    // 7 BRK, 11 HVC, 13 SMC (others: aborts and interrupts).
    core->fault_.reason = number == 1 ? aarch64_core::stop_reason::invalid_instruction
                                      : aarch64_core::stop_reason::exception;
    core->fault_.size = number;
    switch (number) {
      case 2: core->fault_.engine_message = "SVC"; break;
      case 7: core->fault_.engine_message = "BRK"; break;
      case 11: core->fault_.engine_message = "HVC"; break;
      case 13: core->fault_.engine_message = "SMC"; break;
      default: core->fault_.engine_message = "exception " + std::to_string(number); break;
    }
    core->fault_.pc = core->pc_;
    core->stopping_ = true;
    uc_emu_stop(uc);
  }

  static uint64_t device_read(uc_engine*, uint64_t offset, unsigned size, void* r) {
    auto* reg = static_cast<aarch64_core::region*>(r);
    return reg->target->read(reg->base + offset, size);
  }

  static void device_write(uc_engine*, uint64_t offset, unsigned size, uint64_t value, void* r) {
    auto* reg = static_cast<aarch64_core::region*>(r);
    reg->target->write(reg->base + offset, size, value);
  }

  static void access(uc_engine*, uc_mem_type type, uint64_t address, int size, int64_t,
                     void* r) {
    auto* reg = static_cast<aarch64_core::region*>(r);
    reg->target->accepts(address, static_cast<unsigned>(size), type == UC_MEM_WRITE);
  }

  static void store(uc_engine*, uc_mem_type, uint64_t address, int size, int64_t value, void* w) {
    auto* watch = static_cast<aarch64_core::watch*>(w);
    uint64_t v = static_cast<uint64_t>(value);
    if (size < 8) v &= (uint64_t{1} << (8 * size)) - 1;
    watch->on_store(address, v);
  }
};

aarch64_core::aarch64_core() {
  check(uc_open(UC_ARCH_ARM64, UC_MODE_ARM, &uc_), "cannot open the Unicorn engine");
  check(uc_ctl_set_cpu_model(uc_, UC_CPU_ARM64_A53), "no Cortex-A53 model");
  uc_hook h;
  check(uc_hook_add(uc_, &h, UC_HOOK_BLOCK, reinterpret_cast<void*>(&aarch64_hooks::block), this,
                    1, 0),
        "block hook");
  check(uc_hook_add(uc_, &h, UC_HOOK_CODE, reinterpret_cast<void*>(&aarch64_hooks::code), this,
                    1, 0),
        "code hook");
  check(uc_hook_add(uc_, &h, UC_HOOK_MEM_UNMAPPED,
                    reinterpret_cast<void*>(&aarch64_hooks::unmapped), this, 1, 0),
        "memory hook");
  check(uc_hook_add(uc_, &h, UC_HOOK_INSN_INVALID,
                    reinterpret_cast<void*>(&aarch64_hooks::invalid), this, 1, 0),
        "instruction hook");
  check(uc_hook_add(uc_, &h, UC_HOOK_INTR, reinterpret_cast<void*>(&aarch64_hooks::interrupt),
                    this, 1, 0),
        "exception hook");
}

aarch64_core::~aarch64_core() {
  // A run that ended inside a device access (the sim-control EXIT parks the
  // writer, a fault parks the thread) leaves the engine mid-instruction on a
  // stack that is never resumed; closing it then is not safe, so it stays.
  if (uc_ && !running_) uc_close(uc_);
}

void aarch64_core::map_ram(uint64_t address, uint64_t bytes) {
  check(uc_mem_map(uc_, address, bytes, UC_PROT_ALL), "cannot map RAM");
}

void aarch64_core::map_device(uint64_t address, uint64_t bytes, device& d) {
  regions_.push_back(std::make_unique<region>(region{this, address, &d}));
  region* r = regions_.back().get();
  check(uc_mmio_map(uc_, address, bytes, &aarch64_hooks::device_read, r,
                    &aarch64_hooks::device_write, r),
        "cannot map a device window");
  uc_hook h;
  check(uc_hook_add(uc_, &h, UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE,
                    reinterpret_cast<void*>(&aarch64_hooks::access), r, address,
                    address + bytes - 1),
        "device access hook");
}

void aarch64_core::write_memory(uint64_t address, const void* data, size_t bytes) {
  check(uc_mem_write(uc_, address, data, bytes), "cannot write memory");
}

bool aarch64_core::read_memory(uint64_t address, void* data, size_t bytes) const {
  return uc_mem_read(uc_, address, data, bytes) == UC_ERR_OK;
}

void aarch64_core::watch_stores(uint64_t address, uint64_t bytes,
                                std::function<void(uint64_t, uint64_t)> on_store) {
  watches_.push_back(std::make_unique<watch>(watch{this, std::move(on_store)}));
  uc_hook h;
  check(uc_hook_add(uc_, &h, UC_HOOK_MEM_WRITE, reinterpret_cast<void*>(&aarch64_hooks::store),
                    watches_.back().get(), address, address + bytes - 1),
        "store watch");
}

aarch64_core::stop_info aarch64_core::run(uint64_t pc, bool step) {
  faulted_ = false;
  running_ = true;
  step_ = step;
  first_ = true;
  stopping_ = false;
  // `until` 0: a jump to address 0 (a null function pointer, a return
  // through a cleared link register) stops the core there.
  const uc_err e = uc_emu_start(uc_, pc, 0, 0, 0);
  running_ = false;
  if (faulted_) return fault_;
  stop_info info;
  info.pc = this->pc();
  if (e != UC_ERR_OK) {
    info.reason = stop_reason::engine_error;
    info.engine_message = uc_strerror(e);
    return info;
  }
  info.reason = info.pc == 0 ? stop_reason::address_zero : stop_reason::stopped;
  return info;
}

void aarch64_core::set_breakpoint(uint64_t address, bool on) {
  const auto it = std::find(breakpoints_.begin(), breakpoints_.end(), address);
  if (on && it == breakpoints_.end()) breakpoints_.push_back(address);
  if (!on && it != breakpoints_.end()) breakpoints_.erase(it);
}

bool aarch64_core::set_watchpoint(uint64_t address, uint64_t bytes, int kind, bool on) {
  if (bytes == 0) return false;
  for (auto it = watchpoints_.begin(); it != watchpoints_.end(); ++it)
    if (it->address == address && it->bytes == bytes && it->kind == kind) {
      if (on) return true;
      uc_hook_del(uc_, it->hook);
      watchpoints_.erase(it);
      return true;
    }
  if (!on) return true;
  watchpoint w{address, bytes, kind, 0, nullptr};
  w.callback = std::make_unique<watch>(watch{this, [this, kind](uint64_t at, uint64_t) {
                                               faulted_ = true;
                                               fault_ = {};
                                               fault_.reason = stop_reason::watchpoint;
                                               fault_.pc = pc_;
                                               fault_.address = at;
                                               fault_.watch_kind = kind;
                                               stopping_ = true;
                                               uc_emu_stop(uc_);
                                             }});
  const int types = kind == 0 ? UC_HOOK_MEM_WRITE
                    : kind == 1 ? UC_HOOK_MEM_READ
                                : UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE;
  uc_hook h = 0;
  if (uc_hook_add(uc_, &h, types, reinterpret_cast<void*>(&aarch64_hooks::store),
                  w.callback.get(), address, address + bytes - 1) != UC_ERR_OK)
    return false;
  w.hook = h;
  watchpoints_.push_back(std::move(w));
  return true;
}

uint64_t aarch64_core::reg(unsigned n) const {
  uint64_t v = 0;
  if (n <= 30) return x(n);
  const int id = n == 31 ? UC_ARM64_REG_SP : n == 32 ? UC_ARM64_REG_PC : UC_ARM64_REG_NZCV;
  uc_reg_read(uc_, id, &v);
  return v;
}

void aarch64_core::set_reg(unsigned n, uint64_t value) {
  const int id = n <= 28   ? UC_ARM64_REG_X0 + static_cast<int>(n)
                 : n == 29 ? UC_ARM64_REG_X29
                 : n == 30 ? UC_ARM64_REG_X30
                 : n == 31 ? UC_ARM64_REG_SP
                 : n == 32 ? UC_ARM64_REG_PC
                           : UC_ARM64_REG_NZCV;
  uc_reg_write(uc_, id, &value);
}

void aarch64_core::charge() {
  const uint64_t n = instructions_ - charged_;
  charged_ = instructions_;
  if (n && on_block) on_block(n);
}

void aarch64_core::stop() {
  stopping_ = true;
  uc_emu_stop(uc_);
}

void aarch64_core::fault(const stop_info& info) {
  faulted_ = true;
  fault_ = info;
  stopping_ = true;
  uc_emu_stop(uc_);
}

uint64_t aarch64_core::pc() const {
  uint64_t v = 0;
  uc_reg_read(uc_, UC_ARM64_REG_PC, &v);
  return v;
}

uint64_t aarch64_core::x(unsigned n) const {
  uint64_t v = 0;
  const int reg = n <= 28 ? UC_ARM64_REG_X0 + static_cast<int>(n)
                  : n == 29 ? UC_ARM64_REG_X29
                            : UC_ARM64_REG_X30;
  uc_reg_read(uc_, reg, &v);
  return v;
}

uint64_t aarch64_core::sp() const {
  uint64_t v = 0;
  uc_reg_read(uc_, UC_ARM64_REG_SP, &v);
  return v;
}

void aarch64_core::set_sp(uint64_t value) {
  uc_reg_write(uc_, UC_ARM64_REG_SP, &value);
}

}  // namespace pccx::vp
