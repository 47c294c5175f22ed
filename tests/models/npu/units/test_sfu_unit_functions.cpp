// Every CVO function over a sweep of BF16 inputs (zeros, negatives, large,
// tiny, subnormal, inf, NaN) against a double libm reference rounded to
// BF16, with the error bounds of docs/models/sfu.md.
#include <gtest/gtest.h>

#include <random>

#include "sfu_bench.h"
#include "sfu_reference.h"

using namespace pccx;
using namespace pccx::test;

namespace {

constexpr uint32_t kSrc = 0x100, kDst = 0x1000;

// Runs `func` over the sweep and checks every element within `max_ulp`.
void check_function(uint8_t func, uint32_t max_ulp,
                    npu::sfu_gelu_form form = npu::sfu_gelu_form::tanh) {
  sfu_bench_options o;
  o.sfu.section.gelu = form;
  sfu_bench b(o);
  const std::vector<uint16_t> in = pattern_sweep(37);
  ASSERT_LE(in.size(), 2048u);
  const auto n = static_cast<uint16_t>(in.size());
  b.put(kSrc, in);
  sfu_outcome r;
  b.run([&](sfu_driver& d) { r = d.execute(cvo(func, kSrc, kDst, n)); });
  ASSERT_EQ(r.err, 0u) << r.detail;
  const auto out = b.get(kDst, n);
  unsigned bad = 0;
  for (size_t i = 0; i < in.size() && bad < 10; ++i) {
    const double x = bf16::to_float(in[i]);
    const auto ok = within_ulp(out[i], sfu_ref(func, x, 1.0, 0.0, form), max_ulp);
    if (!ok) ++bad;
    EXPECT_TRUE(ok) << "x = " << x << " (0x" << std::hex << in[i] << ")";
  }
  EXPECT_EQ(b.sfu->statistics().elements, n);
  EXPECT_EQ(b.perf().value(PCCX_PERF_SFU_ELEMENTS), n);
}

}  // namespace

TEST(SfuFunctions, Exp) {
  check_function(UCA_CVO_EXP, 1);
}
TEST(SfuFunctions, Sqrt) {
  check_function(UCA_CVO_SQRT, 1);
}
TEST(SfuFunctions, GeluTanhForm) {
  check_function(UCA_CVO_GELU, 1);
}
TEST(SfuFunctions, GeluSigmoidForm) {
  check_function(UCA_CVO_GELU, 1, npu::sfu_gelu_form::sigmoid);
}
TEST(SfuFunctions, Sin) {
  check_function(UCA_CVO_SIN, 1);
}
TEST(SfuFunctions, Cos) {
  check_function(UCA_CVO_COS, 1);
}
TEST(SfuFunctions, Recip) {
  check_function(UCA_CVO_RECIP, 1);
}
TEST(SfuFunctions, Tanh) {
  check_function(PCCX_CVO_TANH, 1);
}
TEST(SfuFunctions, MaxIsExactRelu) {
  check_function(PCCX_CVO_MAX, 0);
}

TEST(SfuFunctions, GeluFormsDiffer) {
  // The two forms are different functions: at x = -2 they differ by more
  // than a BF16 ulp, so the form setting is not ignored.
  const double t = gelu_ref(-2.0, npu::sfu_gelu_form::tanh);
  const double s = gelu_ref(-2.0, npu::sfu_gelu_form::sigmoid);
  EXPECT_GT(bf16::ulp_distance(bf16::from_double(t), bf16::from_double(s)), 4u);
}

TEST(SfuFunctions, SpotValues) {
  sfu_bench b;
  b.put(kSrc, {0x0000, 0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x4080 /*4*/, 0x8000, 0x7FC0});
  std::vector<uint16_t> e, s, r, m;
  b.run([&](sfu_driver& d) {
    d.execute(cvo(UCA_CVO_EXP, kSrc, kDst, 8));
    e = b.get(kDst, 8);
    d.execute(cvo(UCA_CVO_SQRT, kSrc, kDst, 8));
    s = b.get(kDst, 8);
    d.execute(cvo(UCA_CVO_RECIP, kSrc, kDst, 8));
    r = b.get(kDst, 8);
    d.execute(cvo(PCCX_CVO_MAX, kSrc, kDst, 8));
    m = b.get(kDst, 8);
  });
  EXPECT_EQ(e[0], 0x3F80);  // exp(0) = 1
  EXPECT_EQ(e[3], bf16::kPosInf);
  EXPECT_EQ(e[4], 0x0000);  // exp(-inf) = +0
  EXPECT_TRUE(bf16::is_nan(e[7]));
  EXPECT_EQ(s[5], 0x4000);          // sqrt(4) = 2
  EXPECT_TRUE(bf16::is_nan(s[2]));  // sqrt(-1)
  EXPECT_EQ(s[6], 0x8000);          // sqrt(-0) = -0
  EXPECT_EQ(r[0], bf16::kPosInf);   // 1/+0
  EXPECT_EQ(r[6], bf16::kNegInf);   // 1/-0
  EXPECT_EQ(r[3], 0x0000);          // 1/inf
  EXPECT_EQ(r[5], 0x3E80);          // 1/4
  EXPECT_EQ(m[2], 0x0000);          // max(-1, 0)
  EXPECT_EQ(m[6], 0x0000);          // max(-0, 0) = +0
  EXPECT_EQ(m[3], bf16::kPosInf);
  EXPECT_TRUE(bf16::is_nan(m[7]));
}

// REDUCE_SUM: FP32 sequential sum. Bound (docs/models/sfu.md):
// |got - exact| <= 2^-8 |exact| + (n - 1) 2^-24 sum|x_i| (+ smallest subnormal).
TEST(SfuFunctions, ReduceSumWithinDerivedBound) {
  sfu_bench b;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> pos(0.0f, 10.0f), mixed(-100.0f, 100.0f);
  const uint16_t n = 2048;
  std::vector<uint16_t> a(n), c(n);
  for (auto& v : a) v = bf16::from_float(pos(rng));
  for (auto& v : c) v = bf16::from_float(mixed(rng));
  b.put(kSrc, a);
  b.put(kSrc + 256, c);
  b.put(kDst, std::vector<uint16_t>(8, 0x4120));  // prior contents: 10.0
  b.put(kDst + 1, std::vector<uint16_t>(8, 0x4120));
  b.run([&](sfu_driver& d) {
    EXPECT_EQ(d.execute(cvo(UCA_CVO_REDUCE_SUM, kSrc, kDst, n)).err, 0u);
    EXPECT_EQ(d.execute(cvo(UCA_CVO_REDUCE_SUM, kSrc + 256, kDst + 1, n)).err, 0u);
  });
  for (int k = 0; k < 2; ++k) {
    const auto& v = k ? c : a;
    double exact = 0, abs_sum = 0;
    for (uint16_t x : v) {
      exact += bf16::to_float(x);
      abs_sum += std::fabs(bf16::to_float(x));
    }
    const auto out = b.get(kDst + k, 8);
    const double bound = std::ldexp(std::fabs(exact), -8) + (n - 1) * std::ldexp(abs_sum, -24);
    EXPECT_LE(std::fabs(bf16::to_float(out[0]) - exact), bound) << "vector " << k;
    for (int i = 1; i < 8; ++i) EXPECT_EQ(out[i], 0u) << "element " << i << " not zeroed";
  }
  EXPECT_EQ(b.get(kDst + 2, 1)[0], 0u) << "REDUCE_SUM wrote past one word";
}

TEST(SfuFunctions, ReduceSumOfSingleAndPartialWords) {
  sfu_bench b;
  b.put(kSrc, {0x3F80, 0x4000, 0x4040, 0x4080, 0x40A0, 0x40C0, 0x40E0, 0x4100, 0x4110});  // 1..9
  std::vector<uint16_t> o1, o9;
  b.run([&](sfu_driver& d) {
    d.execute(cvo(UCA_CVO_REDUCE_SUM, kSrc, kDst, 1));
    o1 = b.get(kDst, 1);
    d.execute(cvo(UCA_CVO_REDUCE_SUM, kSrc, kDst, 9));
    o9 = b.get(kDst, 1);
  });
  EXPECT_EQ(o1[0], 0x3F80);
  EXPECT_EQ(o9[0], 0x4234);  // 45
}

TEST(SfuFunctions, PartialLastWordLeavesTheRestOfTheWordAlone) {
  sfu_bench b;
  b.put(kDst, std::vector<uint16_t>(16, 0x1234));
  b.put(kSrc, {0x0000, 0x0000, 0x0000});
  b.run([&](sfu_driver& d) { d.execute(cvo(UCA_CVO_EXP, kSrc, kDst, 3)); });
  const auto out = b.get(kDst, 16);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(out[i], 0x3F80);
  // Whole words are written: elements past `length` in the last word are zeroed.
  for (int i = 3; i < 8; ++i) EXPECT_EQ(out[i], 0u) << "tail element " << i;
  for (int i = 8; i < 16; ++i) EXPECT_EQ(out[i], 0x1234) << "wrote past the last word";
}
