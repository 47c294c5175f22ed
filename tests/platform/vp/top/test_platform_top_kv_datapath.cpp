// The KV-cache datapath from firmware, end to end: the driver's ring
// (pccx_kv) over DDR, MEMCPY kv-append quantizing each token's K and V in
// line into its ring slot, then the valid K and V streams read back through
// HP2/HP3 into GEMV key-row and value-accumulate instructions. The ring
// bytes must be exactly the host codec's records and the GEMV results
// exactly what the codec's decoded values give (the GEMV tests' reference).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "firmware_test_io.h"
#include "gemv_kv_reference.h"
#include "models/kv/kv_codec.h"
#include "pccx_dma.h"
#include "pccx_host_mem.h"
#include "pccx_isa.h"
#include "pccx_kv.h"
#include "pccx_uca_ext.h"
#include "platform/config/platform_config.h"
#include "platform_test_util.h"
#include "uCA_v1_api.h"

using namespace pccx;
using namespace pccx::test;

namespace {

constexpr uint32_t kD = 256;      // head_dim
constexpr uint32_t kTokens = 11;  // appended: the 8-slot ring wraps
constexpr uint32_t kCap = 8, kSinks = 2;
constexpr uint32_t kHeads = 4;              // query heads sharing the KV head
constexpr uint64_t kStage = 0x60000000ull;  // K_t, V_t BF16 per token (1 KiB)
constexpr uint64_t kQ = 0x60100000ull, kP = 0x60110000ull;
constexpr uint64_t kOutK = 0x60120000ull, kOutV = 0x60130000ull;
constexpr uint64_t kRing = 0x61000000ull;

uint32_t g_kbytes = 0, g_vbytes = 0, g_valid = 0;
uint32_t g_stream_pos[kCap];
uint16_t g_scores[kHeads * kCap], g_out[kHeads * kD];
pccx_kv_handle g_kv;
std::vector<uint8_t> g_ring_k, g_ring_v;
std::vector<uint16_t> g_stage, g_q, g_p;  // host data, written by the firmware's first step

int append_and_read(void) {
  pccx_kv_configure(&g_kv, 1, 1, g_kbytes, g_vbytes, kRing, 1u << 20);
  pccx_kv_set_sinks(&g_kv, kSinks);
  if (pccx_kv_init(&g_kv, kCap) != PCCX_KV_OK) return 10;
  set_vector_shape(1, 2 * kD);  // one token's K and V
  set_vector_shape(2, kD);      // one head-vector
  pccx_dma_set_class(PCCX_DMA_ACP_RESULT, PCCX_DMA_CLASS_KV_WRITE);
  for (uint32_t t = 0; t < kTokens; ++t) {
    ddr_to_l2(kStage + t * 4 * kD, 4 * kD, 0x100, 1, 1);
    uint32_t pos;
    uint64_t kslot, vslot;
    if (pccx_kv_append_token(&g_kv, &pos) != PCCX_KV_OK || pos != t) return 11;
    pccx_kv_append_slot(&g_kv, 0, 0, PCCX_KV_K, &kslot);
    pccx_kv_append_slot(&g_kv, 0, 0, PCCX_KV_V, &vslot);
    pccx_dma_submit(PCCX_DMA_ACP_RESULT, kslot, g_kbytes, 2);
    uca_memcpy(PCCX_ROUTE_KV_APPEND, 0, 0x100, 2, 0);  // dest 0: the key format
    pccx_dma_submit(PCCX_DMA_ACP_RESULT, vslot, g_vbytes, 3);
    uca_memcpy(PCCX_ROUTE_KV_APPEND, 1, 0x100 + kD / 8, 2, 0);  // dest 1: values
    if (uca_sync(100000) != 0) return 12;
    pccx_dma_status st;
    for (int i = 0; i < 3; ++i)
      if (pccx_dma_wait_status(i == 0 ? PCCX_DMA_ACP_FMAP : PCCX_DMA_ACP_RESULT, &st, 10000) !=
              PCCX_DMA_OK ||
          st.errors)
        return 13;
  }
  g_valid = pccx_kv_valid_tokens(&g_kv);
  for (uint32_t i = 0; i < g_valid; ++i) pccx_kv_stream_position(&g_kv, i, &g_stream_pos[i]);
  // The rings' bytes in stream order, for the host to compare.
  for (int v = 0; v < 2; ++v) {
    pccx_kv_segment seg[2];
    const int n = pccx_kv_segments(&g_kv, 0, 0, v, seg);
    std::vector<uint8_t>& out = v ? g_ring_v : g_ring_k;
    out.clear();
    for (int i = 0; i < n; ++i) {
      const size_t at = out.size();
      out.resize(at + seg[i].bytes);
      pccx_host_read(seg[i].addr, out.data() + at, seg[i].bytes);
    }
  }

  // Scores: 4 query heads against the valid keys, streamed over HP2 + HP3.
  pccx_dma_set_class(PCCX_DMA_ACP_RESULT, PCCX_DMA_CLASS_ACTIVATIONS);
  set_vector_shape(3, kHeads * kD);
  ddr_to_l2(kQ, kHeads * kD * 2, 0x400, 3, 4);
  set_weight_shape(4, kHeads, static_cast<uint16_t>(g_valid), kD);
  const unsigned hp[2] = {PCCX_DMA_HP2, PCCX_DMA_HP3};
  if (pccx_kv_submit_stream_split(&g_kv, 0, 0, PCCX_KV_K, hp, 2, 5, nullptr) <= 0) return 14;
  uca_gemv(0x800, 0x400, PCCX_WFMT_KV_KEY_ROWS, 3, 4, 0);
  set_vector_shape(5, static_cast<uint16_t>(kHeads * g_valid));
  l2_to_ddr(0x800, 5, kOutK, kHeads * g_valid * 2, 6);
  if (int rc = read_result(100000, kOutK, g_scores, kHeads * g_valid * 2)) return 20 + rc;

  // Attention output: probabilities (given by the host) times the values.
  ddr_to_l2(kP, kHeads * g_valid * 2, 0x600, 5, 7);
  set_weight_shape(6, kHeads, kD, static_cast<uint16_t>(g_valid));
  if (pccx_kv_submit_stream_split(&g_kv, 0, 0, PCCX_KV_V, hp, 2, 8, nullptr) <= 0) return 15;
  uca_gemv(0xA00, 0x600, PCCX_WFMT_KV_VALUE_ACCUMULATE, 5, 6, 0);
  l2_to_ddr(0xA00, 3, kOutV, kHeads * kD * 2, 9);
  if (int rc = read_result(100000, kOutV, g_out, kHeads * kD * 2)) return 30 + rc;
  return 0;
}

int kv_firmware(void) {
  pccx_host_write(kStage, g_stage.data(), g_stage.size() * 2);
  pccx_host_write(kQ, g_q.data(), g_q.size() * 2);
  pccx_host_write(kP, g_p.data(), g_p.size() * 2);
  return append_and_read();
}

struct kv_setup {
  const char* name;
  config::kv_format_config key, value;
};

config::kv_format_config fmt(const char* kind, uint32_t group = 0, uint32_t bits = 4) {
  config::kv_format_config c;
  c.kind = kind, c.group = group, c.bits = bits;
  return c;
}

class KvDatapath : public ::testing::TestWithParam<kv_setup> {};

}  // namespace

TEST_P(KvDatapath, AppendAndReadMatchTheHostCodec) {
  config::platform_config cfg;
  cfg.npu.kv.key = GetParam().key;
  cfg.npu.kv.value = GetParam().value;
  const kv::kv_format kf = config::to_kv_format(cfg.npu.kv.key, kD);
  const kv::kv_format vf = config::to_kv_format(cfg.npu.kv.value, kD);
  g_kbytes = kf.record_bytes(), g_vbytes = vf.record_bytes();

  // Each token: K then V, 256 BF16 each; queries; probabilities (4 x 8).
  std::mt19937 rng(11);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  g_stage.assign(kTokens * 2 * kD, 0), g_q.assign(kHeads * kD, 0), g_p.assign(kHeads * kCap, 0);
  for (auto& v : g_stage) v = to_bf16(nd(rng));
  for (auto& v : g_q) v = to_bf16(nd(rng));
  for (uint32_t h = 0; h < kHeads; ++h)
    for (uint32_t i = 0; i < kCap; ++i) g_p[h * kCap + i] = to_bf16(std::exp(-0.3f * i - 0.1f * h));

  const auto r = vp::run_simulation(cfg, test_firmware(&kv_firmware, "kv_datapath"), nullptr);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  ASSERT_EQ(g_valid, kCap) << "2 sinks + the 6 newest of 11 tokens";

  // The rings hold exactly the host codec's records of the right tokens.
  const kv::kv_codec kc(kf), vc(vf);
  kv_gemv_problem keys, values;
  keys.format = kf, keys.values = false, keys.M = kHeads, keys.R = g_valid, keys.x = g_q;
  values.format = vf, values.values = true, values.M = kHeads, values.R = g_valid, values.x = g_p;
  ASSERT_EQ(g_ring_k.size(), size_t{g_valid} * g_kbytes);
  ASSERT_EQ(g_ring_v.size(), size_t{g_valid} * g_vbytes);
  for (uint32_t i = 0; i < g_valid; ++i) {
    const uint32_t pos = g_stream_pos[i];
    EXPECT_TRUE(pos < kSinks || pos >= kTokens - (kCap - kSinks)) << "position " << pos;
    for (int v = 0; v < 2; ++v) {
      const kv::kv_codec& c = v ? vc : kc;
      const uint32_t rb = c.format().record_bytes();
      float x[kD];
      for (uint32_t e = 0; e < kD; ++e) x[e] = from_bf16(g_stage[(pos * 2 + v) * kD + e]);
      std::vector<uint8_t> want(rb);
      c.encode(x, want.data());
      const std::vector<uint8_t>& ring = v ? g_ring_v : g_ring_k;
      const std::vector<uint8_t> got(ring.begin() + size_t{i} * rb,
                                     ring.begin() + size_t{i + 1} * rb);
      EXPECT_EQ(got, want) << (v ? "V" : "K") << " record of position " << pos;
      std::vector<float> dec(kD);
      c.decode_rotated(got.data(), dec.data());
      (v ? values : keys).record.push_back(got);
      (v ? values : keys).decoded.push_back(dec);
    }
  }

  // The GEMV results are the codec's decoded values through the engine's
  // arithmetic (two FIFOs: the parts HP2 and HP3 carry).
  const auto want_scores = keys.expected(2), want_out = values.expected(2);
  for (uint32_t i = 0; i < kHeads * g_valid; ++i)
    EXPECT_EQ(g_scores[i], want_scores[i]) << "score " << i;
  for (uint32_t i = 0; i < kHeads * kD; ++i) EXPECT_EQ(g_out[i], want_out[i]) << "output " << i;

  // Traffic: the appends are KV writes, the streams KV reads.
  const auto& cls = r.memory["ddr"]["bandwidth"]["classes"];
  EXPECT_EQ(cls["kv_write"]["bytes"], uint64_t{kTokens} * (g_kbytes + g_vbytes));
  EXPECT_EQ(cls["kv_read"]["bytes"], uint64_t{g_valid} * (g_kbytes + g_vbytes));
}

INSTANTIATE_TEST_SUITE_P(Formats, KvDatapath,
                         ::testing::Values(kv_setup{"fp16", fmt("fp16"), fmt("fp16")},
                                           kv_setup{"int8_int4", fmt("int8", 256), fmt("int4", 32)},
                                           kv_setup{"rotated3", fmt("rotated", 0, 3),
                                                    fmt("rotated", 0, 3)}),
                         [](const auto& i) { return std::string(i.param.name); });
