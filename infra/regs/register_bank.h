// Registers as objects, after the datasheet: each 32-bit register has a name,
// an offset, an access rule, a reset value, optional read and write
// callbacks, and whether a read first catches up with the caller's local
// time. A bank holds them, answers the bus (register_bank::transport) and
// names an offset for traces. The tables of names, offsets and rules come
// from the firmware headers (PCCX_NPU_REGISTERS, PCCX_DMA_REGISTERS), so the
// driver, the models and docs/reference/registers.md read the same table.
//
// Bus rules, for every bank:
//  - only aligned 32-bit accesses without byte enables (else a burst error);
//  - an offset with no register is an address error; a register that refuses
//    the access's direction (a write to a read-only register, a read of a
//    write-only one) is a command error;
//  - debug reads have no side effect a callback does not choose to skip
//    (callbacks are told), debug writes are refused;
//  - a read of a register that syncs first waits out the caller's offset, so
//    state is read at the moment of the access and not up to a quantum early.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "pccx_npu_regs.h"

namespace pccx::regs {

enum class access : std::uint8_t {
  read_only = PCCX_ACCESS_R,
  write_only = PCCX_ACCESS_W,
  read_write = PCCX_ACCESS_RW,
  read_write_1_to_clear = PCCX_ACCESS_R_W1C,  // writing 1 clears a bit
};

// "R", "W", "RW", "R / W1C": the notation of the register tables in the docs.
const char* access_text(access a);

// One row of a register table.
struct register_info {
  const char* name;
  std::uint32_t offset;
  access rule;
};

// Expands a firmware header's X(name, offset, access) table into rows:
//   const register_info rows[] = {PCCX_NPU_REGISTERS(PCCX_REGISTER_ROW)};
#define PCCX_REGISTER_ROW(name, offset, rule) \
  ::pccx::regs::register_info{#name, offset, static_cast<::pccx::regs::access>(rule)},

class reg32 {
 public:
  // Computes the value a read returns; `debug` is true for transport_dbg.
  using read_fn = std::function<std::uint32_t(bool debug)>;
  // Acts on a write; `delay` is the caller's local time offset, which a
  // write that must wait (a held bus write) may consume.
  using write_fn = std::function<void(std::uint32_t value, sc_core::sc_time& delay)>;

  reg32(std::string name, std::uint32_t offset, access rule, std::uint32_t reset);

  reg32& on_read(read_fn f);
  reg32& on_write(write_fn f);
  // A read of this register does not depend on time (a constant, or state
  // only the caller changes): it need not catch up the caller's offset.
  reg32& no_read_sync();

  const std::string& name() const { return name_; }
  std::uint32_t offset() const { return offset_; }
  access rule() const { return rule_; }
  std::uint32_t reset_value() const { return reset_; }
  bool read_syncs() const { return read_syncs_; }
  bool readable() const { return rule_ != access::write_only; }
  bool has_read_callback() const { return static_cast<bool>(on_read_); }
  bool writable() const { return rule_ != access::read_only; }

  // The stored value: what a read returns without on_read, what a write
  // stores (read/write) or clears (write-1-to-clear).
  std::uint32_t value() const { return value_; }
  void set(std::uint32_t v) { value_ = v; }
  void reset() { value_ = reset_; }

  // The bus side, after the bank has checked the access rule.
  std::uint32_t read(bool debug);
  void write(std::uint32_t v, sc_core::sc_time& delay);

 private:
  std::string name_;
  std::uint32_t offset_;
  access rule_;
  std::uint32_t reset_;
  std::uint32_t value_;
  bool read_syncs_ = true;
  read_fn on_read_;
  write_fn on_write_;
};

class register_bank {
 public:
  // `size` is the bank's window in bytes; `owner` names it in errors.
  register_bank(std::string owner, std::uint32_t size);

  reg32& add(const register_info& info, std::uint32_t reset = 0);
  // Every row of a table, in order.
  void add_table(const register_info* rows, std::size_t count);
  // A 64-bit value read as two registers: reading LO returns bits [31:0] and
  // latches [63:32] into the bank's one HI latch, which a read of any HI
  // register returns, so a LO-then-HI pair belongs together. Debug reads
  // neither latch nor use the latch.
  void add_counter64(const std::string& lo_name, const std::string& hi_name,
                     std::uint32_t lo_offset, std::function<std::uint64_t()> source);

  // The register called `name`; throws std::logic_error when the table has
  // none (a model attaching behaviour to a register the table lacks).
  reg32& operator[](const std::string& name);
  // The register at `offset`, or nullptr.
  const reg32* at(std::uint32_t offset) const;
  std::string name_of(std::uint32_t offset) const;
  const std::vector<std::unique_ptr<reg32>>& registers() const { return regs_; }
  // Throws std::logic_error naming a read-only register that has no read
  // callback: a row of the table the model gave no behaviour.
  void check_behaviour() const;

  // Answers one bus access (delay = nullptr: a debug access). Returns false
  // with the response status set when the access is refused.
  bool transport(tlm::tlm_generic_payload& tx, sc_core::sc_time* delay);

 private:
  reg32* find(std::uint32_t offset) const;

  std::string owner_;
  std::vector<std::unique_ptr<reg32>> regs_;
  std::vector<reg32*> by_word_;  // offset / 4 -> register
  std::uint32_t latched_hi_ = 0;
};

// The name of `offset` in a table, "" when it has none (for traces, where
// no bank instance is at hand).
std::string table_name(const register_info* rows, std::size_t count, std::uint32_t offset);

}  // namespace pccx::regs
