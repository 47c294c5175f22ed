#include <gtest/gtest.h>

#include "models/npu/core/constant_cache.h"
#include "npu_bench.h"

using namespace pccx;
using namespace pccx::test;

namespace {
const std::array<std::string, 4> kNames{"fmap_shape", "weight_shape", "head_scale",
                                        "channel_scale"};
}

TEST(ConstantCache, UnwrittenSlotsReadAsNothing) {
  npu::constant_cache cache(64, kNames, 0x0F);
  for (uint32_t bank = 0; bank < 4; ++bank)
    for (uint32_t slot = 0; slot < 64; ++slot) EXPECT_FALSE(cache.read(bank, slot));
}

TEST(ConstantCache, WriteThenReadEveryBankAndSlot) {
  npu::constant_cache cache(64, kNames, 0x0F);
  for (uint32_t bank = 0; bank < 4; ++bank)
    for (uint32_t slot = 0; slot < 64; ++slot)
      cache.write(bank, slot,
                  {static_cast<uint16_t>(bank), static_cast<uint16_t>(slot),
                   static_cast<uint16_t>(bank * 64 + slot)});
  for (uint32_t bank = 0; bank < 4; ++bank)
    for (uint32_t slot = 0; slot < 64; ++slot) {
      auto v = cache.read(bank, slot);
      ASSERT_TRUE(v);
      EXPECT_EQ((*v)[0], bank);
      EXPECT_EQ((*v)[1], slot);
      EXPECT_EQ((*v)[2], bank * 64 + slot);
    }
  EXPECT_EQ(cache.writes(), 256u);
}

TEST(ConstantCache, OverwriteKeepsLatestValue) {
  npu::constant_cache cache(64, kNames, 0x0F);
  cache.write(1, 7, {1, 2, 3});
  cache.write(1, 7, {4, 5, 6});
  EXPECT_EQ(*cache.read(1, 7), (npu::constant_cache::triple{4, 5, 6}));
  EXPECT_FALSE(cache.read(0, 7));  // banks are separate
}

TEST(ConstantCache, DisabledBankAndSlotBeyondSizeAreRejected) {
  npu::constant_cache cache(16, kNames, 0x03);
  EXPECT_FALSE(cache.bank_enabled(2));
  EXPECT_THROW(cache.write(2, 0, {1, 1, 1}), std::out_of_range);
  EXPECT_THROW(cache.write(0, 16, {1, 1, 1}), std::out_of_range);
  EXPECT_FALSE(cache.read(0, 16));
}

TEST(ConstantCache, MemsetThroughTheNpuWritesTheSlot) {
  npu_bench b;
  b.run([](mmio_master& m) {
    m.issue(memset_word(1, 42, 1, 2048, 256));
    m.issue(memset_word(3, 63, 0x3F80, 0x4000, 0x4040));
    m.wait_not_busy();
  });
  auto v = b.dut->cache().read(1, 42);
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, (npu::constant_cache::triple{1, 2048, 256}));
  EXPECT_EQ(*b.dut->cache().read(3, 63), (npu::constant_cache::triple{0x3F80, 0x4000, 0x4040}));
  EXPECT_FALSE(b.dut->cache().read(0, 42));
  EXPECT_EQ(b.dut->cmd().retired(), 2u);
}

TEST(ConstantCache, ShapesAreResolvedForTheUnitAtIssue) {
  npu_bench b;
  auto& gemv = b.add_unit(npu::unit_kind::gemv, 10);
  b.run([](mmio_master& m) {
    m.issue(memset_word(0, 3, 1, 1, 2048));    // activations: 2048 elements
    m.issue(memset_word(1, 4, 1, 512, 2048));  // weights: M=1, N=512, K=2048
    m.issue(gemv_word(0x1000, 0x20, 3, 4));
    m.issue(memset_word(1, 4, 9, 9, 9));  // later rewrite must not affect the GEMV
    m.wait_not_busy();
  });
  ASSERT_EQ(gemv.runs.size(), 1u);
  const auto& d = gemv.runs[0].d;
  EXPECT_EQ(d.shape, (std::array<uint16_t, 3>{1, 512, 2048}));
  EXPECT_EQ(d.size, (std::array<uint16_t, 3>{1, 1, 2048}));
  ASSERT_EQ(d.reads.size(), 1u);
  EXPECT_EQ(d.reads[0].first, 0x20u);
  EXPECT_EQ(d.reads[0].words, 256u);  // 2048 BF16 / 8 per word
  ASSERT_EQ(d.writes.size(), 1u);
  EXPECT_EQ(d.writes[0].first, 0x1000u);
  EXPECT_EQ(d.writes[0].words, 64u);  // 512 outputs / 8
}
