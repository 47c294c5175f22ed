// The DDR plan: which Gemma 3n E4B configurations fit the KV260's 4 GiB,
// the failure message, the layout rules (4 KiB regions, F-way row split,
// rings exactly as the driver lays them out), cross-checked against the
// driver's own ring arithmetic.
#include "llm_test_util.h"
#include "pccx_kv.h"

using namespace pccx::llm;
using llmtest::kKv260Ddr;

namespace {

// Region footprints, by hand (see the test below for the derivation).
constexpr uint64_t kWeights = 2272296960ull;   // 398 matrices, each rounded to 4 KiB
constexpr uint64_t kPleTable = 1195376640ull;  // 262,144 x 4,560 (a multiple of 4 KiB)
constexpr uint64_t kParameters = 1224704ull;   // 1,224,448 rounded up
constexpr uint64_t kLogits = 528384ull;        // 262,400 x 2 = 524,800 rounded up
uint64_t scratch_footprint(uint64_t cap) {
  // L2 image 114,688 x 16 + BF16 (4 x 2,048 + 35 x 256 + 8 x 256 + 8 x cap
  // + 2 x 16,384), rounded to 4 KiB.
  const uint64_t bytes = 114688ull * 16 + 2 * (8192 + 8960 + 2048 + 8 * cap + 32768);
  return (bytes + 4095) / 4096 * 4096;
}

void expect_well_formed(const ddr_plan& p) {
  uint64_t at = p.ddr_base;
  for (const auto& r : p.regions) {
    SCOPED_TRACE(r.name);
    EXPECT_EQ(r.base % 4096, 0u);
    EXPECT_GE(r.base, at);
    at = r.base + r.bytes;
  }
  EXPECT_LE(at, p.end);
  EXPECT_LE(p.end - p.ddr_base, p.ddr_size);
  for (const auto& pm : p.matrices) {
    SCOPED_TRACE(pm.shape.name);
    uint64_t sum = 0, rows = 0, next = pm.base;
    for (const auto& part : pm.parts) {
      EXPECT_EQ(part.addr, next);
      EXPECT_EQ(part.bytes, part.rows * pm.record_bytes);
      next += part.bytes;
      sum += part.bytes;
      rows += part.rows;
    }
    EXPECT_EQ(sum, pm.bytes);
    EXPECT_EQ(rows, pm.shape.rows);
  }
}

}  // namespace

TEST(DdrPlan, ReleasedFp16At32kFits) {
  const model_config m = llmtest::gemma();
  const ddr_plan p = plan_ddr(m, kv_fp16(m), 32768, 0, kKv260Ddr);
  expect_well_formed(p);
  EXPECT_EQ(p.category_bytes("weights"), kWeights);
  EXPECT_EQ(p.category_bytes("tables"), kPleTable);
  EXPECT_EQ(p.category_bytes("parameters"), kParameters);
  // Global rings: 4 layers x 2 heads x 32,768 x (512 + 512); local rings
  // hold the 512-token window: 16 x 2 x 512 x 1,024.
  ASSERT_EQ(p.kv_rings.size(), 2u);
  EXPECT_EQ(p.kv_rings[0].name, "kv.local");
  EXPECT_EQ(p.kv_rings[0].max_tokens, 512u);
  EXPECT_EQ(p.kv_rings[0].bytes, 16ull * 2 * 512 * 1024);
  EXPECT_EQ(p.kv_rings[1].name, "kv.global");
  EXPECT_EQ(p.kv_rings[1].layers, (std::vector<uint32_t>{4, 9, 14, 19}));
  EXPECT_EQ(p.kv_rings[1].bytes, 4ull * 2 * 32768 * 1024);
  EXPECT_EQ(p.category_bytes("kv"), 285212672u);
  EXPECT_EQ(p.category_bytes("host"), kLogits);
  const uint64_t used =
      kWeights + kPleTable + kParameters + 285212672u + scratch_footprint(32768) + kLogits;
  EXPECT_EQ(used, 3757105152u);
  EXPECT_EQ(p.end, used);
  EXPECT_EQ(kKv260Ddr - used, 537862144u);  // 513 MiB left
}

// For a prefill of 191-row chunks the local rings hold 512 + 190 records
// and keep the window of 512: 16 x 2 x 702 x 1,024 bytes.
TEST(DdrPlan, WindowRingsHoldAPrefillChunkBeyondTheWindow) {
  const model_config m = llmtest::gemma();
  plan_options o;
  o.window_extra = 190;
  const ddr_plan p = plan_ddr(m, kv_fp16(m), 32768, 0, kKv260Ddr, o);
  expect_well_formed(p);
  ASSERT_EQ(p.kv_rings.size(), 2u);
  EXPECT_EQ(p.kv_rings[0].max_tokens, 702u);
  EXPECT_EQ(p.kv_rings[0].window, 512u);
  EXPECT_EQ(p.kv_rings[0].bytes, 16ull * 2 * 702 * 1024);
  EXPECT_EQ(p.kv_rings[1].max_tokens, 32768u);
  EXPECT_EQ(p.kv_rings[1].window, 0u);
}

TEST(DdrPlan, PccxDocFp16At32kDoesNotFit) {
  const model_config m = llmtest::gemma_doc();
  try {
    plan_ddr(m, kv_fp16(m), 32768, 0, kKv260Ddr);
    FAIL() << "expected ddr_plan_error";
  } catch (const ddr_plan_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "gemma3n-e4b-pccx-doc does not fit in DDR with max_tokens 32,768: weights "
              "2,272,296,960 (398 matrices of row records, each region 4,096-byte aligned) + "
              "per-layer embedding table 262,144 x 4,560 = 1,195,376,640 + BF16 parameters "
              "1,224,448 (1,224,704 aligned) + KV rings 20 x 2 x 32,768 x (512 + 512) = "
              "1,342,177,280 + activation scratch 2,463,232 (2,465,792 aligned) + logits 262,400 "
              "x 2 = 524,800 (528,384 aligned) = 4,814,069,760 > 4,294,967,296 "
              "(memory_map.ddr_size)");
  }
  // The same sum by hand.
  EXPECT_EQ(kWeights + kPleTable + kParameters + 1342177280ull + scratch_footprint(32768) + kLogits,
            4814069760ull);
}

TEST(DdrPlan, Cap8192FitsBothVariants) {
  for (const model_config& m : {llmtest::gemma(), llmtest::gemma_doc()}) {
    SCOPED_TRACE(m.name);
    const ddr_plan p = plan_ddr(m, kv_fp16(m), 8192, 0, kKv260Ddr);
    expect_well_formed(p);
  }
  const model_config doc = llmtest::gemma_doc();
  const ddr_plan p = plan_ddr(doc, kv_fp16(doc), 8192, 0, kKv260Ddr);
  ASSERT_EQ(p.kv_rings.size(), 1u);  // no window: one cap for all 20 layers
  EXPECT_EQ(p.kv_rings[0].name, "kv");
  EXPECT_EQ(p.kv_rings[0].bytes, 20ull * 2 * 8192 * 1024);
  EXPECT_EQ(p.end,
            kWeights + kPleTable + kParameters + 335544320u + scratch_footprint(8192) + kLogits);
}

TEST(DdrPlan, LargestFittingCap) {
  const model_config doc = llmtest::gemma_doc();
  const uint32_t cap = largest_fitting_cap(doc, kv_fp16(doc), 0, kKv260Ddr);
  EXPECT_NO_THROW(plan_ddr(doc, kv_fp16(doc), cap, 0, kKv260Ddr));
  EXPECT_THROW(plan_ddr(doc, kv_fp16(doc), cap + 1, 0, kKv260Ddr), ddr_plan_error);
  // Everything but the rings and the scratch: 2,272,296,960 + 1,195,376,640
  // + 1,224,704 + 528,384 = 3,469,426,688, leaving 825,540,608. Each token
  // costs 40,960 bytes of rings and 16 of attention scores on top of the
  // scratch's fixed 1,938,944: (825,540,608 - 1,938,944) / 40,976 = 20,099.6.
  EXPECT_EQ(cap, 20099u);
}

TEST(DdrPlan, HugeCapFailsWithTheArithmetic) {
  const model_config m = llmtest::gemma();
  try {
    plan_ddr(m, kv_fp16(m), 4000000, 0, kKv260Ddr);
    FAIL() << "expected ddr_plan_error";
  } catch (const ddr_plan_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("KV rings 16 x 2 x 512 x (512 + 512) + 4 x 2 x 4,000,000 x (512 + 512) "
                       "= 32,784,777,216"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("> 4,294,967,296 (memory_map.ddr_size)"), std::string::npos) << msg;
  }
}

TEST(DdrPlan, MatricesSplitIntoRowParts) {
  const model_config m = llmtest::gemma();
  const ddr_plan p = plan_ddr(m, kv_fp16(m), 8192, 0, kKv260Ddr);
  const planned_matrix& q = p.matrix(0, "attn_q");
  ASSERT_EQ(q.parts.size(), 2u);
  EXPECT_EQ(q.record_bytes, 1040u);
  EXPECT_EQ(q.parts[0].rows, 1024u);
  EXPECT_EQ(q.parts[1].addr, q.base + 1024u * 1040);
  // Even rows in part 0, odd rows in part 1, each in row order.
  EXPECT_EQ(q.row_addr(0), q.base);
  EXPECT_EQ(q.row_addr(2), q.base + 1040);
  EXPECT_EQ(q.row_addr(1), q.parts[1].addr);
  EXPECT_EQ(q.row_addr(2047), q.parts[1].addr + 1023u * 1040);
  // The tied embedding is the LM head's record of the token.
  const planned_matrix& lm = p.matrix(-1, "lm_head");
  EXPECT_EQ(p.embedding_row_addr(m, 7), lm.parts[1].addr + 3u * 1040);
  EXPECT_EQ(p.ple_row_addr(m, 7), p.find("ple_table").base + 7u * 4560);
  EXPECT_THROW(p.ple_row_addr(m, 262144), std::out_of_range);
  // Four streams: rows n mod 4; an odd row count leaves the later parts
  // one row short.
  plan_options o;
  o.weight_streams = 4;
  const ddr_plan p4 = plan_ddr(llmtest::tiny(), kv_fp16(llmtest::tiny()), 64, 0, 1 << 24, o);
  const planned_matrix& router = p4.matrix(0, "altup_router");
  for (const auto& part : router.parts) EXPECT_EQ(part.rows, 1u);
  EXPECT_EQ(p4.matrix(-1, "ple_model_proj").parts[0].rows, 40u);
  // Decode order in DDR: entry matrices, layers, exit matrices.
  EXPECT_EQ(p.matrices.front().shape.name, "altup_proj.1");
  EXPECT_EQ(p.matrices.back().shape.name, "lm_head");
  EXPECT_LT(p.matrix(3, "ffn_down").base, p.matrix(4, "altup_router").base);
}

TEST(DdrPlan, KvLocations) {
  const model_config m = llmtest::gemma();
  const ddr_plan p = plan_ddr(m, kv_fp16(m), 8192, 0, kKv260Ddr);
  // Layer 24 (global, shared) reads layer 19: the 4th global ring.
  auto g = p.kv_of(m, 24);
  EXPECT_EQ(g.group->name, "kv.global");
  EXPECT_EQ(g.index, 3u);
  // Layer 25 (local, shared) reads layer 18: the 16th local ring.
  auto l = p.kv_of(m, 25);
  EXPECT_EQ(l.group->name, "kv.local");
  EXPECT_EQ(l.index, 15u);
  EXPECT_EQ(l.group->layers[15], 18u);
  EXPECT_EQ(p.kv_of(m, 0).index, 0u);
  EXPECT_THROW(p.kv_of(m, 35), std::out_of_range);
}

TEST(DdrPlan, RingsMatchTheDriver) {
  // The plan sizes the rings with the driver's pccx_kv_required_bytes. A
  // driver handle configured from each ring group lays out exactly that
  // region: init succeeds in it, fails with 16 bytes less, and the last
  // record of the last stream ends at the region's end.
  const model_config m = llmtest::gemma();
  kv_formats f = kv_fp16(m);
  f.key.kind = pccx::kv::kv_kind::int8;
  f.key.group = 256;
  const ddr_plan p = plan_ddr(m, f, 8192, 0, kKv260Ddr);
  for (const auto& grp : p.kv_rings) {
    SCOPED_TRACE(grp.name);
    EXPECT_EQ(grp.k_record_bytes, 272u);
    pccx_kv_handle h;
    const uint32_t layers = static_cast<uint32_t>(grp.layers.size());
    pccx_kv_configure(&h, layers, grp.kv_heads, grp.k_record_bytes, grp.v_record_bytes, grp.base,
                      grp.bytes - 16);
    EXPECT_EQ(pccx_kv_init(&h, grp.max_tokens), PCCX_KV_E_NO_SPACE);
    pccx_kv_configure(&h, layers, grp.kv_heads, grp.k_record_bytes, grp.v_record_bytes, grp.base,
                      grp.bytes);
    ASSERT_EQ(pccx_kv_init(&h, grp.max_tokens), PCCX_KV_OK);
    for (uint32_t t = 0; t < grp.max_tokens; ++t) ASSERT_EQ(pccx_kv_append_token(&h, nullptr), 0);
    uint64_t addr = 0;
    ASSERT_EQ(pccx_kv_append_slot(&h, layers - 1, grp.kv_heads - 1, PCCX_KV_V, &addr), PCCX_KV_OK);
    EXPECT_EQ(addr + grp.v_record_bytes, grp.base + grp.bytes);
  }
}

TEST(DdrPlan, PlatformOverload) {
  const model_config m = llmtest::gemma();
  pccx::config::platform_config platform;  // the KV260 defaults
  const ddr_plan a = plan_ddr(m, platform, 8192);
  const ddr_plan b = plan_ddr(m, kv_fp16(m), 8192, 0, kKv260Ddr);
  EXPECT_EQ(a.end, b.end);
  EXPECT_EQ(a.weight_streams, 2u);
  platform.npu.gemv.scale_group = 32;
  try {
    plan_ddr(m, platform, 8192);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "gemma3n-e4b: weights.scale_group 0 differs from the platform's "
              "npu.gemv.scale_group 32");
  }
}

TEST(DdrPlan, BadArguments) {
  const model_config m = llmtest::tiny();
  EXPECT_THROW(plan_ddr(m, kv_fp16(m), 0, 0, 1 << 24), std::invalid_argument);
  EXPECT_THROW(plan_ddr(m, kv_fp16(llmtest::gemma()), 16, 0, 1 << 24), std::invalid_argument);
  plan_options o;
  o.alignment = 3000;
  EXPECT_THROW(plan_ddr(m, kv_fp16(m), 16, 0, 1 << 24, o), std::invalid_argument);
}

TEST(DdrPlan, UnalignedBaseAndTinyModel) {
  const model_config m = llmtest::tiny();
  const ddr_plan p = plan_ddr(m, kv_fp16(m), 64, 0x10, 1 << 24);
  expect_well_formed(p);
  EXPECT_EQ(p.regions.front().base, 0x1000u);
  // Tiny local rings keep the 8-token window.
  ASSERT_EQ(p.kv_rings.size(), 2u);
  EXPECT_EQ(p.kv_rings[0].max_tokens, 8u);
  EXPECT_EQ(p.kv_rings[1].layers, (std::vector<uint32_t>{4}));
  try {
    plan_ddr(m, kv_fp16(m), 64, 0x10, 1 << 20);
    FAIL() << "expected ddr_plan_error";
  } catch (const ddr_plan_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("tiny does not fit in DDR with max_tokens 64: "
                                          "alignment of ddr_base 4,080 + weights ",
                                          0),
              0u)
        << e.what();
  }
}
