// Which bits of a DDR byte address select the bank group, bank, row and
// column (ddr.address_map), and the decode of an address into them.
//
// The map is resolved once from its preset or its custom bit lists. For the
// DRAM model's closed-form cost it also tells how long a run of consecutive
// addresses stays within one row of one bank: `block_bytes` is 2 to the
// lowest bank or row bit, so inside an aligned block only the column and
// the bank-group bits below that bit change.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/memory/ddr/ddr_config.h"

namespace pccx::mem {

struct dram_coordinates {
  uint32_t bank_group = 0;
  uint32_t bank = 0;  // within its group
  uint32_t row = 0;
  uint32_t column = 0;
};

class address_map {
 public:
  // Resolves the preset or the custom lists; throws std::invalid_argument
  // with the problem (see check()) when they do not form a map.
  explicit address_map(const config::ddr_config& c);

  // What is wrong with the map the configuration resolves to (a bit used
  // twice, a bit of the rank's capacity left out, a list whose length does
  // not match the organisation), and the key under ddr it concerns. An
  // empty message = a valid map.
  struct problem {
    std::string key;  // e.g. "address_map/bank_bits"
    std::string message;
  };
  static problem check(const config::ddr_config& c);

  dram_coordinates decode(uint64_t offset) const;
  // Bank group, bank and row only (column 0): what the DRAM model needs.
  dram_coordinates locate(uint64_t offset) const {
    return {bank_group_field_.of(offset), bank_field_.of(offset), row_field_.of(offset), 0};
  }
  uint32_t bank_group_of(uint64_t offset) const { return bank_group_field_.of(offset); }

  uint64_t block_bytes() const { return block_bytes_; }
  const std::vector<uint32_t>& bank_group_bits() const { return bank_group_; }
  const std::vector<uint32_t>& bank_bits() const { return bank_; }
  const std::vector<uint32_t>& row_bits() const { return row_; }
  const std::vector<uint32_t>& column_bits() const { return column_; }
  // "bank group 6, bank 14-15, row 16-31, column 3-5 7-13"
  std::string describe() const;

 private:
  struct lists {
    std::vector<uint32_t> bank_group, bank, row, column;
  };
  static lists resolve(const config::ddr_config& c);
  static uint32_t gather(uint64_t offset, const std::vector<uint32_t>& bits);
  // A field's bits; consecutive ones (every preset's bank group, bank and
  // row) are taken with one shift and mask.
  struct field {
    std::vector<uint32_t> bits;  // own copy: the map is copied by value
    bool consecutive = false;
    uint32_t shift = 0;
    uint64_t mask = 0;
    void set(const std::vector<uint32_t>& b);
    uint32_t of(uint64_t offset) const {
      return consecutive ? static_cast<uint32_t>((offset >> shift) & mask) : gather(offset, bits);
    }
  };

  std::vector<uint32_t> bank_group_, bank_, row_, column_;
  field bank_group_field_, bank_field_, row_field_, column_field_;
  uint64_t block_bytes_ = 0;
};

}  // namespace pccx::mem
