// The firmware's vector operations (pccx_ops) on the platform: pieces of
// long element-wise CVOs, a long REDUCE_SUM accumulated piece by piece, and
// RMSNorm, against double-precision references within the bounds their BF16
// roundings allow (docs/guides/firmware.md, "Vector operations").
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "firmware_test_io.h"
#include "pccx_ops.h"
#include "platform_test_util.h"
#include "uCA_v1_api.h"

using namespace pccx;
using namespace pccx::test;

namespace {

constexpr uint32_t kLong = 5000;  // three pieces of at most 2048
constexpr uint32_t kHidden = 2048;
constexpr uint64_t kIn = 0x70000000ull, kIn2 = 0x70010000ull, kOut = 0x70020000ull;
constexpr uint64_t kScratch = 0x70030000ull;
std::vector<uint16_t> g_x, g_gamma, g_y;
int g_rc_refuse = 0, g_rc_long = 0, g_rc_unprepared = 0;

int exp_and_sum(void) {
  pccx_host_write(kIn, g_x.data(), g_x.size() * 2);
  set_vector_shape(1, static_cast<uint16_t>(kLong));
  ddr_to_l2(kIn, kLong * 2, 0x100, 1, 1);
  g_rc_refuse = pccx_cvo_long(UCA_CVO_REDUCE_SUM, 0x100, 0x1000, kLong, 0, 0);
  if (pccx_cvo_long(UCA_CVO_EXP, 0x100, 0x1000, kLong, 0, 1) != PCCX_OPS_OK) return 4;
  if (pccx_reduce_sum_long(0x1000, kLong, 0x2000, 0) != PCCX_OPS_OK) return 5;
  set_vector_shape(2, static_cast<uint16_t>(kLong + 8));  // the exp vector and the sum word
  l2_to_ddr(0x1000, 1, kOut, kLong * 2, 2);
  if (int rc = read_result(100000, kOut, g_y.data(), kLong * 2)) return rc;
  set_vector_shape(3, 8);
  l2_to_ddr(0x2000, 3, kOut + 0x8000, 16, 3);
  uint16_t sum[8];
  if (int rc = read_result(100000, kOut + 0x8000, sum, 16)) return rc;
  g_y.push_back(sum[0]);
  return 0;
}

int rmsnorm(void) {
  pccx_host_write(kIn, g_x.data(), g_x.size() * 2);
  pccx_host_write(kIn2, g_gamma.data(), g_gamma.size() * 2);
  set_vector_shape(1, kHidden);
  ddr_to_l2(kIn, kHidden * 2, 0x100, 1, 1);
  ddr_to_l2(kIn2, kHidden * 2, 0x400, 1, 2);
  pccx_rmsnorm_ws ws = {0x1000, 9, kScratch, 0};
  g_rc_long = pccx_rmsnorm_prepare(&ws, kHidden + 8, 0x3586);
  g_rc_unprepared = pccx_rmsnorm(&ws, 0x100, 0x400, 0x800, kHidden);
  if (pccx_rmsnorm_prepare(&ws, kHidden, 0x3586 /* 1e-6 */) != PCCX_OPS_OK) return 4;
  if (pccx_rmsnorm(&ws, 0x100, 0x400, 0x800, kHidden) != PCCX_OPS_OK) return 5;
  set_vector_shape(1, kHidden);  // the op used slot 9, not 1
  l2_to_ddr(0x800, 1, kOut, kHidden * 2, 3);
  return read_result(100000, kOut, g_y.data(), kHidden * 2);
}

// Without gamma, times a scalar word (3.0), and the magnitude alone.
int rmsnorm_ex_and_value(void) {
  pccx_host_write(kIn, g_x.data(), g_x.size() * 2);
  const uint16_t three[8] = {to_bf16(3.0f), 0, 0, 0, 0, 0, 0, 0};
  pccx_host_write(kIn2, three, 16);
  set_vector_shape(1, kHidden);
  set_vector_shape(2, 8);
  ddr_to_l2(kIn, kHidden * 2, 0x100, 1, 1);
  ddr_to_l2(kIn2, 16, 0x600, 2, 2);
  pccx_rmsnorm_ws ws = {0x1000, 9, kScratch, 0};
  if (pccx_rmsnorm_prepare(&ws, kHidden, 0x3586 /* 1e-6 */) != PCCX_OPS_OK) return 4;
  if (pccx_rmsnorm_ex(&ws, 0x100, PCCX_OPS_NONE, 0x800, kHidden, 0x600) != PCCX_OPS_OK) return 5;
  if (pccx_rms_value(&ws, 0x100, 0xC00, kHidden) != PCCX_OPS_OK) return 6;
  set_vector_shape(1, kHidden + 8);  // the vector and, after it, nothing else
  l2_to_ddr(0x800, 1, kOut, kHidden * 2 + 16, 3);
  if (int rc = read_result(100000, kOut, g_y.data(), kHidden * 2)) return rc;
  set_vector_shape(2, 8);
  l2_to_ddr(0xC00, 2, kOut + 0x8000, 16, 4);
  uint16_t mag[8];
  if (int rc = read_result(100000, kOut + 0x8000, mag, 16)) return rc;
  g_y.push_back(mag[0]);
  return 0;
}

}  // namespace

TEST(VectorOps, LongExpAndSumGoPieceByPiece) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-3.0f, 1.0f);
  g_x.assign(kLong, 0);
  for (auto& v : g_x) v = to_bf16(u(rng));
  g_y.assign(kLong, 0);
  const auto r =
      vp::run_simulation(config::platform_config{}, test_firmware(&exp_and_sum, "ops"), nullptr);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  EXPECT_EQ(g_rc_refuse, PCCX_OPS_E_ARG) << "REDUCE_SUM is not element-wise";
  ASSERT_EQ(g_y.size(), kLong + 1u);
  double sum = 0;
  for (uint32_t i = 0; i < kLong; ++i) {
    const double want = std::exp(double(from_bf16(g_x[i])));
    EXPECT_NEAR(from_bf16(g_y[i]), want, want / 128) << "element " << i;  // 1 BF16 ulp
    sum += from_bf16(g_y[i]);
  }
  // FP32 sums of BF16 values, three partial sums each rounded to BF16 when
  // written: within 3 BF16 roundings of the exact sum.
  EXPECT_NEAR(from_bf16(g_y[kLong]), sum, sum * 3.0 / 256) << "sum of " << kLong;
  EXPECT_EQ(counter(r, "sfu_instructions"), 3u + 3u);  // 3 EXP pieces, 3 REDUCE_SUM pieces
}

// out = gamma * x / sqrt(mean(x^2) + eps): seven BF16 roundings on the way
// (square, sum, mean, + eps, sqrt, 1/rms, x / rms, * gamma), each at most
// 2^-9 relative: within 2 % of the double result per element.
TEST(VectorOps, RmsNormMatchesTheReference) {
  std::mt19937 rng(9);
  std::normal_distribution<float> nd(0.0f, 2.0f);
  g_x.assign(kHidden, 0), g_gamma.assign(kHidden, 0), g_y.assign(kHidden, 0);
  for (auto& v : g_x) v = to_bf16(nd(rng));
  for (auto& v : g_gamma) v = to_bf16(0.5f + 0.25f * nd(rng));
  const auto r =
      vp::run_simulation(config::platform_config{}, test_firmware(&rmsnorm, "rmsnorm"), nullptr);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  EXPECT_EQ(g_rc_long, PCCX_OPS_E_LENGTH) << "longer than one CVO";
  EXPECT_EQ(g_rc_unprepared, PCCX_OPS_E_ARG) << "constants not staged for this length";
  double ss = 0;
  for (uint16_t v : g_x) ss += double(from_bf16(v)) * from_bf16(v);
  const double inv_rms = 1.0 / std::sqrt(ss / kHidden + 1e-6);
  double worst = 0;
  for (uint32_t i = 0; i < kHidden; ++i) {
    const double want = from_bf16(g_gamma[i]) * from_bf16(g_x[i]) * inv_rms;
    const double err = std::fabs(from_bf16(g_y[i]) - want);
    worst = std::max(worst, err / std::max(std::fabs(want), 1e-3));
    EXPECT_LE(err, 0.02 * std::fabs(want) + 1e-6) << "element " << i;
  }
  RecordProperty("worst_relative_error", std::to_string(worst));
  std::printf("RMSNorm 2048: worst relative error %.4g\n", worst);
}

// pccx_rmsnorm_ex without gamma and with a scalar: 3 x / rms within the same
// 2 % as RMSNorm; pccx_rms_value: sqrt(mean(x^2) + eps) within 4 BF16
// roundings.
TEST(VectorOps, RmsNormWithAScalarAndTheMagnitude) {
  std::mt19937 rng(12);
  std::normal_distribution<float> nd(0.0f, 2.0f);
  g_x.assign(kHidden, 0), g_y.assign(kHidden, 0);
  for (auto& v : g_x) v = to_bf16(nd(rng));
  const auto r = vp::run_simulation(config::platform_config{},
                                    test_firmware(&rmsnorm_ex_and_value, "rmsnorm_ex"), nullptr);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  ASSERT_EQ(g_y.size(), kHidden + 1u);
  double ss = 0;
  for (uint16_t v : g_x) ss += double(from_bf16(v)) * from_bf16(v);
  const double rms = std::sqrt(ss / kHidden + 1e-6);
  for (uint32_t i = 0; i < kHidden; ++i) {
    const double want = 3.0 * from_bf16(g_x[i]) / rms;
    EXPECT_LE(std::fabs(from_bf16(g_y[i]) - want), 0.02 * std::fabs(want) + 1e-6)
        << "element " << i;
  }
  EXPECT_NEAR(from_bf16(g_y[kHidden]), rms, rms * 4.0 / 256);
}
