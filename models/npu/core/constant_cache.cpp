#include "models/npu/core/constant_cache.h"

#include <stdexcept>

namespace pccx::npu {

constant_cache::constant_cache(uint32_t slots, std::array<std::string, kBanks> bank_names,
                               uint8_t enabled_banks)
    : slots_(slots), names_(std::move(bank_names)), enabled_(enabled_banks) {
  for (uint32_t b = 0; b < kBanks; ++b)
    if (bank_enabled(b)) banks_[b].resize(slots_);
}

namespace {

std::array<std::string, constant_cache::kBanks> names_of(const config::constant_cache_config& c) {
  std::array<std::string, constant_cache::kBanks> names;
  for (size_t b = 0; b < c.banks.size() && b < names.size(); ++b) names[b] = c.banks[b].name;
  return names;
}

uint8_t enabled_of(const config::constant_cache_config& c) {
  uint8_t mask = 0;
  for (size_t b = 0; b < c.banks.size() && b < constant_cache::kBanks; ++b)
    if (c.banks[b].enabled) mask |= static_cast<uint8_t>(1u << b);
  return mask;
}

}  // namespace

constant_cache::constant_cache(const config::constant_cache_config& section)
    : constant_cache(section.slots, names_of(section), enabled_of(section)) {}

bool constant_cache::bank_enabled(uint32_t bank) const {
  return bank < kBanks && (enabled_ >> bank) & 1u;
}

void constant_cache::write(uint32_t bank, uint32_t slot, const triple& value) {
  // The decoder rejects absent banks and slots; reaching here with one is a model bug.
  if (!bank_enabled(bank) || slot >= slots_)
    throw std::out_of_range("constant cache write to bank " + std::to_string(bank) + " slot " +
                            std::to_string(slot));
  banks_[bank][slot] = {value, true};
  ++writes_;
}

std::optional<constant_cache::triple> constant_cache::read(uint32_t bank, uint32_t slot) const {
  if (!bank_enabled(bank) || slot >= slots_) return std::nullopt;
  const slot_state& s = banks_[bank][slot];
  if (!s.written) return std::nullopt;
  return s.value;
}

}  // namespace pccx::npu
