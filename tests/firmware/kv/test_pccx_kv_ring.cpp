// The ring: slot mapping, valid set, segments and stream order at the
// boundaries, eviction, windows, all against the independent model in
// kv_reference.h; DDR addresses and byte counts are computed by the test.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kv_reference.h"
#include "pccx_kv.h"

using namespace kvdrv;

namespace {

constexpr uint64_t kBase = 0x40000000ull;

struct seg_t {
  uint64_t addr;
  uint32_t bytes, tokens;
};

std::vector<seg_t> segments(const pccx_kv_handle& kv, uint32_t l, uint32_t h, int v) {
  pccx_kv_segment s[2];
  int n = pccx_kv_segments(&kv, l, h, v, s);
  EXPECT_GE(n, 0) << pccx_kv_strerror(n);
  std::vector<seg_t> out;
  for (int i = 0; i < n; ++i) out.push_back({s[i].addr, s[i].bytes, s[i].tokens});
  return out;
}

void expect_segment(const seg_t& s, uint64_t addr, uint32_t tokens, uint32_t rec) {
  EXPECT_EQ(s.addr, addr);
  EXPECT_EQ(s.tokens, tokens);
  EXPECT_EQ(s.bytes, tokens * rec);
}

std::vector<uint32_t> order(const pccx_kv_handle& kv) {
  std::vector<uint32_t> o;
  for (uint32_t i = 0; i < pccx_kv_valid_tokens(&kv); ++i) {
    uint32_t p = 0;
    EXPECT_EQ(pccx_kv_stream_position(&kv, i, &p), PCCX_KV_OK);
    o.push_back(p);
  }
  return o;
}

}  // namespace

TEST(KvRing, EmptyCacheHasNoSegments) {
  kv_pair c(2, 2, 32, 48, kBase, 8, 4, 0);
  ASSERT_EQ(c.init_result, PCCX_KV_OK);
  pccx_kv_segment s[2];
  for (int v = 0; v < 2; ++v) EXPECT_EQ(pccx_kv_segments(&c.kv, 1, 1, v, s), 0);
  EXPECT_EQ(pccx_kv_valid_tokens(&c.kv), 0u);
  EXPECT_EQ(pccx_kv_tokens(&c.kv), 0u);
  uint64_t a = 0;
  EXPECT_EQ(pccx_kv_append_slot(&c.kv, 0, 0, PCCX_KV_K, &a), PCCX_KV_E_EMPTY);
  uint32_t p = 0;
  EXPECT_EQ(pccx_kv_stream_position(&c.kv, 0, &p), PCCX_KV_E_NOT_VALID);
  check_streams(c.kv, c.ref);
}

TEST(KvRing, OneToken) {
  for (uint32_t sinks : {0u, 1u, 4u}) {
    SCOPED_TRACE("sinks " + std::to_string(sinks));
    kv_pair c(2, 3, 32, 48, kBase, 8, sinks, 0);
    ASSERT_EQ(c.init_result, PCCX_KV_OK);
    c.append();
    // Position 0 is in slot 0 whether it is a sink or not.
    auto k = segments(c.kv, 1, 2, PCCX_KV_K);
    auto v = segments(c.kv, 1, 2, PCCX_KV_V);
    ASSERT_EQ(k.size(), 1u);
    ASSERT_EQ(v.size(), 1u);
    const uint64_t head = 8ull * (32 + 48);
    const uint64_t k_base = kBase + (1 * 3 + 2) * head;
    expect_segment(k[0], k_base, 1, 32);
    expect_segment(v[0], k_base + 8 * 32, 1, 48);
    EXPECT_EQ(order(c.kv), std::vector<uint32_t>({0}));
    check_streams(c.kv, c.ref);
  }
}

TEST(KvRing, ExactlyFullIsOneSegmentOfTheWholeStream) {
  for (uint32_t sinks : {0u, 4u, 7u}) {
    SCOPED_TRACE("sinks " + std::to_string(sinks));
    kv_pair c(1, 2, 16, 32, kBase, 8, sinks, 0);
    ASSERT_EQ(c.init_result, PCCX_KV_OK);
    c.append(8);
    EXPECT_EQ(pccx_kv_valid_tokens(&c.kv), 8u);
    auto k = segments(c.kv, 0, 1, PCCX_KV_K);
    ASSERT_EQ(k.size(), 1u);
    expect_segment(k[0], kBase + 8 * (16 + 32), 8, 16);
    auto v = segments(c.kv, 0, 1, PCCX_KV_V);
    ASSERT_EQ(v.size(), 1u);
    expect_segment(v[0], kBase + 8 * (16 + 32) + 8 * 16, 8, 32);
    EXPECT_EQ(order(c.kv), std::vector<uint32_t>({0, 1, 2, 3, 4, 5, 6, 7}));
    check_streams(c.kv, c.ref);
  }
}

// The worked example of docs/models/kv-driver.md: S = 4, W = 0, cap = 8, 11 tokens.
TEST(KvRing, WorkedExampleOfTheDocs) {
  kv_pair c(1, 1, 32, 32, kBase, 8, 4, 0);
  ASSERT_EQ(c.init_result, PCCX_KV_OK);
  c.append(11);
  EXPECT_EQ(pccx_kv_window_start(&c.kv), 7u);
  EXPECT_EQ(pccx_kv_valid_tokens(&c.kv), 8u);
  auto k = segments(c.kv, 0, 0, PCCX_KV_K);
  ASSERT_EQ(k.size(), 2u);
  expect_segment(k[0], kBase + 7 * 32, 1, 32);  // slot 7: position 7
  expect_segment(k[1], kBase + 0, 7, 32);       // slots 0..6: 0 1 2 3 8 9 10
  auto v = segments(c.kv, 0, 0, PCCX_KV_V);
  ASSERT_EQ(v.size(), 2u);
  expect_segment(v[0], kBase + 256 + 7 * 32, 1, 32);
  expect_segment(v[1], kBase + 256, 7, 32);
  EXPECT_EQ(order(c.kv), std::vector<uint32_t>({7, 0, 1, 2, 3, 8, 9, 10}));
  for (uint32_t p : {0u, 3u, 7u, 8u, 10u}) {
    uint64_t a = 0;
    EXPECT_EQ(pccx_kv_slot_addr(&c.kv, 0, 0, PCCX_KV_K, p, &a), PCCX_KV_OK);
  }
  uint64_t a = 0;
  EXPECT_EQ(pccx_kv_slot_addr(&c.kv, 0, 0, PCCX_KV_K, 4, &a), PCCX_KV_E_NOT_VALID);  // overwritten
  EXPECT_EQ(pccx_kv_slot_addr(&c.kv, 0, 0, PCCX_KV_K, 6, &a), PCCX_KV_E_NOT_VALID);
  EXPECT_EQ(pccx_kv_slot_addr(&c.kv, 0, 0, PCCX_KV_K, 11, &a), PCCX_KV_E_NOT_VALID);  // future
  EXPECT_EQ(pccx_kv_slot_addr(&c.kv, 0, 0, PCCX_KV_V, 8, &a), PCCX_KV_OK);
  EXPECT_EQ(a, kBase + 256 + 4 * 32);
  check_streams(c.kv, c.ref);
  // The docs' follow-up: evict up to 9, the window is 9 10 in slots 5 and 6.
  ASSERT_EQ(pccx_kv_evict(&c.kv, 9), PCCX_KV_OK);
  c.ref.evict(9);
  k = segments(c.kv, 0, 0, PCCX_KV_K);
  ASSERT_EQ(k.size(), 2u);
  expect_segment(k[0], kBase, 4, 32);
  expect_segment(k[1], kBase + 160, 2, 32);
  EXPECT_EQ(order(c.kv), std::vector<uint32_t>({0, 1, 2, 3, 9, 10}));
  check_streams(c.kv, c.ref);
}

TEST(KvRing, WrappedOverwritesTheOldestAndKeepsKAndVInStep) {
  const uint32_t cap = 8, sinks = 4;
  kv_pair c(2, 2, 16, 64, kBase, cap, sinks, 0);
  ASSERT_EQ(c.init_result, PCCX_KV_OK);
  c.append(cap);
  for (uint32_t k = 1; k <= 2 * (cap - sinks) + 1; ++k) {
    SCOPED_TRACE("n = max_tokens + " + std::to_string(k));
    c.append();
    const uint32_t n = cap + k;
    // The oldest non-sink tokens are gone, the valid set stays full.
    EXPECT_EQ(pccx_kv_valid_tokens(&c.kv), cap);
    EXPECT_EQ(pccx_kv_window_start(&c.kv), n - (cap - sinks));
    uint64_t a = 0;
    EXPECT_EQ(pccx_kv_slot_addr(&c.kv, 1, 1, PCCX_KV_K, n - (cap - sinks) - 1, &a),
              PCCX_KV_E_NOT_VALID);
    const bool wrapped = (n - sinks) % (cap - sinks) != 0;
    for (int v = 0; v < 2; ++v) {
      auto s = segments(c.kv, 1, 0, v);
      ASSERT_EQ(s.size(), wrapped ? 2u : 1u);
    }
    check_streams(c.kv, c.ref);
  }
}

TEST(KvRing, SinksAndAShortHistoryHaveNoDuplicates) {
  // n <= S: only sinks; n just above S: the window starts right after the
  // sinks and joins them; a window wider than the history covers it all.
  for (uint32_t window : {0u, 2u, 6u, 100u}) {
    kv_pair c(1, 2, 32, 32, kBase, 16, 4, window);
    ASSERT_EQ(c.init_result, PCCX_KV_OK);
    for (uint32_t n = 1; n <= 7; ++n) {
      SCOPED_TRACE("window " + std::to_string(window) + " n " + std::to_string(n));
      c.append();
      auto s = segments(c.kv, 0, 1, PCCX_KV_K);
      const uint32_t expect_valid = n <= 4 ? n : 4 + std::min(n - 4, window ? window : 12u);
      EXPECT_EQ(pccx_kv_valid_tokens(&c.kv), expect_valid);
      const bool joined = n <= 4 || window == 0 || n - 4 <= window;
      ASSERT_EQ(s.size(), joined ? 1u : 2u);
      check_streams(c.kv, c.ref);
    }
  }
}

TEST(KvRing, WindowSmallerThanTheRing) {
  const uint32_t cap = 16, sinks = 4, window = 3;
  kv_pair c(1, 1, 16, 16, kBase, cap, sinks, window);
  ASSERT_EQ(c.init_result, PCCX_KV_OK);
  c.append(10);
  // Sinks 0..3, window 7 8 9 in slots 7..9: two separate segments.
  auto s = segments(c.kv, 0, 0, PCCX_KV_K);
  ASSERT_EQ(s.size(), 2u);
  expect_segment(s[0], kBase, 4, 16);
  expect_segment(s[1], kBase + 7 * 16, 3, 16);
  EXPECT_EQ(order(c.kv), std::vector<uint32_t>({0, 1, 2, 3, 7, 8, 9}));
  check_streams(c.kv, c.ref);
  // n = 17: window 14 15 16 in slots 14, 15, 4: wrapped, the tail joins the sinks.
  c.append(7);
  s = segments(c.kv, 0, 0, PCCX_KV_K);
  ASSERT_EQ(s.size(), 2u);
  expect_segment(s[0], kBase + 14 * 16, 2, 16);
  expect_segment(s[1], kBase, 5, 16);
  EXPECT_EQ(order(c.kv), std::vector<uint32_t>({14, 15, 0, 1, 2, 3, 16}));
  check_streams(c.kv, c.ref);
  // n = 19: window 16 17 18 in slots 4..6: one segment with the sinks.
  c.append(2);
  s = segments(c.kv, 0, 0, PCCX_KV_K);
  ASSERT_EQ(s.size(), 1u);
  expect_segment(s[0], kBase, 7, 16);
  check_streams(c.kv, c.ref);
  // The window is a view: widening it shows the tokens the ring still holds.
  ASSERT_EQ(pccx_kv_set_window(&c.kv, 0), PCCX_KV_OK);
  c.ref.window = 0;
  EXPECT_EQ(pccx_kv_valid_tokens(&c.kv), cap);
  EXPECT_EQ(pccx_kv_window_start(&c.kv), 19u - 12u);
  check_streams(c.kv, c.ref);
}

TEST(KvRing, EvictMovesTheStartAndKeepsTheSinks) {
  kv_pair c(2, 1, 32, 16, kBase, 12, 4, 0);
  ASSERT_EQ(c.init_result, PCCX_KV_OK);
  c.append(10);
  EXPECT_EQ(pccx_kv_window_start(&c.kv), 4u);
  ASSERT_EQ(pccx_kv_evict(&c.kv, 7), PCCX_KV_OK);
  c.ref.evict(7);
  EXPECT_EQ(pccx_kv_window_start(&c.kv), 7u);
  EXPECT_EQ(pccx_kv_valid_tokens(&c.kv), 4u + 3u);
  EXPECT_EQ(order(c.kv), std::vector<uint32_t>({0, 1, 2, 3, 7, 8, 9}));
  auto s = segments(c.kv, 1, 0, PCCX_KV_V);
  ASSERT_EQ(s.size(), 2u);
  const uint64_t v_base = kBase + 12ull * 48 + 12 * 32;
  expect_segment(s[0], v_base, 4, 16);
  expect_segment(s[1], v_base + 7 * 16, 3, 16);
  check_streams(c.kv, c.ref);

  // Evicting everything leaves the sinks.
  ASSERT_EQ(pccx_kv_evict(&c.kv, 10), PCCX_KV_OK);
  c.ref.evict(10);
  EXPECT_EQ(pccx_kv_window_start(&c.kv), 10u);
  EXPECT_EQ(order(c.kv), std::vector<uint32_t>({0, 1, 2, 3}));
  check_streams(c.kv, c.ref);

  // New tokens after an eviction are valid again; wrap over the dropped slots.
  c.append(12);
  EXPECT_EQ(pccx_kv_window_start(&c.kv), 14u);
  check_streams(c.kv, c.ref);
}

TEST(KvRing, EvictPastTheWritePositionIsAnError) {
  kv_pair c(1, 1, 16, 16, kBase, 8, 2, 0);
  ASSERT_EQ(c.init_result, PCCX_KV_OK);
  c.append(5);
  EXPECT_EQ(pccx_kv_evict(&c.kv, 6), PCCX_KV_E_EVICT);
  EXPECT_EQ(pccx_kv_evict(&c.kv, 0xFFFFFFFFu), PCCX_KV_E_EVICT);
  EXPECT_EQ(pccx_kv_window_start(&c.kv), 2u);  // unchanged
  EXPECT_EQ(pccx_kv_valid_tokens(&c.kv), 5u);
  check_streams(c.kv, c.ref);
  EXPECT_EQ(pccx_kv_evict(&c.kv, 5), PCCX_KV_OK);  // up to n is allowed
  c.ref.evict(5);
  check_streams(c.kv, c.ref);
}

TEST(KvRing, EvictBackwardsChangesNothing) {
  kv_pair c(1, 1, 16, 16, kBase, 10, 3, 0);
  ASSERT_EQ(c.init_result, PCCX_KV_OK);
  c.append(9);
  ASSERT_EQ(pccx_kv_evict(&c.kv, 6), PCCX_KV_OK);
  c.ref.evict(6);
  auto before = segments(c.kv, 0, 0, PCCX_KV_K);
  for (uint32_t upto : {5u, 3u, 1u, 0u, 6u}) {
    EXPECT_EQ(pccx_kv_evict(&c.kv, upto), PCCX_KV_OK);
    auto after = segments(c.kv, 0, 0, PCCX_KV_K);
    ASSERT_EQ(after.size(), before.size());
    for (size_t i = 0; i < after.size(); ++i) {
      EXPECT_EQ(after[i].addr, before[i].addr);
      EXPECT_EQ(after[i].tokens, before[i].tokens);
    }
    EXPECT_EQ(pccx_kv_window_start(&c.kv), 6u);
  }
  check_streams(c.kv, c.ref);
  // Below the window start set by the cap: no change either.
  c.append(10);  // n = 19, ring of 7: start 12
  EXPECT_EQ(pccx_kv_window_start(&c.kv), 12u);
  EXPECT_EQ(pccx_kv_evict(&c.kv, 9), PCCX_KV_OK);
  EXPECT_EQ(pccx_kv_window_start(&c.kv), 12u);
  c.ref.evict(9);
  check_streams(c.kv, c.ref);
}

TEST(KvRing, ResetEmptiesTheCacheAndKeepsTheLayout) {
  kv_pair c(1, 2, 16, 16, kBase, 8, 4, 0);
  ASSERT_EQ(c.init_result, PCCX_KV_OK);
  c.append(13);
  ASSERT_EQ(pccx_kv_evict(&c.kv, 11), PCCX_KV_OK);
  ASSERT_EQ(pccx_kv_reset(&c.kv), PCCX_KV_OK);
  EXPECT_EQ(pccx_kv_tokens(&c.kv), 0u);
  EXPECT_EQ(pccx_kv_valid_tokens(&c.kv), 0u);
  EXPECT_EQ(pccx_kv_max_tokens(&c.kv), 8u);
  c.ref = ref_ring(1, 2, 16, 16, kBase, 8, 4, 0);
  c.append(6);
  check_streams(c.kv, c.ref);
}

// Every small configuration, every history length up to three laps of the
// ring, with evictions sprinkled in: the streams always match the model.
TEST(KvRing, SweepOfSmallRings) {
  for (uint32_t cap = 1; cap <= 7; ++cap) {
    for (uint32_t sinks = 0; sinks < cap; ++sinks) {
      for (uint32_t window : {0u, 1u, 2u, cap - sinks, cap + 3}) {
        SCOPED_TRACE("cap " + std::to_string(cap) + " sinks " + std::to_string(sinks) + " window " +
                     std::to_string(window));
        kv_pair c(2, 2, 16, 32, kBase, cap, sinks, window);
        ASSERT_EQ(c.init_result, PCCX_KV_OK);
        check_streams(c.kv, c.ref);
        for (uint32_t n = 1; n <= 3 * cap + 2; ++n) {
          SCOPED_TRACE("n " + std::to_string(n));
          c.append();
          if (n % 5 == 3) {
            uint32_t upto = n - (n % 3);
            ASSERT_EQ(pccx_kv_evict(&c.kv, upto), PCCX_KV_OK);
            c.ref.evict(upto);
          }
          check_streams(c.kv, c.ref);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

TEST(KvRing, SinksAndWindowSetters) {
  pccx_kv_handle kv;
  ASSERT_EQ(pccx_kv_configure(&kv, 1, 1, 16, 16, kBase, 1 << 20), PCCX_KV_OK);
  EXPECT_EQ(pccx_kv_sinks(&kv), PCCX_KV_DEFAULT_SINKS);
  EXPECT_EQ(pccx_kv_sinks(&kv), 4u);
  EXPECT_EQ(pccx_kv_window(&kv), 0u);
  EXPECT_EQ(pccx_kv_set_sinks(&kv, 100), PCCX_KV_OK);  // checked by init
  EXPECT_EQ(pccx_kv_init(&kv, 100), PCCX_KV_E_SINKS);
  EXPECT_EQ(pccx_kv_set_sinks(&kv, 2), PCCX_KV_OK);
  EXPECT_EQ(pccx_kv_set_window(&kv, 5), PCCX_KV_OK);
  ASSERT_EQ(pccx_kv_init(&kv, 100), PCCX_KV_OK);
  EXPECT_EQ(pccx_kv_sinks(&kv), 2u);
  EXPECT_EQ(pccx_kv_window(&kv), 5u);
  // After init: below the cap, and only while the cache is empty.
  EXPECT_EQ(pccx_kv_set_sinks(&kv, 100), PCCX_KV_E_SINKS);
  EXPECT_EQ(pccx_kv_set_sinks(&kv, 8), PCCX_KV_OK);
  ASSERT_EQ(pccx_kv_append_token(&kv, nullptr), PCCX_KV_OK);
  EXPECT_EQ(pccx_kv_set_sinks(&kv, 4), PCCX_KV_E_STATE);
  EXPECT_EQ(pccx_kv_sinks(&kv), 8u);
  EXPECT_EQ(pccx_kv_set_window(&kv, 9), PCCX_KV_OK);
  EXPECT_EQ(pccx_kv_window(&kv), 9u);
  EXPECT_EQ(pccx_kv_set_sinks(nullptr, 1), PCCX_KV_E_ARG);
  EXPECT_EQ(pccx_kv_set_window(nullptr, 1), PCCX_KV_E_ARG);
}

TEST(KvRing, PositionCounterEnd) {
  kv_pair c(1, 1, 16, 16, kBase, 8, 4, 0);
  ASSERT_EQ(c.init_result, PCCX_KV_OK);
  // Jump the state close to the end of the 32-bit position space.
  c.kv.appended = 0xFFFFFFFEu;
  uint32_t p = 0;
  EXPECT_EQ(pccx_kv_append_token(&c.kv, &p), PCCX_KV_OK);
  EXPECT_EQ(p, 0xFFFFFFFEu);
  EXPECT_EQ(pccx_kv_append_token(&c.kv, &p), PCCX_KV_E_POSITION);
  EXPECT_EQ(pccx_kv_tokens(&c.kv), 0xFFFFFFFFu);
  EXPECT_EQ(pccx_kv_valid_tokens(&c.kv), 8u);
  EXPECT_EQ(pccx_kv_slot_of(&c.kv, 0xFFFFFFFEu), 4u + (0xFFFFFFFEu - 4u) % 4u);
}

// The inverse of the stream order refuses what it cannot answer.
TEST(KvRing, StreamIndexRefusals) {
  pccx_kv_handle kv{};
  uint32_t i = 0;
  EXPECT_EQ(pccx_kv_stream_index(&kv, 0, &i), PCCX_KV_E_NOT_READY);
  kv_pair c(1, 1, 16, 16, kBase, 4, 1, 0);
  ASSERT_EQ(c.init_result, PCCX_KV_OK);
  EXPECT_EQ(pccx_kv_stream_index(&c.kv, 0, &i), PCCX_KV_E_NOT_VALID);  // nothing appended
  c.append();
  EXPECT_EQ(pccx_kv_stream_index(&c.kv, 0, nullptr), PCCX_KV_E_ARG);
  EXPECT_EQ(pccx_kv_stream_index(nullptr, 0, &i), PCCX_KV_E_ARG);
  ASSERT_EQ(pccx_kv_stream_index(&c.kv, 0, &i), PCCX_KV_OK);
  EXPECT_EQ(i, 0u);
}
