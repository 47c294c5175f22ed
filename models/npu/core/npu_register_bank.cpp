#include "models/npu/core/npu_register_bank.h"

#include <iterator>

#include "infra/text/hex.h"
#include "infra/time/kernel_time.h"
#include "models/npu/isa/instruction.h"

namespace pccx::npu {

using sc_core::sc_time;

namespace {

const regs::register_info kRegisters[] = {PCCX_NPU_REGISTERS(PCCX_REGISTER_ROW)};

}  // namespace

npu_register_bank::npu_register_bank(sc_core::sc_module_name name, const npu_params& params,
                                     command_fifo& fifo, command_processor& cmd,
                                     perf_counters& counters)
    : sc_core::sc_module(name),
      mmio("mmio"),
      params_(params),
      fifo_(fifo),
      cmd_(cmd),
      counters_(counters),
      log_(sc_core::sc_module::name()),
      bank_(sc_core::sc_module::name(), PCCX_NPU_REGS_SIZE) {
  bank_.add_table(kRegisters, std::size(kRegisters));
  instr_lo_ = &bank_["INSTR_LO"];  // stores the low half until INSTR_HI
  bank_["INSTR_HI"].on_write([this](uint32_t v, sc_time& delay) { push_instruction(v, delay); });
  bank_["STATUS"].on_read([this](bool) { return status(); }).on_write([this](uint32_t v, sc_time&) {
    if (v & PCCX_STAT_ERROR) cmd_.clear_error();
  });
  auto error_field = [this](auto field) {
    return [this, field](bool) { return cmd_.error() ? field(*cmd_.error()) : 0u; };
  };
  bank_["ERR_CODE"].on_read(
      [this](bool) { return cmd_.error() ? cmd_.error()->code : uint32_t{PCCX_ERR_NONE}; });
  bank_["ERR_INSTR_LO"].on_read(
      error_field([](const npu_error& e) { return static_cast<uint32_t>(e.word); }));
  bank_["ERR_INSTR_HI"].on_read(
      error_field([](const npu_error& e) { return static_cast<uint32_t>(e.word >> 32); }));
  bank_["ERR_SEQ"].on_read(
      error_field([](const npu_error& e) { return static_cast<uint32_t>(e.seq); }));
  bank_["CMD_LEVEL"].on_read([this](bool) { return fifo_.level(); });
  bank_["CMD_DEPTH"].on_read([this](bool) { return fifo_.depth(); });
  bank_["ID"].on_read([](bool) { return uint32_t{PCCX_NPU_ID}; });
  bank_["VERSION"].on_read([](bool) { return uint32_t{PCCX_NPU_VERSION}; });
  bank_.add_counter64("RETIRED_LO", "RETIRED_HI", PCCX_REG_RETIRED_LO,
                      [this] { return cmd_.retired(); });
  bank_.add_counter64("ISSUED_LO", "ISSUED_HI", PCCX_REG_ISSUED_LO,
                      [this] { return fifo_.pushed(); });
  for (uint32_t i = 0; i < PCCX_PERF_COUNT; ++i)
    bank_.add_counter64(perf_name(i, false), perf_name(i, true), PCCX_REG_PERF_LO(i),
                        [this, i] { return cmd_.counter(i); });
  bank_.check_behaviour();
  mmio.register_b_transport(this, &npu_register_bank::b_transport);
  mmio.register_transport_dbg(this, &npu_register_bank::transport_dbg);
}

std::string npu_register_bank::perf_name(uint32_t index, bool hi) {
  return std::string(hi ? "PERF_HI[" : "PERF_LO[") + std::to_string(index) + "]";
}

std::string npu_register_bank::register_name(uint64_t offset) {
  if (offset >= PCCX_REG_PERF_BASE && offset < PCCX_REG_PERF_LO(PCCX_PERF_COUNT))
    return perf_name(static_cast<uint32_t>((offset - PCCX_REG_PERF_BASE) / 8), (offset & 4) != 0);
  return regs::table_name(kRegisters, std::size(kRegisters), static_cast<uint32_t>(offset));
}

uint32_t npu_register_bank::status() const {
  uint32_t s = 0;
  if (cmd_.busy()) s |= UCA_STAT_BUSY;
  if (cmd_.done()) s |= UCA_STAT_DONE;
  if (cmd_.error_latched()) s |= PCCX_STAT_ERROR;
  if (fifo_.full()) s |= PCCX_STAT_CMD_FULL;
  return s;
}

void npu_register_bank::push_instruction(uint32_t hi, sc_time& delay) {
  if (fifo_.full()) {
    // Hold the write like a deasserted awready: catch up, then wait for a slot.
    wait(delay);
    delay = sc_core::SC_ZERO_TIME;
    if (fifo_.full())
      PCCX_LOG(log_, debug, "CMD_IN full (" << fifo_.depth() << "), holding INSTR_HI write");
    if (fifo_.full() && cmd_.error_latched() && hung_writes.connected()) {
      const npu_error& e = *cmd_.error();
      hung_writes.write(
          "INSTR_HI written with CMD_IN full (" + std::to_string(fifo_.depth()) +
          " words) while the NPU is halted at " + isa::error_name(e.code) + " on instruction #" +
          std::to_string(e.seq) + " (" + text::hex_word(e.word) + ": " + e.detail +
          "): the NPU takes no word until the error is cleared, so the write can never "
          "complete (on the board the bus would hang); a driver checks STATUS.ERROR "
          "(uca_sync returns PCCX_SYNC_NPU_ERROR) before issuing more");
    }
    while (fifo_.full()) wait(fifo_.popped_event());
  }
  const uint64_t word = (static_cast<uint64_t>(hi) << 32) | instr_lo_->value();
  fifo_.push(word, kernel_time() + delay);
  cmd_.word_pushed();
  if (lint_ && lint_->take_sync_timeout())
    lint_->report(lint_code::issue_after_timeout, fifo_.pushed() - 1, word,
                  "issued after a uca_sync that timed out with the NPU still busy: the NPU may "
                  "still be running what the driver believes finished");
}

void npu_register_bank::b_transport(tlm::tlm_generic_payload& tx, sc_time& delay) {
  bank_.transport(tx, &delay);
}

unsigned int npu_register_bank::transport_dbg(tlm::tlm_generic_payload& tx) {
  return bank_.transport(tx, nullptr) ? 4u : 0u;
}

}  // namespace pccx::npu
