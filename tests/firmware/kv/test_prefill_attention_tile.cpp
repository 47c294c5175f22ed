// The prefill's query tiles (gd_prefill_attention_tile in
// pccx_gemma_decode_l2.h, shared by the firmware and the host): its ring
// arithmetic against the KV driver's own, the rows it takes as the L2
// regions and the ring allow, and where it puts the buffers.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "pccx_gemma_decode_l2.h"
#include "pccx_kv.h"

namespace {

// The decode's scores .. z words [100, 100 + a_words) and the chunk's
// FFN-slice words [10,000, 10,000 + rows x wide_row).
struct regions {
  gd_l2 a{};
  gd_prefill_l2 p{};
  regions(uint32_t a_words, uint32_t rows, uint32_t wide_row) {
    a.scores = 100;
    a.z = 100 + a_words;
    a.q = 7;
    a.out = 9;
    p.rows = rows;
    p.wide = 10000;
    p.wide_row = wide_row;
  }
  bool inside(uint32_t at, uint32_t words) const {
    const bool in_a = at >= a.scores && at + words <= a.z;
    const bool in_b = at >= p.wide && at + words <= p.wide + p.rows * p.wide_row;
    return in_a || in_b;
  }
};

uint32_t words(uint32_t elements) {
  return (elements + 7) / 8;
}

}  // namespace

// The header's window start and valid count are the driver's, for every
// small ring and history (no eviction: the prefill evicts nothing).
TEST(PrefillAttentionTile, RingArithmeticIsTheDriversOwn) {
  for (uint32_t cap = 1; cap <= 9; ++cap)
    for (uint32_t sinks = 0; sinks < cap; ++sinks)
      for (uint32_t window : {0u, 1u, 3u, cap - sinks, cap + 2}) {
        pccx_kv_handle h{};
        pccx_kv_configure(&h, 1, 1, 16, 16, 0x1000, pccx_kv_required_bytes(1, 1, 16, 16, cap));
        ASSERT_EQ(pccx_kv_set_sinks(&h, sinks), PCCX_KV_OK);
        ASSERT_EQ(pccx_kv_set_window(&h, window), PCCX_KV_OK);
        ASSERT_EQ(pccx_kv_init(&h, cap), PCCX_KV_OK);
        for (uint32_t n = 1; n <= 3 * cap + 2; ++n) {
          ASSERT_EQ(pccx_kv_append_token(&h, nullptr), PCCX_KV_OK);
          const std::string at = "cap " + std::to_string(cap) + " sinks " + std::to_string(sinks) +
                                 " window " + std::to_string(window) + " n " + std::to_string(n);
          ASSERT_EQ(gd_ring_window_start(n, cap, sinks, window), pccx_kv_window_start(&h)) << at;
          ASSERT_EQ(gd_ring_valid_tokens(n, cap, sinks, window), pccx_kv_valid_tokens(&h)) << at;
        }
      }
}

// A window ring with the chunk's C - 1 extra records: the whole chunk in one
// tile when the L2 holds it, its stream the window widened by T - 1.
TEST(PrefillAttentionTile, TheWholeChunkWhenItFits) {
  const regions r(2000, 15, 1368);  // G = 4, head_dim 256: 128 words a row's queries
  // 15 rows, window 512 + 14 in a ring of 526, 600 tokens before.
  const gd_attention_tile t = gd_prefill_attention_tile(&r.a, &r.p, 4, 256, 601, 15, 526, 0, 512);
  EXPECT_EQ(t.rows, 15u);
  EXPECT_EQ(t.span, 526u);  // min(615, 512 + 14)
  // Scores in the larger region (the FFN slices), queries and outputs in
  // the other, none overlapping.
  const uint32_t s = words(15 * 4 * 526), h = words(15 * 4 * 256);
  EXPECT_EQ(t.scores, r.p.wide);
  EXPECT_TRUE(r.inside(t.scores, s));
  EXPECT_TRUE(r.inside(t.q, h));
  EXPECT_TRUE(r.inside(t.out, h));
  EXPECT_TRUE(t.q + h <= t.out || t.out + h <= t.q);
  EXPECT_TRUE(t.q >= t.scores + s || t.q + h <= t.scores);
}

// A global ring's long span: as many rows as the larger region's scores
// hold (here two rows of 32,770 keys, 16,385 words each).
TEST(PrefillAttentionTile, AsManyRowsAsTheScoresWordsHold) {
  const regions r(32898, 10, 1368);
  const gd_attention_tile t = gd_prefill_attention_tile(&r.a, &r.p, 4, 256, 32761, 10, 32778, 0, 0);
  EXPECT_EQ(t.rows, 2u);
  EXPECT_EQ(t.span, 32762u);
  EXPECT_EQ(t.scores, r.a.scores);
  EXPECT_TRUE(r.inside(t.scores, words(2 * 4 * 32762)));
  EXPECT_TRUE(r.inside(t.q, words(2 * 4 * 256)));
  // One row's scores alone do not fit the smaller region either: a row on
  // its own, in the decode's buffers.
  const regions small(1000, 10, 100);
  const gd_attention_tile one =
      gd_prefill_attention_tile(&small.a, &small.p, 4, 256, 32761, 10, 32778, 0, 0);
  EXPECT_EQ(one.rows, 1u);
  EXPECT_EQ(one.span, 32761u);
  EXPECT_EQ(one.scores, small.a.scores);
  EXPECT_EQ(one.q, small.a.q);
  EXPECT_EQ(one.out, small.a.out);
}

// Where the tile's own appends would overwrite what its first row sees (a
// full global ring, or a window ring without the extra records), the tile
// shrinks until they do not.
TEST(PrefillAttentionTile, NoTileOverwritesWhatItsFirstRowSees) {
  const regions r(100000, 16, 4096);
  // A global ring of 20 records, 18 tokens after the first row: appends 19
  // and 20 fit, a third would drop position 0.
  EXPECT_EQ(gd_prefill_attention_tile(&r.a, &r.p, 1, 8, 18, 8, 20, 0, 0).rows, 3u);
  // Full already: every further append drops the oldest, a row alone.
  EXPECT_EQ(gd_prefill_attention_tile(&r.a, &r.p, 1, 8, 20, 8, 20, 0, 0).rows, 1u);
  // Sinks stay: a ring of 20 with 4 sinks, full, still a row alone.
  EXPECT_EQ(gd_prefill_attention_tile(&r.a, &r.p, 1, 8, 30, 8, 20, 4, 0).rows, 1u);
  // A window of 8 in a ring of 8 + 5: at most 6 rows.
  EXPECT_EQ(gd_prefill_attention_tile(&r.a, &r.p, 1, 8, 40, 8, 13, 0, 8).rows, 6u);
  EXPECT_EQ(gd_prefill_attention_tile(&r.a, &r.p, 1, 8, 40, 8, 13, 0, 8).span, 13u);
  // Early in the prompt nothing wraps: the whole chunk.
  EXPECT_EQ(gd_prefill_attention_tile(&r.a, &r.p, 1, 8, 1, 8, 13, 0, 8).rows, 8u);
}
