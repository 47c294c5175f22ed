#include "platform/vp/cpu/firmware_cpu.h"

#include <algorithm>
#include <cstdio>

#include "infra/text/hex.h"
#include "platform/vp/cpu/fatal_signal_report.h"
#include "models/memory/common/traffic.h"
#include "pccx_npu_regs.h"
#include "uCA_v1_hal.h"
#include "platform/vp/top/wall_clock_watchdog.h"

namespace pccx::vp {

namespace {
firmware_cpu* g_current = nullptr;

std::string hex32(uint64_t v) {
  return text::hex(v, 8);
}
}  // namespace

firmware_cpu::firmware_cpu(sc_core::sc_module_name name, const params& p, run_control& control,
                           const address_router& names, trace::trace_hub* traces)
    : sc_core::sc_module(name),
      bus("bus"),
      ddr("ddr"),
      npu_irq("npu_irq"),
      params_(p),
      control_(control),
      names_(names),
      mmio_trace_(traces ? traces->channel("mmio") : nullptr),
      poll_watch_(p.livelock_reads),
      log_(sc_core::sc_module::name()) {
  SC_THREAD(run);
  set_stack_size(params_.stack_bytes);
}

void firmware_cpu::load(firmware_entry entry, const std::string& firmware_name) {
  entry_ = entry;
  firmware_name_ = firmware_name;
}

void firmware_cpu::load_elf(std::shared_ptr<const elf_image> elf) {
  params_.elf.check(*elf);
  firmware_name_ = elf->path();
  elf_ = std::move(elf);
}

firmware_cpu* firmware_cpu::current() {
  return g_current;
}

sc_core::sc_time firmware_cpu::local_time() const {
  return qk_.get_current_time();
}

void firmware_cpu::run() {
  if (!entry_ && !elf_) fault("no firmware loaded");
  qk_.reset();
  g_current = this;
  PCCX_LOG(log_, info,
           "running firmware " << firmware_name_ << (elf_ ? " (AArch64 ELF)" : ""));
  activity_.started = true;
  activity_.leave_platform();
  process_ = sc_core::sc_get_current_process_handle();
  os_thread_ = std::this_thread::get_id();
  int rc = 0;
  if (elf_) {
    runner_ = std::make_unique<elf_runner>(*this, elf_, params_.elf);
    if (host_before_) host_before_();
    rc = runner_->run();
    if (rc == 0 && host_after_) host_after_();
  } else {
    // A fault in firmware code comes back here (fatal_signal_report.h)
    // and ends the run, not the process.
    sigjmp_buf back;
    if (sigsetjmp(back, 1) != 0)
      firmware_escaped("crashed with " + fatal_signal_report::recovered_fault() +
                       " in firmware code");
    fatal_signal_report::set_recovery_point(&back);
    // An exception out of firmware code ends the run with what it says;
    // the kernel's own unwinding of this thread passes through.
    try {
      rc = entry_();
      fatal_signal_report::set_recovery_point(nullptr);
    } catch (const sc_core::sc_unwind_exception&) {
      fatal_signal_report::set_recovery_point(nullptr);
      throw;
    } catch (const std::exception& e) {
      firmware_escaped("threw a C++ exception (" + std::string(e.what()) + ")");
    } catch (...) {
      firmware_escaped("threw a C++ exception of a type that is not std::exception");
    }
  }
  activity_.enter_platform(static_cast<uint64_t>(trace::to_ns(local_time())));
  qk_.sync();
  g_current = nullptr;
  control_.finish(rc, "firmware " + firmware_name_ + " returned " + std::to_string(rc));
  wait(never_);
}

firmware_cpu::hal_call::hal_call(firmware_cpu& c) : cpu(c) {
  cpu.activity_.enter_platform(static_cast<uint64_t>(trace::to_ns(cpu.local_time())));
}

void firmware_cpu::check_wall_clock() {
  if (watchdog_ && watchdog_->expired()) fault(watchdog_->message());
}

firmware_cpu::~firmware_cpu() {
  ddr_tx_.clear_extension<mem::ddr_traffic>();
}

void firmware_cpu::fault(const std::string& message) {
  qk_.sync();
  control_.fail(message);
  park();
}

void firmware_cpu::livelocked(const poll_watch::livelock& l, const std::string& where) {
  const std::string reg = where.empty() ? hex32(params_.mmio_base + l.offset)
                                        : where + " (" + hex32(params_.mmio_base + l.offset) + ")";
  const std::string state = describe_platform_state ? describe_platform_state() : std::string();
  fault("firmware " + firmware_name_ + " is stuck polling " + reg + ": " +
        std::to_string(l.reads) + " reads in a row" +
        (l.registers > 1 ? " of " + std::to_string(l.registers) + " registers" : std::string()) +
        " returned what they returned before (" + reg + " = " + hex32(l.value) +
        ") while nothing in the platform moved (no instruction retired, no DDR transfer by a "
        "device, no byte through a stream FIFO), so the loop cannot end" +
        (state.empty() ? "" : "; " + state) + " (simulation.livelock_reads)");
}

bool firmware_cpu::on_firmware_thread() const {
  // Other OS threads (the wall-clock watchdog) never run firmware code.
  return process_.valid() && std::this_thread::get_id() == os_thread_ &&
         sc_core::sc_get_current_process_handle() == process_;
}

void firmware_cpu::firmware_escaped(const std::string& what) {
  activity_.enter_platform(static_cast<uint64_t>(trace::to_ns(local_time())));
  fault("firmware " + firmware_name_ + " " + what +
        " instead of returning from pccx_firmware_main: the run ends here, failed");
}

void firmware_cpu::park() {
  // The firmware's frames stay suspended on this thread; nothing unwinds
  // through them, and the simulation has been stopped.
  for (;;) wait(never_);
}

unsigned firmware_cpu::debug_transport(tlm_utils::simple_initiator_socket<firmware_cpu>& socket,
                                       tlm::tlm_command cmd, uint64_t address, uint8_t* data,
                                       unsigned bytes) {
  tlm::tlm_generic_payload& tx = debug_tx_;
  tx.set_command(cmd);
  tx.set_address(address);
  tx.set_data_ptr(data);
  tx.set_data_length(bytes);
  tx.set_streaming_width(bytes);
  return socket->transport_dbg(tx);
}

bool firmware_cpu::register_debug_read(uint64_t address, uint32_t& value) {
  return debug_transport(bus, tlm::TLM_READ_COMMAND, address,
                         reinterpret_cast<uint8_t*>(&value), 4) == 4;
}

bool firmware_cpu::ddr_debug(tlm::tlm_command cmd, uint64_t address, uint8_t* data,
                             unsigned bytes) {
  return debug_transport(ddr, cmd, address, data, bytes) == bytes;
}

void firmware_cpu::transact(tlm::tlm_command cmd, uint32_t offset, uint32_t& data) {
  const uint64_t address = params_.mmio_base + offset;
  tlm::tlm_generic_payload& tx = mmio_tx_;
  tx.set_command(cmd);
  tx.set_address(address);
  tx.set_data_ptr(reinterpret_cast<unsigned char*>(&data));
  tx.set_data_length(4);
  tx.set_streaming_width(4);
  tx.set_byte_enable_ptr(nullptr);
  tx.set_dmi_allowed(false);
  tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);

  sc_core::sc_time delay = qk_.get_local_time();
  bus->b_transport(tx, delay);
  qk_.set(delay);

  const bool is_write = cmd == tlm::TLM_WRITE_COMMAND;
  // The register's name ("npu.STATUS"), only where it is reported: the
  // firmware makes a million accesses per prefill chunk.
  const auto describe = [&] { return names_.describe(address); };
  if (tx.is_response_error()) {
    const std::string where = describe();
    std::string why;
    switch (tx.get_response_status()) {
      case tlm::TLM_ADDRESS_ERROR_RESPONSE:
        why = where.empty() ? "no device is mapped there" : "no register at this offset";
        break;
      case tlm::TLM_COMMAND_ERROR_RESPONSE:
        why = is_write ? "the register is read-only" : "the register is write-only";
        break;
      case tlm::TLM_BURST_ERROR_RESPONSE: why = "only aligned 32-bit accesses are supported"; break;
      default: why = tx.get_response_string(); break;
    }
    fault("firmware " + firmware_name_ + ": bus error on " + (is_write ? "write of " : "read of ") +
          (is_write ? hex32(data) + " to " : std::string()) + hex32(address) +
          (where.empty() ? "" : " (" + where + ")") + " at HAL offset " + hex32(offset) + ": " +
          why);
  }
  if (mmio_trace_) {
    nlohmann::ordered_json rec = {{"t_ns", trace::to_ns(local_time())},
                                  {"op", is_write ? "W" : "R"},
                                  {"addr", hex32(address)},
                                  {"reg", describe()},
                                  {"value", hex32(data)}};
    if (is_write && offset == UCA_REG_INSTR_LO) instr_lo_ = data;
    if (is_write && offset == UCA_REG_INSTR_HI) {
      const uint64_t word = uint64_t{data} << 32 | instr_lo_;
      rec["word"] = text::hex_word(word);
      if (describe_instruction) rec["disasm"] = describe_instruction(word);
    }
    mmio_trace_->write(rec);
  }
  PCCX_LOG(log_, trace, (is_write ? "W " : "R ") << describe() << " = " << hex32(data));
  if (is_write)
    poll_watch_.write();
  else if (auto stuck = poll_watch_.read(offset, data))
    livelocked(*stuck, describe());
  check_wall_clock();
  if (qk_.need_sync()) qk_.sync();
}

void firmware_cpu::write32(uint32_t offset, uint32_t value) {
  hal_call in_platform(*this);
  transact(tlm::TLM_WRITE_COMMAND, offset, value);
}

uint32_t firmware_cpu::read32(uint32_t offset) {
  hal_call in_platform(*this);
  uint32_t value = 0;
  transact(tlm::TLM_READ_COMMAND, offset, value);
  return value;
}

void firmware_cpu::host_transfer(tlm::tlm_command cmd, uint64_t ddr_addr, uint8_t* data,
                                 uint32_t bytes) {
  mem::ddr_traffic traffic(mem::ddr_port::cpu, mem::traffic_class::host);
  for (uint32_t done = 0; done < bytes;) {
    const uint32_t chunk = std::min(params_.host_block_bytes, bytes - done);
    tlm::tlm_generic_payload& tx = ddr_tx_;
    tx.set_command(cmd);
    tx.set_address(ddr_addr + done);
    tx.set_data_ptr(data + done);
    tx.set_data_length(chunk);
    tx.set_streaming_width(chunk);
    tx.set_byte_enable_ptr(nullptr);
    tx.set_dmi_allowed(false);
    tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    tx.set_extension(&traffic);
    sc_core::sc_time delay = qk_.get_local_time();
    ddr->b_transport(tx, delay);
    tx.clear_extension(&traffic);
    qk_.set(delay);
    if (runner_ && cmd == tlm::TLM_WRITE_COMMAND && tx.is_response_ok())
      runner_->host_wrote(ddr_addr + done, data + done, chunk);
    if (tx.is_response_error())
      fault("firmware " + firmware_name_ + ": DDR " +
            (cmd == tlm::TLM_WRITE_COMMAND ? "write" : "read") + " of " + std::to_string(chunk) +
            " bytes at " + hex32(ddr_addr + done) + " failed: " +
            (tx.get_response_status() == tlm::TLM_ADDRESS_ERROR_RESPONSE
                 ? "the address is outside DDR"
                 : tx.get_response_string()));
    check_wall_clock();
    if (qk_.need_sync()) qk_.sync();
    done += chunk;
  }
}

void firmware_cpu::host_write(uint64_t ddr_addr, const void* src, uint32_t bytes) {
  hal_call in_platform(*this);
  // The controller only reads from the buffer on a write.
  poll_watch_.write();  // the firmware did something
  host_transfer(tlm::TLM_WRITE_COMMAND, ddr_addr,
                const_cast<uint8_t*>(static_cast<const uint8_t*>(src)), bytes);
}

void firmware_cpu::host_read(uint64_t ddr_addr, void* dst, uint32_t bytes) {
  hal_call in_platform(*this);
  host_transfer(tlm::TLM_READ_COMMAND, ddr_addr, static_cast<uint8_t*>(dst), bytes);
}

int firmware_cpu::wait_idle(uint32_t timeout_us) {
  hal_call in_platform(*this);
  const sc_core::sc_time from = local_time();
  const int result = sleep_until_idle(timeout_us);
  if (idle_waits.connected()) idle_waits.write({from, local_time(), result});
  return result;
}

int firmware_cpu::sleep_until_idle(uint32_t timeout_us) {
  const sc_core::sc_time deadline =
      local_time() + sc_core::sc_time(static_cast<double>(timeout_us), sc_core::SC_US);
  for (;;) {
    const uint32_t status = read32(UCA_REG_STATUS);
    if (status & PCCX_STAT_ERROR) return -2;
    if (!(status & UCA_STAT_BUSY)) return 0;
    if (local_time() >= deadline) return -1;
    // Sleep until the NPU raises its idle-or-error line, or the deadline.
    qk_.sync();
    if (sc_core::sc_time_stamp() >= deadline) return -1;
    if (npu_irq.read())
      wait(sc_core::SC_ZERO_TIME);  // the line lags STATUS by one delta
    else
      wait(deadline - sc_core::sc_time_stamp(), npu_irq.posedge_event());
  }
}

}  // namespace pccx::vp
