// Configuration checks, the DDR layout, error codes and their names.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kv_reference.h"
#include "pccx_kv.h"

using namespace kvdrv;

namespace {

constexpr uint64_t kBase = 0x20000000ull;

pccx_kv_handle configured(uint32_t layers, uint32_t heads, uint32_t kb, uint32_t vb, uint64_t base,
                          uint64_t size) {
  pccx_kv_handle kv;
  std::memset(&kv, 0xA5, sizeof kv);  // configure must set every field
  EXPECT_EQ(pccx_kv_configure(&kv, layers, heads, kb, vb, base, size), PCCX_KV_OK);
  return kv;
}

}  // namespace

TEST(KvLayout, RequiredBytes) {
  EXPECT_EQ(pccx_kv_required_bytes(26, 4, 272, 272, 8192), 26ull * 4 * 8192 * 544);
  EXPECT_EQ(pccx_kv_required_bytes(1, 1, 16, 32, 1), 48u);
  EXPECT_EQ(pccx_kv_required_bytes(0, 4, 16, 16, 8), 0u);
  // Beyond 64 bits: saturates.
  EXPECT_EQ(pccx_kv_required_bytes(0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFF0u, 0xFFFFFFF0u, 0xFFFFFFFFu),
            UINT64_MAX);
}

TEST(KvLayout, DdrRegionTooSmallIsAnInitErrorWithAComputableSize) {
  const uint64_t need = pccx_kv_required_bytes(3, 2, 64, 32, 100);
  ASSERT_EQ(need, 3ull * 2 * 100 * 96);
  pccx_kv_handle kv = configured(3, 2, 64, 32, kBase, need - 1);
  EXPECT_EQ(pccx_kv_init(&kv, 100), PCCX_KV_E_NO_SPACE);
  EXPECT_EQ(kv.ready, 0u);
  EXPECT_EQ(pccx_kv_max_tokens(&kv), 0u);
  kv.ddr_size = need;
  EXPECT_EQ(pccx_kv_init(&kv, 100), PCCX_KV_OK);
  EXPECT_EQ(pccx_kv_max_tokens(&kv), 100u);
  // A failed re-init leaves the handle not ready.
  EXPECT_EQ(pccx_kv_init(&kv, 101), PCCX_KV_E_NO_SPACE);
  EXPECT_EQ(pccx_kv_append_token(&kv, nullptr), PCCX_KV_E_NOT_READY);
}

TEST(KvLayout, SinksMustBeBelowTheCap) {
  pccx_kv_handle kv = configured(1, 1, 16, 16, kBase, 1 << 20);
  ASSERT_EQ(pccx_kv_set_sinks(&kv, 8), PCCX_KV_OK);
  EXPECT_EQ(pccx_kv_init(&kv, 8), PCCX_KV_E_SINKS);
  ASSERT_EQ(pccx_kv_set_sinks(&kv, 9), PCCX_KV_OK);
  EXPECT_EQ(pccx_kv_init(&kv, 8), PCCX_KV_E_SINKS);
  ASSERT_EQ(pccx_kv_set_sinks(&kv, 7), PCCX_KV_OK);
  EXPECT_EQ(pccx_kv_init(&kv, 8), PCCX_KV_OK);
  // The default 4 sinks need a cap of at least 5.
  kv = configured(1, 1, 16, 16, kBase, 1 << 20);
  EXPECT_EQ(pccx_kv_init(&kv, 4), PCCX_KV_E_SINKS);
  EXPECT_EQ(pccx_kv_init(&kv, 5), PCCX_KV_OK);
}

TEST(KvLayout, ConfigurationErrors) {
  pccx_kv_handle kv;
  EXPECT_EQ(pccx_kv_init(nullptr, 8), PCCX_KV_E_ARG);
  EXPECT_EQ(pccx_kv_configure(nullptr, 1, 1, 16, 16, 0, 0), PCCX_KV_E_ARG);

  kv = configured(0, 1, 16, 16, kBase, 1 << 20);
  EXPECT_EQ(pccx_kv_init(&kv, 8), PCCX_KV_E_SHAPE);
  kv = configured(1, 0, 16, 16, kBase, 1 << 20);
  EXPECT_EQ(pccx_kv_init(&kv, 8), PCCX_KV_E_SHAPE);

  const std::vector<std::pair<uint32_t, uint32_t>> bad_records = {
      {0, 16}, {16, 0}, {24, 16}, {16, 8}, {17, 32}};
  for (const auto& rec : bad_records) {
    kv = configured(1, 1, rec.first, rec.second, kBase, 1 << 20);
    EXPECT_EQ(pccx_kv_init(&kv, 8), PCCX_KV_E_RECORD) << rec.first << " " << rec.second;
  }

  kv = configured(1, 1, 16, 16, kBase, 1 << 20);
  EXPECT_EQ(pccx_kv_init(&kv, 0), PCCX_KV_E_CAP);

  kv = configured(1, 1, 16, 16, kBase + 8, 1 << 20);
  EXPECT_EQ(pccx_kv_init(&kv, 8), PCCX_KV_E_REGION);
  kv = configured(1, 1, 16, 16, 0xFFFFFFFFFFFF0000ull, 0x20000);
  EXPECT_EQ(pccx_kv_init(&kv, 8), PCCX_KV_E_REGION);
  kv = configured(1, 1, 16, 16, 0xFFFFFFFFFFFF0000ull, 0xFFFF);  // last byte 2^64 - 1
  EXPECT_EQ(pccx_kv_init(&kv, 8), PCCX_KV_OK);

  // One V stream of 2^28 records of 32 bytes is 8 GiB: more than a descriptor.
  kv = configured(1, 1, 16, 32, 0, UINT64_MAX);
  EXPECT_EQ(pccx_kv_init(&kv, 1u << 28), PCCX_KV_E_STREAM);
  // 0xFFFFFFF0 bytes exactly is the largest stream.
  kv = configured(1, 1, 16, 16, 0, UINT64_MAX);
  EXPECT_EQ(pccx_kv_init(&kv, 0x0FFFFFFFu), PCCX_KV_OK);
  EXPECT_EQ(uint64_t(0x0FFFFFFFu) * 16, uint64_t(PCCX_KV_STREAM_MAX));
}

TEST(KvLayout, CallsOnAHandleThatIsNotReady) {
  pccx_kv_handle kv = configured(1, 1, 16, 16, kBase, 1 << 20);
  pccx_kv_segment s[2];
  uint64_t a = 0;
  uint32_t p = 0;
  EXPECT_EQ(pccx_kv_append_token(&kv, &p), PCCX_KV_E_NOT_READY);
  EXPECT_EQ(pccx_kv_append_slot(&kv, 0, 0, PCCX_KV_K, &a), PCCX_KV_E_NOT_READY);
  EXPECT_EQ(pccx_kv_slot_addr(&kv, 0, 0, PCCX_KV_K, 0, &a), PCCX_KV_E_NOT_READY);
  EXPECT_EQ(pccx_kv_segments(&kv, 0, 0, PCCX_KV_K, s), PCCX_KV_E_NOT_READY);
  EXPECT_EQ(pccx_kv_stream_position(&kv, 0, &p), PCCX_KV_E_NOT_READY);
  EXPECT_EQ(pccx_kv_evict(&kv, 0), PCCX_KV_E_NOT_READY);
  EXPECT_EQ(pccx_kv_reset(&kv), PCCX_KV_E_NOT_READY);
  EXPECT_EQ(pccx_kv_submit_stream(&kv, 0, 0, PCCX_KV_K, 0, 0, nullptr), PCCX_KV_E_NOT_READY);
  EXPECT_EQ(pccx_kv_tokens(&kv), 0u);
  EXPECT_EQ(pccx_kv_valid_tokens(&kv), 0u);
  EXPECT_EQ(pccx_kv_max_tokens(&kv), 0u);
  EXPECT_EQ(pccx_kv_tokens(nullptr), 0u);
  EXPECT_EQ(pccx_kv_sinks(nullptr), 0u);
}

TEST(KvLayout, BadSelectorsAndPointers) {
  kv_pair c(2, 3, 16, 16, kBase, 8, 4, 0);
  ASSERT_EQ(c.init_result, PCCX_KV_OK);
  c.append(2);
  pccx_kv_segment s[2];
  uint64_t a = 0;
  uint32_t p = 0;
  EXPECT_EQ(pccx_kv_segments(&c.kv, 2, 0, PCCX_KV_K, s), PCCX_KV_E_RANGE);
  EXPECT_EQ(pccx_kv_segments(&c.kv, 0, 3, PCCX_KV_K, s), PCCX_KV_E_RANGE);
  EXPECT_EQ(pccx_kv_segments(&c.kv, 0, 0, 2, s), PCCX_KV_E_ARG);
  EXPECT_EQ(pccx_kv_segments(&c.kv, 0, 0, -1, s), PCCX_KV_E_ARG);
  EXPECT_EQ(pccx_kv_segments(&c.kv, 0, 0, PCCX_KV_V, nullptr), PCCX_KV_E_ARG);
  EXPECT_EQ(pccx_kv_append_slot(&c.kv, 0, 3, PCCX_KV_V, &a), PCCX_KV_E_RANGE);
  EXPECT_EQ(pccx_kv_append_slot(&c.kv, 0, 0, PCCX_KV_V, nullptr), PCCX_KV_E_ARG);
  EXPECT_EQ(pccx_kv_slot_addr(&c.kv, 1, 2, PCCX_KV_V, 2, &a), PCCX_KV_E_NOT_VALID);
  EXPECT_EQ(pccx_kv_stream_position(&c.kv, 0, nullptr), PCCX_KV_E_ARG);
  EXPECT_EQ(pccx_kv_stream_position(nullptr, 0, &p), PCCX_KV_E_ARG);
  EXPECT_EQ(pccx_kv_evict(nullptr, 0), PCCX_KV_E_ARG);
}

// Every stream's K and V arrays: where the test expects them, disjoint, and
// together exactly the required bytes from ddr_base.
TEST(KvLayout, StreamsTileTheRegion) {
  const uint32_t L = 3, H = 2, kb = 48, vb = 80, cap = 10;
  kv_pair c(L, H, kb, vb, kBase, cap, 2, 0);
  ASSERT_EQ(c.init_result, PCCX_KV_OK);
  c.append(cap);  // every slot written once: slot s holds position s
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (uint32_t l = 0; l < L; ++l) {
    for (uint32_t h = 0; h < H; ++h) {
      for (int v = 0; v < 2; ++v) {
        const uint32_t rec = v ? vb : kb;
        const uint64_t expect = kBase + uint64_t(l) * H * cap * (kb + vb) +
                                uint64_t(h) * cap * (kb + vb) + (v ? uint64_t(cap) * kb : 0);
        for (uint32_t p = 0; p < cap; ++p) {
          uint64_t a = 0;
          ASSERT_EQ(pccx_kv_slot_addr(&c.kv, l, h, v, p, &a), PCCX_KV_OK);
          EXPECT_EQ(a, expect + uint64_t(p) * rec);
        }
        pccx_kv_segment s[2];
        ASSERT_EQ(pccx_kv_segments(&c.kv, l, h, v, s), 1);
        EXPECT_EQ(s[0].addr, expect);
        EXPECT_EQ(s[0].bytes, cap * rec);
        ranges.push_back({s[0].addr, s[0].addr + s[0].bytes});
      }
    }
  }
  std::sort(ranges.begin(), ranges.end());
  EXPECT_EQ(ranges.front().first, kBase);
  for (size_t i = 1; i < ranges.size(); ++i) EXPECT_EQ(ranges[i].first, ranges[i - 1].second);
  EXPECT_EQ(ranges.back().second - kBase, pccx_kv_required_bytes(L, H, kb, vb, cap));
  check_streams(c.kv, c.ref);
}

TEST(KvLayout, EveryResultHasItsOwnName) {
  const int codes[] = {PCCX_KV_OK,          PCCX_KV_E_ARG,      PCCX_KV_E_SHAPE,
                       PCCX_KV_E_RECORD,    PCCX_KV_E_CAP,      PCCX_KV_E_SINKS,
                       PCCX_KV_E_REGION,    PCCX_KV_E_NO_SPACE, PCCX_KV_E_STREAM,
                       PCCX_KV_E_NOT_READY, PCCX_KV_E_RANGE,    PCCX_KV_E_EVICT,
                       PCCX_KV_E_EMPTY,     PCCX_KV_E_POSITION, PCCX_KV_E_NOT_VALID,
                       PCCX_KV_E_STATE,     PCCX_KV_E_CHANNEL};
  std::set<int> values;
  std::set<std::string> names;
  for (int c : codes) {
    values.insert(c);
    std::string s = pccx_kv_strerror(c);
    EXPECT_EQ(s.rfind("PCCX_KV_", 0), 0u) << s;
    names.insert(s);
  }
  EXPECT_EQ(values.size(), std::size(codes));
  EXPECT_EQ(names.size(), std::size(codes));
  EXPECT_EQ(std::string(pccx_kv_strerror(1)), "unknown PCCX_KV result");
  EXPECT_EQ(std::string(pccx_kv_strerror(-17)), "unknown PCCX_KV result");
  EXPECT_NE(std::string(pccx_kv_strerror(PCCX_KV_E_NO_SPACE)).find("pccx_kv_required_bytes"),
            std::string::npos);
}
