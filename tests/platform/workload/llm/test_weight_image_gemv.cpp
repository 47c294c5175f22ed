// The weight image's records are the GEMV's: decoded with the GEMV unit's
// own code (matmul::int4, bf16::load) every value equals the image's
// accessor, and a GEMV unit fed with a matrix's two planned parts (part 0
// into FIFO 0, part 1 into FIFO 1, as the decode's two weight streams)
// computes bit for bit what the GEMV's plain reference computes from those
// values.
#include <gtest/gtest.h>

#include "gemv_bench.h"
#include "gemv_reference.h"
#include "models/npu/units/bf16.h"
#include "models/npu/units/matmul_common.h"
#include "platform/workload/llm/ddr_plan.h"
#include "platform/workload/llm/model_config.h"
#include "platform/workload/llm/weight_image.h"
#include "uCA_v1_api.h"

using namespace pccx;

namespace {

llm::model_config tiny(const std::vector<std::string>& sets = {}) {
  return llm::load_model(std::string(PCCX_SOURCE_DIR) + "/configs/models/tiny.json", sets);
}

llm::ddr_plan plan_of(const llm::model_config& m) {
  return llm::plan_ddr(m, llm::kv_fp16(m), 24, 0, 0x100000000ull);
}

// A matrix of the image as a GEMV problem: its INT4 values and BF16 scales
// read from the records with the unit's decoding code, checked against the
// image's dequantised values.
test::gemv_problem problem_of(const llm::weight_image& w, const llm::planned_matrix& pm,
                              uint32_t seed) {
  const auto& weights = w.model().weights;
  test::gemv_problem p;
  p.N = pm.shape.rows;
  p.K = pm.shape.cols;
  p.w_scale = weights.scales;
  p.group = weights.scale_group;
  for (uint32_t r = 0; r < p.N; ++r) {
    const auto rec = w.record(pm.shape.layer, pm.shape.name, r);
    const uint32_t scales = p.w_scale ? p.S() : 0;
    for (uint32_t s = 0; s < scales; ++s) p.scales.push_back(npu::bf16::load(rec.data(), s));
    for (uint32_t k = 0; k < p.K; ++k)
      p.w.push_back(npu::matmul::int4(rec[2 * scales + k / 2], k & 1));
  }
  // The integers times their scales are the values the reference uses.
  const auto values = w.matrix(pm.shape.layer, pm.shape.name);
  for (uint32_t n = 0; n < p.N; ++n)
    for (uint32_t k = 0; k < p.K; ++k) {
      const float s = p.w_scale ? npu::bf16::to_float(p.scales[n * p.S() + k / p.G()]) : 1.0f;
      EXPECT_EQ(values[size_t(n) * p.K + k], float(p.w[size_t(n) * p.K + k]) * s)
          << pm.shape.name << " row " << n << " input " << k;
    }
  llm::synthetic_rng rng(seed);
  for (uint32_t k = 0; k < p.K; ++k) p.x.push_back(npu::bf16::from_double(2 * rng.uniform()));
  return p;
}

// Every value of every matrix through the GEMV's decoding equals the
// accessor's.
void expect_gemv_decoding(const llm::weight_image& w) {
  for (const auto& pm : w.plan().matrices) {
    SCOPED_TRACE(pm.shape.name + " of layer " + std::to_string(pm.shape.layer));
    const auto p = problem_of(w, pm, 1);  // compares the values
    for (uint32_t n = 0; n < p.N; ++n)
      ASSERT_EQ(p.record(n), w.record(pm.shape.layer, pm.shape.name, n));
  }
}

// Runs GEMVs of the named layer-0 and exit matrices on a GEMV unit fed from
// the image's planned parts.
void expect_unit_results(const llm::weight_image& w, uint32_t scale_group) {
  test::gemv_bench_options o;
  o.gemv.section.scale_group = scale_group;
  test::gemv_bench b(o);
  const std::vector<std::pair<int32_t, std::string>> names = {
      {0, "attn_q"}, {0, "attn_k"}, {0, "ffn_down"}, {-1, "lm_head"}};
  std::vector<test::gemv_problem> problems;
  std::vector<std::vector<uint16_t>> got;
  const auto blobs = w.blobs();
  b.run([&](test::gemv_driver& d) {
    constexpr uint32_t kSrc = 0x100, kDst = 0x2000;
    for (size_t i = 0; i < names.size(); ++i) {
      const auto& pm = w.plan().matrix(names[i].first, names[i].second);
      problems.push_back(problem_of(w, pm, 7 + uint32_t(i)));
      const auto& p = problems.back();
      b.put(kSrc, p.x);
      // The region's bytes as the plan places them: two parts, one per FIFO.
      const auto& region = blobs[&pm - w.plan().matrices.data()];
      ASSERT_EQ(region.addr, pm.base);
      for (uint32_t f = 0; f < 2; ++f)
        b.fifos[f]->push(pm.parts[f].bytes, sc_core::sc_time_stamp(),
                         region.bytes.data() + (pm.parts[f].addr - pm.base));
      test::gemv_call c;
      c.N = p.N, c.K = p.K, c.src = kSrc, c.dst = kDst;
      c.flags = p.w_scale ? UCA_FLAG_W_SCALE : 0;
      const auto out = d.execute(c);
      ASSERT_EQ(out.err, 0u) << out.detail;
      got.push_back(b.get(kDst, p.N));
    }
  });
  ASSERT_EQ(got.size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    SCOPED_TRACE(names[i].second);
    EXPECT_EQ(got[i], problems[i].expected(false));
  }
}

}  // namespace

TEST(WeightImageGemv, RecordsDecodeThroughTheGemvCodeToTheAccessorValues) {
  expect_gemv_decoding(llm::weight_image(tiny(), plan_of(tiny()), 3));
  const auto grouped = tiny({"weights.scale_group=32"});
  expect_gemv_decoding(llm::weight_image(grouped, plan_of(grouped), 3));
  const auto plain = tiny({"weights.scales=false"});
  expect_gemv_decoding(llm::weight_image(plain, plan_of(plain), 3));
}

TEST(WeightImageGemv, GemvUnitOnThePlannedPartsMatchesTheReference) {
  expect_unit_results(llm::weight_image(tiny(), plan_of(tiny()), 5), 0);
}

TEST(WeightImageGemv, GemvUnitWithScaleGroupsMatchesTheReference) {
  const auto m = tiny({"weights.scale_group=32"});
  expect_unit_results(llm::weight_image(m, plan_of(m), 5), 32);
}
