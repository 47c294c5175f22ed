#include "platform/vp/cpu/elf_runner.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "infra/text/hex.h"
#include "platform/vp/cpu/firmware_cpu.h"
#include "platform/vp/firmware/firmware_loader.h"

namespace pccx::vp {

namespace {

constexpr uint64_t kPage = aarch64_core::kPageBytes;
uint64_t page_down(uint64_t a) { return a / kPage * kPage; }
uint64_t page_up(uint64_t a) { return (a + kPage - 1) / kPage * kPage; }

std::string hex(uint64_t v) { return text::hex(v, 8); }

}  // namespace

uint64_t elf_layout::ram_begin(const elf_image& elf) const {
  return page_down(elf.image_begin());
}

uint64_t elf_layout::ram_end(const elf_image& elf) const {
  return page_up(elf.image_end()) + page_up(stack_bytes);
}

void elf_layout::check(const elf_image& elf) const {
  const auto fail = [&](const std::string& why) {
    return firmware_error("--firmware " + elf.path() + ": " + why);
  };
  if (ddr_base % kPage || ddr_size % kPage)
    throw fail("memory_map.ddr_base and ddr_size must be multiples of 4 KiB to run an ELF");
  const uint64_t ddr_end = ddr_base + ddr_size;
  const uint64_t dev_end = npu_base + device_bytes;
  for (size_t i = 0; i < elf.segments().size(); ++i) {
    const elf_segment& s = elf.segments()[i];
    const std::string which = "segment " + std::to_string(i) + " [" + hex(s.address) + ", " +
                              hex(s.address + s.memory_bytes) + ")";
    if (s.address < ddr_base || s.address + s.memory_bytes > ddr_end)
      throw fail(which + " lies outside DDR [" + hex(ddr_base) + ", " + hex(ddr_end) +
                 ") (memory_map.ddr_base, ddr_size)");
    if (s.address < dev_end && npu_base < s.address + s.memory_bytes)
      throw fail(which + " overlaps the NPU and sim-control window [" + hex(npu_base) + ", " +
                 hex(dev_end) + ")");
  }
  const uint64_t stack_begin = page_up(elf.image_end()), stack_end = ram_end(elf);
  if (stack_end > ddr_end || stack_end < stack_begin)
    throw fail("the stack after the image [" + hex(stack_begin) + ", " + hex(stack_end) +
               ") (cpu.elf_stack_kib) lies outside DDR");
  if (stack_begin < dev_end && npu_base < stack_end)
    throw fail("the stack after the image [" + hex(stack_begin) + ", " + hex(stack_end) +
               ") (cpu.elf_stack_kib) overlaps the NPU and sim-control window");
}

// NPU registers, DMA pages and sim-control: Device memory, 32-bit accesses.
class elf_runner::npu_window : public aarch64_core::device {
 public:
  explicit npu_window(elf_runner& r) : r_(r) {}
  bool accepts(uint64_t address, unsigned size, bool write) override {
    return aligned_word(address, size, write);
  }
  uint64_t read(uint64_t address, unsigned size) override {
    if (r_.core_.faulting() || !aligned_word(address, size, false)) return 0;
    r_.core_.charge();
    const uint32_t v = r_.cpu_.read32(static_cast<uint32_t>(address - r_.layout_.npu_base));
    after_access();
    return v;
  }
  // A register as the debugger sees it: its debug read, or for a
  // write-only one the last value the program wrote.
  uint32_t peek(uint64_t address) {
    uint32_t v = 0;
    if (r_.cpu_.register_debug_read(address, v)) return v;
    const auto it = written_.find(address);
    return it == written_.end() ? 0 : it->second;
  }
  void write(uint64_t address, unsigned size, uint64_t value) override {
    if (r_.core_.faulting() || !aligned_word(address, size, true)) return;
    written_[address] = static_cast<uint32_t>(value);
    r_.core_.charge();
    r_.cpu_.write32(static_cast<uint32_t>(address - r_.layout_.npu_base),
                    static_cast<uint32_t>(value));
    after_access();
  }

 private:
  bool aligned_word(uint64_t address, unsigned size, bool write) {
    if (size == 4 && address % 4 == 0) return true;
    aarch64_core::stop_info f;
    f.reason = aarch64_core::stop_reason::device_fault;
    f.pc = r_.core_.instruction_pc();
    f.address = address;
    f.size = size;
    f.engine_message = std::string(address % size ? "unaligned " : "") + std::to_string(size) +
                       "-byte " + (write ? "store to " : "load from ") + hex(address) +
                       ": the NPU and sim-control registers take aligned 32-bit accesses only "
                       "(Device memory, alignment fault on the board)";
    r_.core_.fault(f);
    return false;
  }
  // A run that ended (sim-control EXIT parks its writer; a failure elsewhere
  // stops the kernel) leaves the core with nothing more to do.
  void after_access() {
    if (r_.cpu_.control_.current() != run_control::state::running) r_.core_.stop();
  }
  elf_runner& r_;
  std::map<uint64_t, uint32_t> written_;
};

// DDR as the CPU sees it with its caches: the controller's bytes, untimed,
// or in timing mode (the controller keeps none) the CPU's own copy.
class elf_runner::ddr_window : public aarch64_core::device {
 public:
  explicit ddr_window(elf_runner& r) : r_(r), own_(r.layout_.ddr_size) {
    uint8_t probe = 0;
    shared_ = r_.cpu_.ddr_debug(tlm::TLM_READ_COMMAND, r_.layout_.ddr_base, &probe, 1);
  }
  uint64_t read(uint64_t address, unsigned size) override {
    uint8_t b[8] = {};
    load(address, b, size);
    uint64_t v = 0;
    for (unsigned i = size; i-- > 0;) v = v << 8 | b[i];
    return v;
  }
  void write(uint64_t address, unsigned size, uint64_t value) override {
    uint8_t b[8];
    for (unsigned i = 0; i < size; ++i) b[i] = static_cast<uint8_t>(value >> (8 * i));
    store(address, b, size);
  }
  // The debugger's access: no bus time, no traffic.
  void peek(uint64_t address, uint8_t* data, size_t bytes) { load(address, data, bytes); }
  void poke(uint64_t address, const uint8_t* data, size_t bytes) { store(address, data, bytes); }
  // The host's timed transfer already reached the controller's bytes.
  void host_wrote(uint64_t address, const uint8_t* data, uint64_t bytes) {
    if (!shared_) own_.write(address - r_.layout_.ddr_base, data, bytes);
  }

 private:
  void load(uint64_t address, uint8_t* data, size_t bytes) {
    if (shared_)
      r_.cpu_.ddr_debug(tlm::TLM_READ_COMMAND, address, data, static_cast<unsigned>(bytes));
    else
      own_.read(address - r_.layout_.ddr_base, data, bytes);
  }
  void store(uint64_t address, const uint8_t* data, size_t bytes) {
    if (shared_)  // the debug interface takes a mutable pointer; it only reads on a write
      r_.cpu_.ddr_debug(tlm::TLM_WRITE_COMMAND, address, const_cast<uint8_t*>(data),
                        static_cast<unsigned>(bytes));
    else
      own_.write(address - r_.layout_.ddr_base, data, bytes);
  }

  elf_runner& r_;
  mem::backing_store own_;
  bool shared_ = false;  // the controller keeps the bytes (functional mode)
};

elf_runner::elf_runner(firmware_cpu& cpu, std::shared_ptr<const elf_image> elf,
                       const elf_layout& layout)
    : cpu_(cpu), elf_(std::move(elf)), layout_(layout) {
  layout_.check(*elf_);
  const uint64_t ram_begin = layout_.ram_begin(*elf_), ram_end = layout_.ram_end(*elf_);
  core_.map_ram(ram_begin, ram_end - ram_begin);
  for (const elf_segment& s : elf_->segments())
    if (!s.bytes.empty()) core_.write_memory(s.address, s.bytes.data(), s.bytes.size());
  core_.set_sp(ram_end);
  for (const auto& [name, value] : layout_.boot_values) {
    const auto sym = elf_->symbol(name);
    if (!sym || sym->size == 0 || sym->size > 8)
      cpu_.fault("firmware " + elf_->path() + ": no variable " + name +
                 " of up to 8 bytes to pass its boot argument " + text::hex(value) + " in");
    core_.write_memory(sym->address, &value, sym->size);  // little endian: the low bytes
  }

  npu_ = std::make_unique<npu_window>(*this);
  ddr_ = std::make_unique<ddr_window>(*this);
  const uint64_t dev_begin = layout_.npu_base, dev_end = dev_begin + layout_.device_bytes;
  core_.map_device(dev_begin, layout_.device_bytes, *npu_);
  // DDR around the RAM and the device window.
  std::vector<std::pair<uint64_t, uint64_t>> holes = {{ram_begin, ram_end}, {dev_begin, dev_end}};
  std::sort(holes.begin(), holes.end());
  uint64_t at = layout_.ddr_base;
  const uint64_t ddr_end = layout_.ddr_base + layout_.ddr_size;
  for (const auto& [b, e] : holes) {
    if (b > at) core_.map_device(at, std::min(b, ddr_end) - at, *ddr_);
    at = std::max(at, e);
    if (at >= ddr_end) break;
  }
  if (at < ddr_end) core_.map_device(at, ddr_end - at, *ddr_);

  // kv260_start.c stores the return value of pccx_firmware_main in
  // kv260_exit_code from kv260_c_entry (its _start zeroes the same word with
  // .bss before, which is not an exit).
  const auto code = elf_->symbol("kv260_exit_code");
  const auto entry = elf_->symbol("kv260_c_entry");
  if (code && entry)
    core_.watch_stores(code->address, 4, [this, entry](uint64_t, uint64_t value) {
      const uint64_t pc = core_.instruction_pc();
      if (pc < entry->address || pc - entry->address >= std::max<uint64_t>(entry->size, 4)) return;
      exited_ = true;
      exit_code_ = static_cast<int32_t>(static_cast<uint32_t>(value));
      core_.stop();
    });
}

elf_runner::~elf_runner() = default;

void elf_runner::host_wrote(uint64_t address, const uint8_t* data, uint64_t bytes) {
  ddr_->host_wrote(address, data, bytes);
}

elf_runner::area elf_runner::area_of(uint64_t address, size_t bytes) const {
  const uint64_t end = address + bytes;
  if (end < address) return area::none;
  const uint64_t rb = layout_.ram_begin(*elf_), re = layout_.ram_end(*elf_);
  const uint64_t db = layout_.npu_base, de = db + layout_.device_bytes;
  if (address >= rb && end <= re) return area::ram;
  if (address < de && db < end) return area::device;
  if (address >= layout_.ddr_base && end <= layout_.ddr_base + layout_.ddr_size &&
      !(address < re && rb < end))
    return area::ddr;
  return area::none;
}

bool elf_runner::read_memory(uint64_t address, uint8_t* data, size_t bytes) {
  switch (area_of(address, bytes)) {
    case area::ram: return core_.read_memory(address, data, bytes);
    case area::ddr: ddr_->peek(address, data, bytes); return true;
    case area::device:  // word by word, without the read's effects
      for (size_t i = 0; i < bytes; ++i) {
        const uint64_t a = address + i;
        data[i] = static_cast<uint8_t>(npu_->peek(a & ~uint64_t{3}) >> (8 * (a & 3)));
      }
      return true;
    case area::none: break;
  }
  return false;
}

bool elf_runner::write_memory(uint64_t address, const uint8_t* data, size_t bytes) {
  switch (area_of(address, bytes)) {
    case area::ram: core_.write_memory(address, data, bytes); return true;
    case area::ddr: ddr_->poke(address, data, bytes); return true;
    default: return false;
  }
}

bool elf_runner::debugger_holds(const aarch64_core::stop_info& stop, bool& step) {
  using r = aarch64_core::stop_reason;
  gdb_server::stop s;
  if (stop.reason == r::watchpoint) {
    s.what = gdb_server::stop::kind::watchpoint;
    s.watch_address = stop.address;
    s.watch = static_cast<watch_kind>(stop.watch_kind);
  } else if (stop.reason == r::invalid_instruction) {
    s.signal = 4;  // SIGILL
  } else if (stop.reason != r::breakpoint && stop.reason != r::step &&
             stop.reason != r::stopped) {
    s.signal = 11;  // SIGSEGV
  }
  const gdb_server::resume go = gdb_->hold(s, *this);
  if (go == gdb_server::resume::killed)
    cpu_.fault("firmware " + elf_->path() + ": killed by the debugger at " + where(stop.pc));
  step = go == gdb_server::resume::step;
  return go != gdb_server::resume::detached;
}

std::string elf_runner::where(uint64_t pc) const {
  const std::string sym = elf_->describe(pc);
  std::string s = "PC " + hex(pc) + (sym.empty() ? "" : " (" + sym + ")");
  uint32_t word = 0;
  if (core_.read_memory(pc, &word, 4)) s += ", instruction " + hex(word);
  return s;
}

void elf_runner::report(const aarch64_core::stop_info& stop) {
  using r = aarch64_core::stop_reason;
  const std::string fw = "firmware " + elf_->path() + ": ";
  switch (stop.reason) {
    case r::unmapped_fetch:
      cpu_.fault(fw + "jump to " + hex(stop.address) + ", where no memory is mapped (" +
                 where(stop.pc) + ")");
    case r::unmapped_read:
    case r::unmapped_write:
      cpu_.fault(fw + (stop.reason == r::unmapped_read ? "load from " : "store to ") +
                 hex(stop.address) + " (" + std::to_string(stop.size) +
                 " bytes), where no memory is mapped, at " + where(stop.pc));
    case r::invalid_instruction:
      cpu_.fault(fw + "undefined instruction at " + where(stop.pc));
    case r::address_zero: {
      const std::string lr = elf_->describe(core_.x(30));
      cpu_.fault(fw + "jump to address 0 (a null function pointer, or a return through a "
                      "cleared link register); LR " +
                 hex(core_.x(30)) + (lr.empty() ? "" : " (" + lr + ")"));
    }
    case r::exception:
      cpu_.fault(fw + stop.engine_message +
                 " with no exception handler (bare-metal firmware has no vector table here), "
                 "at " + where(stop.pc));
    case r::device_fault: cpu_.fault(fw + stop.engine_message + ", at " + where(stop.pc));
    case r::engine_error:
    case r::stopped:
    case r::breakpoint:
    case r::step:
    case r::watchpoint: break;
  }
  cpu_.fault(fw + "the instruction-set simulator stopped (" + stop.engine_message + ") at " +
             where(stop.pc));
}

int elf_runner::run() {
  // The CPU's time is its instruction count at the A53 clock, rounded once
  // (not per chunk), so how the count arrives (blocks, device accesses,
  // stops in a debugger) cannot change it.
  const double ps_per_instruction =
      cpu_.params_.cycles_per_instruction * 1e6 / cpu_.params_.clock_mhz;
  core_.on_block = [this, ps_per_instruction](uint64_t n) {
    retired_ += n;
    const auto due = static_cast<uint64_t>(std::llround(static_cast<double>(retired_) * ps_per_instruction));
    cpu_.qk_.inc(sc_core::sc_time(static_cast<double>(due - charged_ps_), sc_core::SC_PS));
    charged_ps_ = due;
    // A program that spins without touching a device still ends at the
    // wall-clock limit.
    cpu_.check_wall_clock();
    if (cpu_.qk_.need_sync()) cpu_.qk_.sync();
  };
  using r = aarch64_core::stop_reason;
  uint64_t pc = elf_->entry();
  bool step = false;
  if (layout_.gdb_port) {
    // Simulated time stands still while the debugger holds the CPU: this
    // thread blocks, and with it the kernel.
    gdb_ = std::make_unique<gdb_server>(layout_.gdb_port);
    aarch64_core::stop_info at_entry;
    at_entry.pc = pc;
    core_.set_reg(32, pc);
    debugger_holds(at_entry, step);
    pc = core_.pc();  // the debugger may have moved it
  }
  for (;;) {
    const aarch64_core::stop_info stop = core_.run(pc, step);
    step = false;
    if (exited_) {
      if (gdb_) gdb_->exited(exit_code_);
      return exit_code_;
    }
    if (cpu_.control_.current() != run_control::state::running) cpu_.park();
    const bool debug_stop =
        stop.reason == r::breakpoint || stop.reason == r::step || stop.reason == r::watchpoint;
    if (gdb_ && gdb_->attached() && stop.reason != r::stopped) {
      // A breakpoint and a step stop before their instruction, a watchpoint
      // after its access, a fault where it happened.
      // (After a watchpoint the engine's PC is past the access.)
      if (stop.reason != r::watchpoint) core_.set_reg(32, stop.pc);
      debugger_holds(stop, step);
      pc = core_.pc();
      if (debug_stop) continue;
    }
    if (debug_stop) {  // the debugger left: run on
      pc = stop.reason == r::watchpoint ? core_.pc() : stop.pc;
      continue;
    }
    if (stop.reason != r::stopped) report(stop);
    pc = stop.pc;
  }
}

}  // namespace pccx::vp
