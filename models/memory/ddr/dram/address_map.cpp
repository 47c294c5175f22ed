#include "models/memory/ddr/dram/address_map.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace pccx::mem {

namespace {

uint32_t log2_exact(uint64_t v) {
  uint32_t n = 0;
  while ((uint64_t{1} << n) < v) ++n;
  return n;
}

bool power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

void append_range(std::vector<uint32_t>& to, uint32_t& next, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) to.push_back(next++);
}

// "14-15", "3-5 7-13"
std::string ranges(const std::vector<uint32_t>& bits) {
  std::ostringstream out;
  for (size_t i = 0; i < bits.size();) {
    size_t j = i;
    while (j + 1 < bits.size() && bits[j + 1] == bits[j] + 1) ++j;
    if (i) out << ' ';
    out << bits[i];
    if (j > i) out << '-' << bits[j];
    i = j + 1;
  }
  return out.str();
}

}  // namespace

address_map::lists address_map::resolve(const config::ddr_config& c) {
  using config::address_map_preset;
  const auto& o = c.organisation;
  const uint32_t byte_bits = log2_exact(c.bus_bits / 8);
  const uint32_t burst_bits = log2_exact(c.burst_length);
  const uint32_t col = log2_exact(o.columns), bg = log2_exact(o.bank_groups),
                 bank = log2_exact(o.banks_per_group), row = log2_exact(o.rows);
  lists l;
  uint32_t next = byte_bits;
  switch (c.address_map.preset) {
    case address_map_preset::k26_boot:
      // The K26 u-boot DDRC map: the column bits of one burst, then the bank
      // group, so consecutive bursts alternate groups; then the rest of the
      // column, the bank and the row.
      append_range(l.column, next, std::min(burst_bits, col));
      append_range(l.bank_group, next, bg);
      append_range(l.column, next, col - std::min(burst_bits, col));
      append_range(l.bank, next, bank);
      append_range(l.row, next, row);
      break;
    case address_map_preset::row_bank_column:
      append_range(l.column, next, col);
      append_range(l.bank, next, bank);
      append_range(l.bank_group, next, bg);
      append_range(l.row, next, row);
      break;
    case address_map_preset::bank_row_column:
      append_range(l.column, next, col);
      append_range(l.row, next, row);
      append_range(l.bank, next, bank);
      append_range(l.bank_group, next, bg);
      break;
    case address_map_preset::custom:
      l.bank_group = c.address_map.bank_group_bits;
      l.bank = c.address_map.bank_bits;
      l.row = c.address_map.row_bits;
      l.column = c.address_map.column_bits;
      break;
  }
  return l;
}

address_map::problem address_map::check(const config::ddr_config& c) {
  const auto& o = c.organisation;
  for (auto [name, v] : {std::pair{"organisation.bank_groups", o.bank_groups},
                         std::pair{"organisation.banks_per_group", o.banks_per_group},
                         std::pair{"organisation.rows", o.rows},
                         std::pair{"organisation.columns", o.columns},
                         std::pair{"burst_length", c.burst_length},
                         std::pair{"bus_bits / 8", c.bus_bits / 8}})
    if (!power_of_two(v))
    {
      std::string key = name;
      std::replace(key.begin(), key.end(), '.', '/');
      if (key.rfind("bus_bits", 0) == 0) key = "bus_bits";
      return {key, std::string(name) + " = " + std::to_string(v) + " is not a power of two"};
    }
  if (o.columns < c.burst_length)
    return {"organisation/columns", "a row of " + std::to_string(o.columns) +
                                        " columns is shorter than one burst of " +
                                        std::to_string(c.burst_length)};
  const lists l = resolve(c);
  const uint32_t byte_bits = log2_exact(c.bus_bits / 8);
  const uint32_t total = byte_bits + log2_exact(o.columns) + log2_exact(o.bank_groups) +
                         log2_exact(o.banks_per_group) + log2_exact(o.rows);
  struct field {
    const char* name;
    const std::vector<uint32_t>* bits;
    uint32_t want;
    const char* size_key;
  };
  const field fields[] = {
      {"bank_group_bits", &l.bank_group, log2_exact(o.bank_groups), "organisation.bank_groups"},
      {"bank_bits", &l.bank, log2_exact(o.banks_per_group), "organisation.banks_per_group"},
      {"row_bits", &l.row, log2_exact(o.rows), "organisation.rows"},
      {"column_bits", &l.column, log2_exact(o.columns), "organisation.columns"}};
  for (const field& f : fields)
    if (f.bits->size() != f.want)
      return {std::string("address_map/") + f.name,
              std::string("address_map.") + f.name + " has " + std::to_string(f.bits->size()) +
                  " bits, but " + f.size_key + " needs " + std::to_string(f.want)};
  std::vector<const char*> owner(64, nullptr);
  for (const field& f : fields)
    for (uint32_t b : *f.bits) {
      if (b < byte_bits || b >= 64)
        return {std::string("address_map/") + f.name,
                "bit " + std::to_string(b) + " is outside bits " + std::to_string(byte_bits) +
                    "..63 (bits 0.." + std::to_string(byte_bits - 1) + " select the byte of a " +
                    std::to_string(c.bus_bits) + "-bit bus word)"};
      if (owner[b])
        return {std::string("address_map/") + f.name,
                "address bit " + std::to_string(b) +
                    (owner[b] == f.name ? std::string(" appears twice in address_map.") + f.name
                                        : std::string(" is used by both address_map.") +
                                              owner[b] + " and address_map." + f.name)};
      owner[b] = f.name;
    }
  for (uint32_t b = byte_bits; b < total; ++b)
    if (!owner[b])
      return {"address_map/preset",
              "address bit " + std::to_string(b) + " selects nothing: the map must use bits " +
                  std::to_string(byte_bits) + ".." + std::to_string(total - 1) +
                  " once each to cover the rank's " + std::to_string(c.capacity_bytes()) +
                  " bytes"};
  // Within one burst the column bits must be the lowest ones, so a burst
  // is one row of one bank.
  const uint32_t burst_top = byte_bits + log2_exact(c.burst_length);
  for (uint32_t b = byte_bits; b < burst_top; ++b)
    if (owner[b] != fields[3].name)
      return {"address_map/column_bits",
              "address bit " + std::to_string(b) + " lies inside one " +
                  std::to_string(c.burst_bytes()) +
                  "-byte burst and must be a column bit, not one of " + owner[b]};
  return {};
}

address_map::address_map(const config::ddr_config& c) {
  const problem p = check(c);
  if (!p.message.empty()) throw std::invalid_argument("ddr." + p.key + ": " + p.message);
  lists l = resolve(c);
  bank_group_ = std::move(l.bank_group);
  bank_ = std::move(l.bank);
  row_ = std::move(l.row);
  column_ = std::move(l.column);
  bank_group_field_.set(bank_group_);
  bank_field_.set(bank_);
  row_field_.set(row_);
  column_field_.set(column_);
  uint32_t lowest = 64;
  for (uint32_t b : bank_) lowest = std::min(lowest, b);
  for (uint32_t b : row_) lowest = std::min(lowest, b);
  block_bytes_ = lowest >= 63 ? uint64_t{1} << 62 : uint64_t{1} << lowest;
}

uint32_t address_map::gather(uint64_t offset, const std::vector<uint32_t>& bits) {
  uint32_t v = 0;
  for (size_t i = 0; i < bits.size(); ++i) v |= static_cast<uint32_t>((offset >> bits[i]) & 1u) << i;
  return v;
}

void address_map::field::set(const std::vector<uint32_t>& b) {
  bits = b;
  consecutive = true;
  for (size_t i = 1; i < b.size(); ++i) consecutive = consecutive && b[i] == b[i - 1] + 1;
  shift = b.empty() ? 0 : b.front();
  mask = b.empty() ? 0 : (b.size() >= 64 ? ~uint64_t{0} : (uint64_t{1} << b.size()) - 1);
}

dram_coordinates address_map::decode(uint64_t offset) const {
  return {bank_group_field_.of(offset), bank_field_.of(offset), row_field_.of(offset),
          column_field_.of(offset)};
}

std::string address_map::describe() const {
  std::string s = "bank group " + ranges(bank_group_) + ", bank " + ranges(bank_) + ", row " +
                  ranges(row_) + ", column " + ranges(column_);
  return s;
}

}  // namespace pccx::mem
