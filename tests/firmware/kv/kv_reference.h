// An independent model of the KV ring for the kvdrv tests. It does not use
// the driver's slot formula: it keeps a physical write pointer that steps
// through the slots (0, 1, ..., C-1, then back to S) and records which
// position each slot holds, and it states the valid set position by
// position. check_streams() compares every stream of a driver handle
// against it.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "pccx_kv.h"

namespace kvdrv {

struct ref_ring {
  uint32_t layers, heads, k_bytes, v_bytes, cap, sinks, window;
  uint64_t base;
  uint32_t n = 0;
  uint32_t evicted = 0;
  uint32_t write_slot = 0;
  std::vector<int64_t> owner;  // slot -> position it holds, -1 = never written

  ref_ring(uint32_t l, uint32_t h, uint32_t kb, uint32_t vb, uint64_t b, uint32_t c, uint32_t s,
           uint32_t w)
      : layers(l),
        heads(h),
        k_bytes(kb),
        v_bytes(vb),
        cap(c),
        sinks(s),
        window(w),
        base(b),
        owner(c, -1) {}

  // Returns the slot the new token went to.
  uint32_t append() {
    uint32_t slot = write_slot;
    owner[slot] = n;
    ++n;
    ++write_slot;
    if (write_slot == cap) write_slot = sinks;
    return slot;
  }
  void evict(uint32_t upto) { evicted = std::max(evicted, upto); }

  uint32_t reach() const {
    uint32_t ring = cap - sinks;
    return window > 0 ? std::min(window, ring) : ring;
  }
  bool valid(uint32_t p) const {
    if (p >= n) return false;
    if (p < sinks) return true;
    return p >= evicted && n - p <= reach();
  }
  std::vector<uint32_t> valid_positions() const {
    std::vector<uint32_t> v;
    for (uint32_t p = 0; p < n; ++p)
      if (valid(p)) v.push_back(p);
    return v;
  }
  uint32_t record(int is_value) const { return is_value ? v_bytes : k_bytes; }
  // Layer-major, then head, then the K array and the V array of C records.
  uint64_t stream_base(uint32_t l, uint32_t h, int is_value) const {
    uint64_t per_head = uint64_t(cap) * (k_bytes + v_bytes);
    uint64_t b = base + (uint64_t(l) * heads + h) * per_head;
    if (is_value) b += uint64_t(cap) * k_bytes;
    return b;
  }
  uint64_t addr(uint32_t l, uint32_t h, int is_value, uint32_t slot) const {
    return stream_base(l, h, is_value) + uint64_t(slot) * record(is_value);
  }
};

// Positions of one stream, in segment order, read back through ref.owner.
// Checks each segment's shape on the way.
inline std::vector<uint32_t> stream_positions(const pccx_kv_handle& kv, const ref_ring& ref,
                                              uint32_t l, uint32_t h, int is_value,
                                              int* count_out = nullptr) {
  pccx_kv_segment seg[2] = {{0xDEAD, 0xDEAD, 0xDEAD}, {0xDEAD, 0xDEAD, 0xDEAD}};
  int count = pccx_kv_segments(&kv, l, h, is_value, seg);
  if (count_out) *count_out = count;
  std::vector<uint32_t> pos;
  EXPECT_GE(count, 0) << pccx_kv_strerror(count);
  EXPECT_LE(count, 2);
  if (count < 0 || count > 2) return pos;
  const uint32_t rec = ref.record(is_value);
  const uint64_t sb = ref.stream_base(l, h, is_value);
  uint32_t first_slot[2] = {0, 0};
  for (int i = 0; i < count; ++i) {
    SCOPED_TRACE("segment " + std::to_string(i));
    EXPECT_GT(seg[i].tokens, 0u);
    EXPECT_EQ(uint64_t(seg[i].bytes), uint64_t(seg[i].tokens) * rec);
    EXPECT_GE(seg[i].addr, sb);
    EXPECT_EQ((seg[i].addr - sb) % rec, 0u);
    uint64_t slot0 = (seg[i].addr - sb) / rec;
    EXPECT_LE(slot0 + seg[i].tokens, ref.cap) << "segment runs past the end of the stream";
    if (slot0 + seg[i].tokens > ref.cap) return pos;
    first_slot[i] = uint32_t(slot0);
    for (uint32_t t = 0; t < seg[i].tokens; ++t) {
      int64_t p = ref.owner[slot0 + t];
      EXPECT_GE(p, 0) << "slot " << slot0 + t << " was never written";
      pos.push_back(uint32_t(p));
    }
  }
  if (count == 2) {
    // Two segments are never adjacent (they would have been joined), and
    // one of them starts at slot 0: the sinks first (window not wrapped) or
    // the wrapped window's tail second, after a first segment that ends at
    // the end of the ring.
    EXPECT_NE(seg[0].addr + seg[0].bytes, seg[1].addr);
    if (first_slot[0] == 0) {
      EXPECT_EQ(seg[0].tokens, ref.sinks);
      EXPECT_GT(first_slot[1], ref.sinks);
    } else {
      EXPECT_EQ(first_slot[1], 0u);
      EXPECT_EQ(first_slot[0] + seg[0].tokens, ref.cap);
    }
  }
  return pos;
}

// Every stream of the handle against the reference: every valid position
// exactly once, nothing else, the same order in every stream (K and V of
// all layers and heads), and pccx_kv_stream_position agreeing with it.
inline void check_streams(const pccx_kv_handle& kv, const ref_ring& ref) {
  std::vector<uint32_t> expect = ref.valid_positions();
  ASSERT_EQ(pccx_kv_tokens(&kv), ref.n);
  ASSERT_EQ(pccx_kv_valid_tokens(&kv), expect.size());
  std::vector<uint32_t> order;
  bool have_order = false;
  for (uint32_t l = 0; l < ref.layers; ++l) {
    for (uint32_t h = 0; h < ref.heads; ++h) {
      for (int v = 0; v < 2; ++v) {
        SCOPED_TRACE("layer " + std::to_string(l) + " head " + std::to_string(h) +
                     (v ? " V" : " K"));
        std::vector<uint32_t> pos = stream_positions(kv, ref, l, h, v);
        std::vector<uint32_t> sorted = pos;
        std::sort(sorted.begin(), sorted.end());
        ASSERT_EQ(sorted, expect) << "the streams must hold each valid position exactly once";
        if (!have_order) {
          order = pos;
          have_order = true;
        } else {
          ASSERT_EQ(pos, order) << "streams must list their tokens in the same order";
        }
      }
    }
  }
  for (uint32_t i = 0; i < order.size(); ++i) {
    uint32_t p = 0xFFFFFFFFu;
    ASSERT_EQ(pccx_kv_stream_position(&kv, i, &p), PCCX_KV_OK);
    ASSERT_EQ(p, order[i]) << "stream index " << i;
    uint32_t back = 0xFFFFFFFFu;
    ASSERT_EQ(pccx_kv_stream_index(&kv, p, &back), PCCX_KV_OK);
    ASSERT_EQ(back, i) << "the stream index of position " << p;
  }
  // Positions outside the valid set have no stream index.
  for (uint32_t q = 0; q < ref.n + 2; ++q) {
    if (std::find(expect.begin(), expect.end(), q) != expect.end()) continue;
    uint32_t back = 0;
    ASSERT_EQ(pccx_kv_stream_index(&kv, q, &back), PCCX_KV_E_NOT_VALID) << "position " << q;
  }
  uint32_t p = 0;
  EXPECT_EQ(pccx_kv_stream_position(&kv, uint32_t(order.size()), &p), PCCX_KV_E_NOT_VALID);
}

// A configured and initialised handle plus its reference.
struct kv_pair {
  pccx_kv_handle kv;
  ref_ring ref;
  kv_pair(uint32_t l, uint32_t h, uint32_t kb, uint32_t vb, uint64_t base, uint32_t cap,
          uint32_t sinks, uint32_t window)
      : kv(), ref(l, h, kb, vb, base, cap, sinks, window) {
    pccx_kv_configure(&kv, l, h, kb, vb, base, pccx_kv_required_bytes(l, h, kb, vb, cap));
    pccx_kv_set_sinks(&kv, sinks);
    pccx_kv_set_window(&kv, window);
    init_result = pccx_kv_init(&kv, cap);
  }
  int init_result;
  // Appends one token to both and checks the append slots of every stream.
  void append() {
    uint32_t pos = 0xFFFFFFFFu;
    ASSERT_EQ(pccx_kv_append_token(&kv, &pos), PCCX_KV_OK);
    ASSERT_EQ(pos, ref.n);
    uint32_t slot = ref.append();
    for (uint32_t l = 0; l < ref.layers; ++l) {
      for (uint32_t h = 0; h < ref.heads; ++h) {
        for (int v = 0; v < 2; ++v) {
          uint64_t a = 0;
          ASSERT_EQ(pccx_kv_append_slot(&kv, l, h, v, &a), PCCX_KV_OK);
          ASSERT_EQ(a, ref.addr(l, h, v, slot)) << "layer " << l << " head " << h << " v " << v;
        }
      }
    }
  }
  void append(uint32_t count) {
    for (uint32_t i = 0; i < count; ++i) {
      append();
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
};

}  // namespace kvdrv
