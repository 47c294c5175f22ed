// The address map (ddr.address_map): presets decode as the K26 u-boot DDRC
// map and its alternatives, custom maps are checked bit by bit.
#include <gtest/gtest.h>

#include "models/memory/ddr/dram/address_map.h"

using namespace pccx;

namespace {
config::ddr_config with_preset(config::address_map_preset p) {
  config::ddr_config c;
  c.address_map.preset = p;
  return c;
}
}  // namespace

// K26 boot map: byte 0-2, column 3-5, bank group 6, column 7-13, bank
// 14-15, row 16-31 (the u-boot DDRC ADDRMAP registers).
TEST(AddressMap, K26BootMapDecodesAsUBootProgramsIt) {
  const mem::address_map m(with_preset(config::address_map_preset::k26_boot));
  EXPECT_EQ(m.describe(), "bank group 6, bank 14-15, row 16-31, column 3-5 7-13");
  EXPECT_EQ(m.block_bytes(), 16384u);  // bank bit 14: one row of one bank per 16 KiB
  EXPECT_EQ(m.decode(0x40).bank_group, 1u);   // the second burst: the other group
  EXPECT_EQ(m.decode(0x80).bank_group, 0u);
  EXPECT_EQ(m.decode(0x80).column, 8u);       // column bits 3-5 then 7-13
  EXPECT_EQ(m.decode(0x4000).bank, 1u);
  EXPECT_EQ(m.decode(0x10000).row, 1u);
  const auto c = m.decode(0xFFFFFFC0ull);
  EXPECT_EQ(c.row, 65535u);
  EXPECT_EQ(c.bank, 3u);
  EXPECT_EQ(c.bank_group, 1u);
  EXPECT_EQ(c.column, 1016u);
}

TEST(AddressMap, RowBankColumnKeepsAWholeRowInOneBankGroup) {
  const mem::address_map m(with_preset(config::address_map_preset::row_bank_column));
  EXPECT_EQ(m.describe(), "bank group 15, bank 13-14, row 16-31, column 3-12");
  EXPECT_EQ(m.decode(0x40).bank_group, 0u);  // consecutive bursts: the same group
  EXPECT_EQ(m.decode(0x2000).bank, 1u);
  EXPECT_EQ(m.decode(0x8000).bank_group, 1u);
}

TEST(AddressMap, BankRowColumnPutsTheBankOnTop) {
  const mem::address_map m(with_preset(config::address_map_preset::bank_row_column));
  EXPECT_EQ(m.describe(), "bank group 31, bank 29-30, row 13-28, column 3-12");
  EXPECT_EQ(m.decode(0x2000).row, 1u);
  EXPECT_EQ(m.decode(0x20000000).bank, 1u);
}

TEST(AddressMap, CustomMapsAreCheckedBitByBit) {
  config::ddr_config c = with_preset(config::address_map_preset::custom);
  c.address_map.bank_group_bits = {6};
  c.address_map.bank_bits = {14, 15};
  c.address_map.column_bits = {3, 4, 5, 7, 8, 9, 10, 11, 12, 13};
  for (uint32_t b = 16; b < 32; ++b) c.address_map.row_bits.push_back(b);
  EXPECT_EQ(mem::address_map::check(c).message, "");
  EXPECT_EQ(mem::address_map(c).describe(), "bank group 6, bank 14-15, row 16-31, column 3-5 7-13");

  config::ddr_config twice = c;
  twice.address_map.bank_bits = {14, 16};
  const auto p = mem::address_map::check(twice);
  EXPECT_EQ(p.key, "address_map/row_bits");
  EXPECT_EQ(p.message, "address bit 16 is used by both address_map.bank_bits and address_map.row_bits");

  config::ddr_config gap = c;
  gap.address_map.bank_bits = {14, 40};
  EXPECT_EQ(mem::address_map::check(gap).message,
            "address bit 15 selects nothing: the map must use bits 3..31 once each to cover the "
            "rank's 4294967296 bytes");

  config::ddr_config short_list = c;
  short_list.address_map.bank_bits = {14};
  EXPECT_EQ(mem::address_map::check(short_list).message,
            "address_map.bank_bits has 1 bits, but organisation.banks_per_group needs 2");

  config::ddr_config in_burst = c;
  in_burst.address_map.bank_group_bits = {4};
  in_burst.address_map.column_bits = {3, 5, 6, 7, 8, 9, 10, 11, 12, 13};
  EXPECT_EQ(mem::address_map::check(in_burst).message,
            "address bit 4 lies inside one 64-byte burst and must be a column bit, not one of "
            "bank_group_bits");
  EXPECT_THROW(mem::address_map{in_burst}, std::invalid_argument);
}
