// The constant cache: up to four banks of 64 slots, each slot three 16-bit
// values written by MEMSET. Bank 0 holds fmap shapes, bank 1 weight shapes,
// banks 2 and 3 the static scales of the KV datapath. A slot remembers
// whether it was ever written so that reading a stale slot is an error.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/npu/npu_config.h"

namespace pccx::npu {

class constant_cache {
 public:
  using triple = std::array<uint16_t, 3>;
  static constexpr uint32_t kBanks = 4;

  constant_cache(uint32_t slots, std::array<std::string, kBanks> bank_names, uint8_t enabled_banks);
  // From its configuration section (npu.constant_cache).
  explicit constant_cache(const config::constant_cache_config& section);

  uint32_t slots() const { return slots_; }
  bool bank_enabled(uint32_t bank) const;
  const std::string& bank_name(uint32_t bank) const { return names_.at(bank); }

  void write(uint32_t bank, uint32_t slot, const triple& value);
  // The slot's value, or nothing when it was never written.
  std::optional<triple> read(uint32_t bank, uint32_t slot) const;
  uint64_t writes() const { return writes_; }

 private:
  struct slot_state {
    triple value{};
    bool written = false;
  };
  uint32_t slots_;
  std::array<std::string, kBanks> names_;
  uint8_t enabled_;
  std::array<std::vector<slot_state>, kBanks> banks_;
  uint64_t writes_ = 0;
};

}  // namespace pccx::npu
