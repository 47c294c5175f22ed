#include "models/npu/core/npu_register_bank.h"

#include "infra/mmio/register_access.h"

namespace pccx::npu {

using sc_core::sc_time;

npu_register_bank::npu_register_bank(sc_core::sc_module_name name, const npu_params& params,
                                     command_fifo& fifo, command_processor& cmd,
                                     perf_counters& counters)
    : sc_core::sc_module(name),
      mmio("mmio"),
      params_(params),
      fifo_(fifo),
      cmd_(cmd),
      counters_(counters),
      log_(sc_core::sc_module::name()) {
  mmio.register_b_transport(this, &npu_register_bank::b_transport);
  mmio.register_transport_dbg(this, &npu_register_bank::transport_dbg);
}

std::string npu_register_bank::register_name(uint64_t offset) {
  switch (offset) {
    case UCA_REG_INSTR_LO: return "INSTR_LO";
    case UCA_REG_INSTR_HI: return "INSTR_HI";
    case UCA_REG_STATUS: return "STATUS";
    case PCCX_REG_ERR_CODE: return "ERR_CODE";
    case PCCX_REG_ERR_INSTR_LO: return "ERR_INSTR_LO";
    case PCCX_REG_ERR_INSTR_HI: return "ERR_INSTR_HI";
    case PCCX_REG_ERR_SEQ: return "ERR_SEQ";
    case PCCX_REG_CMD_LEVEL: return "CMD_LEVEL";
    case PCCX_REG_CMD_DEPTH: return "CMD_DEPTH";
    case PCCX_REG_RETIRED_LO: return "RETIRED_LO";
    case PCCX_REG_RETIRED_HI: return "RETIRED_HI";
    case PCCX_REG_ISSUED_LO: return "ISSUED_LO";
    case PCCX_REG_ISSUED_HI: return "ISSUED_HI";
    case PCCX_REG_ID: return "ID";
    case PCCX_REG_VERSION: return "VERSION";
    default: break;
  }
  if (offset >= PCCX_REG_PERF_BASE && offset < PCCX_REG_PERF_LO(PCCX_PERF_COUNT)) {
    const uint64_t i = (offset - PCCX_REG_PERF_BASE) / 8;
    return std::string((offset & 4) ? "PERF_HI[" : "PERF_LO[") + std::to_string(i) + "]";
  }
  return "";
}

uint32_t npu_register_bank::status() const {
  uint32_t s = 0;
  if (cmd_.busy()) s |= UCA_STAT_BUSY;
  if (cmd_.done()) s |= UCA_STAT_DONE;
  if (cmd_.error_latched()) s |= PCCX_STAT_ERROR;
  if (fifo_.full()) s |= PCCX_STAT_CMD_FULL;
  return s;
}

uint64_t npu_register_bank::counter(uint32_t index) const {
  return cmd_.counter(index);
}

bool npu_register_bank::read(uint32_t offset, uint32_t& value, bool debug) {
  const npu_error* err = cmd_.error();
  auto lo_hi = [&](uint64_t v, bool hi) { return static_cast<uint32_t>(hi ? v >> 32 : v); };
  switch (offset) {
    case UCA_REG_STATUS: value = status(); return true;
    case PCCX_REG_ERR_CODE: value = err ? err->code : PCCX_ERR_NONE; return true;
    case PCCX_REG_ERR_INSTR_LO: value = err ? lo_hi(err->word, false) : 0; return true;
    case PCCX_REG_ERR_INSTR_HI: value = err ? lo_hi(err->word, true) : 0; return true;
    case PCCX_REG_ERR_SEQ: value = err ? static_cast<uint32_t>(err->seq) : 0; return true;
    case PCCX_REG_CMD_LEVEL: value = fifo_.level(); return true;
    case PCCX_REG_CMD_DEPTH: value = fifo_.depth(); return true;
    case PCCX_REG_ID: value = PCCX_NPU_ID; return true;
    case PCCX_REG_VERSION: value = PCCX_NPU_VERSION; return true;
    default: break;
  }
  // 64-bit pairs: reading LO latches HI so the two halves belong together.
  auto pair = [&](uint64_t v, uint32_t lo_offset) {
    if (offset == lo_offset) {
      value = lo_hi(v, false);
      if (!debug) latched_hi_ = lo_hi(v, true);
    } else {
      value = debug ? lo_hi(v, true) : latched_hi_;
    }
    return true;
  };
  if (offset == PCCX_REG_RETIRED_LO || offset == PCCX_REG_RETIRED_HI)
    return pair(cmd_.retired(), PCCX_REG_RETIRED_LO);
  if (offset == PCCX_REG_ISSUED_LO || offset == PCCX_REG_ISSUED_HI)
    return pair(fifo_.pushed(), PCCX_REG_ISSUED_LO);
  if (offset >= PCCX_REG_PERF_BASE && offset < PCCX_REG_PERF_LO(PCCX_PERF_COUNT)) {
    const uint32_t i = (offset - PCCX_REG_PERF_BASE) / 8;
    return pair(counter(i), PCCX_REG_PERF_LO(i));
  }
  return false;
}

bool npu_register_bank::write(uint32_t offset, uint32_t value, sc_time& delay) {
  switch (offset) {
    case UCA_REG_INSTR_LO: instr_lo_ = value; return true;
    case UCA_REG_INSTR_HI: {
      if (fifo_.full()) {
        // Hold the write like a deasserted awready: catch up, then wait for a slot.
        wait(delay);
        delay = sc_core::SC_ZERO_TIME;
        if (fifo_.full())
          PCCX_LOG(log_, debug, "CMD_IN full (" << fifo_.depth() << "), holding INSTR_HI write");
        while (fifo_.full()) wait(fifo_.popped_event());
      }
      const uint64_t word = (static_cast<uint64_t>(value) << 32) | instr_lo_;
      fifo_.push(word, sc_core::sc_time_stamp() + delay);
      cmd_.word_pushed();
      return true;
    }
    case UCA_REG_STATUS:
      if (value & PCCX_STAT_ERROR) cmd_.clear_error();  // write 1 to clear
      return true;
    default: return false;
  }
}

bool npu_register_bank::access(tlm::tlm_generic_payload& tx, sc_time* delay) {
  return mmio::access_registers(
      tx, delay,
      [this](uint32_t offset, uint32_t& value, bool debug) { return read(offset, value, debug); },
      [this](uint32_t offset, uint32_t value, sc_time& d) { return write(offset, value, d); },
      [](uint32_t offset) { return !register_name(offset).empty(); });
}

void npu_register_bank::b_transport(tlm::tlm_generic_payload& tx, sc_time& delay) {
  access(tx, &delay);
}

unsigned int npu_register_bank::transport_dbg(tlm::tlm_generic_payload& tx) {
  return access(tx, nullptr) ? 4u : 0u;
}

}  // namespace pccx::npu
