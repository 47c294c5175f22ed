// The decode lower bound against hand-derived figures for Gemma 3n E4B
// (pccx-v002-digest.md section 4 computes the same bound at 10 GB/s).
#include <gtest/gtest.h>

#include "llm_test_util.h"
#include "platform/workload/llm/roofline.h"

using namespace pccx::llm;
using namespace llmtest;

TEST(Roofline, PccxDocVariantAt32KIsMemoryBound) {
  const auto m = gemma_doc();
  roofline_inputs in;
  in.ddr_bytes_per_second = 10e9;
  const roofline r = decode_roofline(m, kv_fp16(m), 32768, in);
  // KV read: 35 layers x 2 heads x (512 + 512) B x 32,768 tokens.
  EXPECT_EQ(r.kv_read_bytes, 35ull * 2048 * 32768);
  EXPECT_EQ(r.kv_write_bytes, 20ull * 2048);  // 20 storing layers
  // MACs: 4,485,832,704 for the matrices + 35 x 2 x 8 x 256 x 32,768.
  EXPECT_EQ(r.macs, 4485832704ull + 35ull * 2 * 8 * 256 * 32768);
  EXPECT_NEAR(r.compute_seconds, 9183453184.0 / 51.2e9, 1e-12);  // 179.4 ms
  // Weights as stored (INT4 records with per-row BF16 scales): 1.3 % above
  // the digest's 2.243 GB of bare INT4.
  EXPECT_GT(r.weight_bytes, 2272000000ull);
  EXPECT_LT(r.weight_bytes, 2275000000ull);
  EXPECT_TRUE(r.memory_bound);
  // The digest's 459.2 ms (bare INT4) plus the scales: 462 ms.
  EXPECT_NEAR(r.bound_seconds, (r.weight_bytes + 35.0 * 2048 * 32768 + 20 * 2048) / 10e9, 1e-12);
  EXPECT_GT(r.bound_seconds, 0.459);
  EXPECT_LT(r.bound_seconds, 0.463);
  EXPECT_NEAR(r.max_mac_utilisation, r.compute_seconds / r.memory_seconds, 1e-15);
}

TEST(Roofline, AsReleasedReadsLessKvAndFewerMacs) {
  const auto doc = gemma_doc(), rel = gemma();
  const roofline_inputs in;  // 11.003 GB/s, 51.2 GMAC/s
  const roofline a = decode_roofline(doc, kv_fp16(doc), 8192, in);
  const roofline b = decode_roofline(rel, kv_fp16(rel), 8192, in);
  EXPECT_EQ(b.kv_read_bytes, 146800640ull);  // 140 MiB: local layers read 512 tokens
  EXPECT_LT(b.kv_read_bytes, a.kv_read_bytes);
  EXPECT_LT(b.macs, a.macs);
  EXPECT_LT(b.bound_seconds, a.bound_seconds);
  EXPECT_TRUE(b.memory_bound);
}

TEST(Roofline, QuantisedKvMovesFewerBytes) {
  const auto m = gemma_doc();
  kv_formats int4 = kv_fp16(m);
  int4.key.kind = int4.value.kind = pccx::kv::kv_kind::int4;
  int4.key.group = 0, int4.value.group = 32;  // 128 + 144 bytes per head
  const roofline f = decode_roofline(m, kv_fp16(m), 32768, {});
  const roofline q = decode_roofline(m, int4, 32768, {});
  EXPECT_EQ(q.kv_read_bytes, 35ull * 2 * (128 + 144) * 32768);
  EXPECT_EQ(q.macs, f.macs);
  EXPECT_LT(q.bound_seconds, f.bound_seconds);
}

TEST(Roofline, BadRatesAreRefused) {
  const auto m = tiny();
  roofline_inputs in;
  in.ddr_bytes_per_second = 0;
  EXPECT_THROW(decode_roofline(m, kv_fp16(m), 16, in), std::invalid_argument);
}
