// pccx_kv_submit_stream: the register writes it makes on the DMA channel
// page (CLASS, then ADDR_LO, ADDR_HI, BYTES, PUSH per segment), recorded by
// recording_hal.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kv_reference.h"
#include "pccx_dma.h"
#include "pccx_kv.h"
#include "recording_hal.h"

using namespace kvdrv;

namespace {

// A DDR base above 4 GiB, so ADDR_HI carries something.
constexpr uint64_t kBase = 0x1'2000'0000ull;

struct descriptor {
  uint64_t addr;
  uint32_t bytes;
  uint32_t tag;
};

// Decodes the recorded writes of one channel: the CLASS value (-1 if not
// written first) and the descriptors pushed.
void decode(unsigned ch, int* cls, std::vector<descriptor>* out) {
  const auto& w = hal_writes();
  *cls = -1;
  size_t i = 0;
  if (!w.empty() && w[0].offset == PCCX_DMA_REG(ch, PCCX_DMA_REG_CLASS)) {
    *cls = int(w[0].value);
    i = 1;
  }
  for (; i + 4 <= w.size(); i += 4) {
    ASSERT_EQ(w[i].offset, PCCX_DMA_REG(ch, PCCX_DMA_REG_ADDR_LO));
    ASSERT_EQ(w[i + 1].offset, PCCX_DMA_REG(ch, PCCX_DMA_REG_ADDR_HI));
    ASSERT_EQ(w[i + 2].offset, PCCX_DMA_REG(ch, PCCX_DMA_REG_BYTES));
    ASSERT_EQ(w[i + 3].offset, PCCX_DMA_REG(ch, PCCX_DMA_REG_PUSH));
    out->push_back({(uint64_t(w[i + 1].value) << 32) | w[i].value, w[i + 2].value, w[i + 3].value});
  }
  ASSERT_EQ(i, w.size()) << "stray register writes";
}

}  // namespace

TEST(KvDma, WrappedStreamIsTwoDescriptorsWithTheKvReadClass) {
  // The worked example: cap 8, 4 sinks, 11 tokens; layer 1, head 1 of 2.
  kv_pair c(2, 2, 32, 64, kBase, 8, 4, 0);
  ASSERT_EQ(c.init_result, PCCX_KV_OK);
  c.append(11);
  const uint64_t head = 8ull * (32 + 64);
  const uint64_t k_base = kBase + (1 * 2 + 1) * head;
  const uint64_t v_base = k_base + 8 * 32;

  for (int v = 0; v < 2; ++v) {
    SCOPED_TRACE(v ? "V" : "K");
    const unsigned ch = v ? PCCX_DMA_HP3 : PCCX_DMA_HP1;
    const uint32_t rec = v ? 64 : 32;
    const uint64_t base = v ? v_base : k_base;
    hal_reset();
    unsigned descriptors = 99;
    int64_t bytes = pccx_kv_submit_stream(&c.kv, 1, 1, v, ch, 9, &descriptors);
    EXPECT_EQ(bytes, int64_t(8 * rec));
    EXPECT_EQ(descriptors, 2u);
    int cls = 0;
    std::vector<descriptor> d;
    decode(ch, &cls, &d);
    EXPECT_EQ(cls, int(PCCX_DMA_CLASS_KV_READ));
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(d[0].addr, base + 7 * rec);
    EXPECT_EQ(d[0].bytes, rec);
    EXPECT_EQ(d[1].addr, base);
    EXPECT_EQ(d[1].bytes, 7 * rec);
    EXPECT_EQ(d[0].tag, 9u);
    EXPECT_EQ(d[1].tag, 9u);
  }
}

TEST(KvDma, DescriptorsMatchTheSegments) {
  kv_pair c(1, 3, 16, 48, kBase, 12, 2, 5);
  ASSERT_EQ(c.init_result, PCCX_KV_OK);
  for (uint32_t n = 1; n <= 30; ++n) {
    SCOPED_TRACE("n " + std::to_string(n));
    c.append();
    for (int v = 0; v < 2; ++v) {
      pccx_kv_segment s[2];
      int count = pccx_kv_segments(&c.kv, 0, 2, v, s);
      ASSERT_GE(count, 1);
      hal_reset();
      unsigned descriptors = 0;
      int64_t bytes = pccx_kv_submit_stream(&c.kv, 0, 2, v, PCCX_DMA_HP0, 0, &descriptors);
      int cls = 0;
      std::vector<descriptor> d;
      decode(PCCX_DMA_HP0, &cls, &d);
      EXPECT_EQ(cls, int(PCCX_DMA_CLASS_KV_READ));
      ASSERT_EQ(d.size(), size_t(count));
      EXPECT_EQ(descriptors, unsigned(count));
      int64_t sum = 0;
      for (int i = 0; i < count; ++i) {
        EXPECT_EQ(d[i].addr, s[i].addr);
        EXPECT_EQ(d[i].bytes, s[i].bytes);
        EXPECT_EQ(d[i].addr % 16, 0u);
        EXPECT_EQ(d[i].bytes % 16, 0u);
        sum += s[i].bytes;
      }
      EXPECT_EQ(bytes, sum);
      EXPECT_EQ(bytes, int64_t(pccx_kv_valid_tokens(&c.kv)) * (v ? 48 : 16));
    }
  }
}

TEST(KvDma, EmptyStreamWritesNothing) {
  kv_pair c(1, 1, 16, 16, kBase, 8, 4, 0);
  ASSERT_EQ(c.init_result, PCCX_KV_OK);
  hal_reset();
  unsigned descriptors = 7;
  EXPECT_EQ(pccx_kv_submit_stream(&c.kv, 0, 0, PCCX_KV_K, PCCX_DMA_HP2, 1, &descriptors), 0);
  EXPECT_EQ(descriptors, 0u);
  EXPECT_TRUE(hal_writes().empty());
}

TEST(KvDma, BadArgumentsWriteNothing) {
  kv_pair c(1, 1, 16, 16, kBase, 8, 4, 0);
  ASSERT_EQ(c.init_result, PCCX_KV_OK);
  c.append(3);
  hal_reset();
  unsigned descriptors = 7;
  EXPECT_EQ(pccx_kv_submit_stream(&c.kv, 0, 0, PCCX_KV_K, PCCX_DMA_ACP_FMAP, 1, &descriptors),
            PCCX_KV_E_CHANNEL);
  EXPECT_EQ(descriptors, 0u);
  EXPECT_EQ(pccx_kv_submit_stream(&c.kv, 0, 0, PCCX_KV_K, 6, 1, nullptr), PCCX_KV_E_CHANNEL);
  EXPECT_EQ(pccx_kv_submit_stream(&c.kv, 0, 0, PCCX_KV_K, PCCX_DMA_HP0, 16, nullptr),
            PCCX_KV_E_ARG);
  EXPECT_EQ(pccx_kv_submit_stream(&c.kv, 1, 0, PCCX_KV_K, PCCX_DMA_HP0, 1, nullptr),
            PCCX_KV_E_RANGE);
  EXPECT_EQ(pccx_kv_submit_stream(nullptr, 0, 0, PCCX_KV_K, PCCX_DMA_HP0, 1, nullptr),
            PCCX_KV_E_ARG);
  EXPECT_TRUE(hal_writes().empty());
}

// The split for the GEMV's two weight FIFOs: the worked example's stream
// order is positions 7, 0, 1, 2, 3, 8, 9, 10 (slot 7, then slots 0..6).
// Tokens 0..3 go to HP2 (slot 7, then slots 0..2: two descriptors), tokens
// 4..7 to HP3 (slots 3..6: one descriptor).
TEST(KvDma, SplitStreamFeedsEachChannelAContiguousPart) {
  kv_pair c(1, 1, 32, 64, kBase, 8, 4, 0);
  ASSERT_EQ(c.init_result, PCCX_KV_OK);
  c.append(11);
  const unsigned channels[2] = {PCCX_DMA_HP2, PCCX_DMA_HP3};
  hal_reset();
  unsigned descriptors[2] = {9, 9};
  const int64_t bytes =
      pccx_kv_submit_stream_split(&c.kv, 0, 0, PCCX_KV_K, channels, 2, 5, descriptors);
  EXPECT_EQ(bytes, 8 * 32);
  EXPECT_EQ(descriptors[0], 2u);
  EXPECT_EQ(descriptors[1], 1u);
  // CLASS + 2 descriptors on HP2, then CLASS + 1 descriptor on HP3.
  const auto& w = hal_writes();
  ASSERT_EQ(w.size(), 1u + 8 + 1 + 4);
  EXPECT_EQ(w[0].offset, PCCX_DMA_REG(PCCX_DMA_HP2, PCCX_DMA_REG_CLASS));
  EXPECT_EQ(w[0].value, PCCX_DMA_CLASS_KV_READ);
  auto desc = [&](size_t i, unsigned ch) {
    EXPECT_EQ(w[i].offset, PCCX_DMA_REG(ch, PCCX_DMA_REG_ADDR_LO));
    EXPECT_EQ(w[i + 3].offset, PCCX_DMA_REG(ch, PCCX_DMA_REG_PUSH));
    return descriptor{(uint64_t(w[i + 1].value) << 32) | w[i].value, w[i + 2].value,
                      w[i + 3].value};
  };
  const descriptor a = desc(1, PCCX_DMA_HP2), b = desc(5, PCCX_DMA_HP2);
  EXPECT_EQ(a.addr, kBase + 7 * 32);
  EXPECT_EQ(a.bytes, 32u);
  EXPECT_EQ(b.addr, kBase);
  EXPECT_EQ(b.bytes, 3u * 32);
  EXPECT_EQ(w[9].offset, PCCX_DMA_REG(PCCX_DMA_HP3, PCCX_DMA_REG_CLASS));
  const descriptor d = desc(10, PCCX_DMA_HP3);
  EXPECT_EQ(d.addr, kBase + 3 * 32);
  EXPECT_EQ(d.bytes, 4u * 32);
  EXPECT_EQ(d.tag, 5u);

  // Bad arguments are refused before any register write.
  hal_reset();
  const unsigned bad[2] = {PCCX_DMA_HP2, PCCX_DMA_ACP_FMAP};
  EXPECT_EQ(pccx_kv_submit_stream_split(&c.kv, 0, 0, PCCX_KV_K, bad, 2, 5, nullptr),
            PCCX_KV_E_CHANNEL);
  EXPECT_EQ(pccx_kv_submit_stream_split(&c.kv, 0, 0, PCCX_KV_K, channels, 0, 5, nullptr),
            PCCX_KV_E_ARG);
  EXPECT_TRUE(hal_writes().empty());
}
