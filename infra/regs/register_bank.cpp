#include "infra/regs/register_bank.h"

#include <cstring>
#include <stdexcept>

namespace pccx::regs {

const char* access_text(access a) {
  switch (a) {
    case access::read_only: return "R";
    case access::write_only: return "W";
    case access::read_write: return "RW";
    case access::read_write_1_to_clear: return "R / W1C";
  }
  return "?";
}

reg32::reg32(std::string name, std::uint32_t offset, access rule, std::uint32_t reset)
    : name_(std::move(name)), offset_(offset), rule_(rule), reset_(reset), value_(reset) {}

reg32& reg32::on_read(read_fn f) {
  on_read_ = std::move(f);
  return *this;
}

reg32& reg32::on_write(write_fn f) {
  on_write_ = std::move(f);
  return *this;
}

reg32& reg32::no_read_sync() {
  read_syncs_ = false;
  return *this;
}

std::uint32_t reg32::read(bool debug) {
  return on_read_ ? on_read_(debug) : value_;
}

void reg32::write(std::uint32_t v, sc_core::sc_time& delay) {
  if (rule_ == access::read_write_1_to_clear)
    value_ &= ~v;
  else
    value_ = v;
  if (on_write_) on_write_(v, delay);
}

register_bank::register_bank(std::string owner, std::uint32_t size)
    : owner_(std::move(owner)), by_word_(size / 4, nullptr) {}

reg32& register_bank::add(const register_info& info, std::uint32_t reset) {
  if (info.offset % 4 != 0 || info.offset / 4 >= by_word_.size())
    throw std::logic_error(owner_ + ": register " + info.name + " at offset " +
                           std::to_string(info.offset) + " is not an aligned offset of the bank");
  if (by_word_[info.offset / 4])
    throw std::logic_error(owner_ + ": registers " + by_word_[info.offset / 4]->name() + " and " +
                           info.name + " share an offset");
  regs_.push_back(std::make_unique<reg32>(info.name, info.offset, info.rule, reset));
  by_word_[info.offset / 4] = regs_.back().get();
  return *regs_.back();
}

void register_bank::add_table(const register_info* rows, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) add(rows[i]);
}

void register_bank::add_counter64(const std::string& lo_name, const std::string& hi_name,
                                  std::uint32_t lo_offset, std::function<std::uint64_t()> source) {
  reg32* lo = find(lo_offset);
  if (!lo) lo = &add({lo_name.c_str(), lo_offset, access::read_only});
  reg32* hi = find(lo_offset + 4);
  if (!hi) hi = &add({hi_name.c_str(), lo_offset + 4, access::read_only});
  if (lo->name() != lo_name || hi->name() != hi_name)
    throw std::logic_error(owner_ + ": the counter " + lo_name + "/" + hi_name +
                           " does not match the table's " + lo->name() + "/" + hi->name());
  lo->on_read([this, source](bool debug) {
    const std::uint64_t v = source();
    if (!debug) latched_hi_ = static_cast<std::uint32_t>(v >> 32);
    return static_cast<std::uint32_t>(v);
  });
  hi->on_read([this, source](bool debug) {
    return debug ? static_cast<std::uint32_t>(source() >> 32) : latched_hi_;
  });
}

reg32& register_bank::operator[](const std::string& name) {
  for (auto& r : regs_)
    if (r->name() == name) return *r;
  throw std::logic_error(owner_ + ": no register " + name + " in the bank's table");
}

void register_bank::check_behaviour() const {
  for (const auto& r : regs_)
    if (r->rule() == access::read_only && !r->has_read_callback())
      throw std::logic_error(owner_ + ": read-only register " + r->name() +
                             " has no read behaviour");
}

reg32* register_bank::find(std::uint32_t offset) const {
  if (offset % 4 != 0 || offset / 4 >= by_word_.size()) return nullptr;
  return by_word_[offset / 4];
}

const reg32* register_bank::at(std::uint32_t offset) const {
  return find(offset);
}

std::string register_bank::name_of(std::uint32_t offset) const {
  const reg32* r = find(offset);
  return r ? r->name() : "";
}

bool register_bank::transport(tlm::tlm_generic_payload& tx, sc_core::sc_time* delay) {
  const std::uint64_t address = tx.get_address();
  if (tx.get_data_length() != 4 || (address & 3) != 0 || tx.get_byte_enable_ptr()) {
    tx.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return false;
  }
  reg32* r = address <= UINT32_MAX ? find(static_cast<std::uint32_t>(address)) : nullptr;
  if (!r) {
    tx.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  std::uint32_t value = 0;
  if (tx.is_read()) {
    if (!r->readable()) {
      tx.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
      return false;
    }
    if (delay && r->read_syncs() && *delay > sc_core::SC_ZERO_TIME) {
      sc_core::wait(*delay);
      *delay = sc_core::SC_ZERO_TIME;
    }
    value = r->read(delay == nullptr);
    std::memcpy(tx.get_data_ptr(), &value, 4);
  } else if (tx.is_write()) {
    if (!delay || !r->writable()) {
      tx.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
      return false;
    }
    std::memcpy(&value, tx.get_data_ptr(), 4);
    r->write(value, *delay);
  }
  tx.set_response_status(tlm::TLM_OK_RESPONSE);
  return true;
}

std::string table_name(const register_info* rows, std::size_t count, std::uint32_t offset) {
  for (std::size_t i = 0; i < count; ++i)
    if (rows[i].offset == offset) return rows[i].name;
  return "";
}

}  // namespace pccx::regs
