// The efficiency derivation at the defaults and its variants: every factor
// by hand from the JEDEC numbers, so a change in the formula fails here.
#include <gtest/gtest.h>

#include <iostream>

#include "models/memory/ddr/ddr_efficiency.h"
#include "platform/config/platform_config.h"

namespace pccx::mem {
namespace {

ddr_efficiency defaults() {
  return derive_efficiency(config::platform_config{}.ddr);
}

TEST(DdrEfficiency, DefaultsGiveAbout11GBps) {
  const ddr_efficiency e = defaults();
  std::cout << to_json(e).dump(2) << "\n";
  const double tck = 2000.0 / 2400;
  EXPECT_DOUBLE_EQ(e.tck_ns, tck);
  EXPECT_DOUBLE_EQ(e.peak_bytes_per_s, 19.2e9);
  EXPECT_DOUBLE_EQ(e.refresh_factor, 1.0 - 350.0 / 7800.0);
  EXPECT_DOUBLE_EQ(e.burst_factor, 1.0);  // BL/2 = 4 = tCCD_S
  const double page_ns = 8192 / 19.2;     // 426.67 ns
  const double row_ns = 32 * tck;         // tRP + tRCD = 26.67 ns
  EXPECT_NEAR(e.page_transfer_ns, page_ns, 1e-9);
  EXPECT_NEAR(e.row_switch_ns, row_ns, 1e-9);
  EXPECT_NEAR(e.row_switch_factor, page_ns / (page_ns + row_ns), 1e-12);
  EXPECT_DOUBLE_EQ(e.controller_factor, 0.75);
  EXPECT_DOUBLE_EQ(e.interconnect_factor, 0.85);
  EXPECT_DOUBLE_EQ(e.fixed_factor, 1.0);
  const double expected =
      19.2e9 * (1 - 350.0 / 7800) * (page_ns / (page_ns + row_ns)) * 0.75 * 0.85;
  EXPECT_NEAR(e.effective_bytes_per_s, expected, 1.0);
  EXPECT_GT(e.effective_bytes_per_s, 10e9);
  EXPECT_LT(e.effective_bytes_per_s, 12e9);
  EXPECT_NEAR(e.effective_bytes_per_s / 1e9, 11.0, 0.05);
}

TEST(DdrEfficiency, MixedFactorFromTurnarounds) {
  const ddr_efficiency e = defaults();
  // One 2 KiB read batch + one 2 KiB write batch = 256 tCK of data; the
  // cycle pays write->read CWL + BL/2 + tWTR_L = 16 + 4 + 9 = 29 tCK and
  // read->write CL - CWL + BL/2 + 2 = 6 tCK.
  EXPECT_EQ(e.write_to_read_tck, 29u);
  EXPECT_EQ(e.read_to_write_tck, 6u);
  EXPECT_NEAR(e.batch_ns, 256 * e.tck_ns, 1e-9);
  EXPECT_NEAR(e.mixed_factor, 256.0 / (256.0 + 35.0), 1e-12);
}

TEST(DdrEfficiency, FixedModelIsPeakTimesFixedEfficiency) {
  config::platform_config cfg;
  cfg.ddr.model = pccx::config::efficiency_model::fixed;
  const ddr_efficiency e = derive_efficiency(cfg.ddr);
  EXPECT_DOUBLE_EQ(e.effective_bytes_per_s, 19.2e9 * 0.57);
  EXPECT_DOUBLE_EQ(e.refresh_factor * e.row_switch_factor * e.controller_factor *
                       e.interconnect_factor * e.burst_factor,
                   1.0);
  EXPECT_NEAR(e.mixed_factor, 256.0 / 291.0, 1e-12);  // still applies
}

TEST(DdrEfficiency, DataRateAndTimingAreInputs) {
  config::platform_config cfg;
  cfg.ddr.data_rate_mtps = 2133;  // the u-boot board file's rate
  cfg.ddr.timing.cwl = 14;
  cfg.ddr.timing.twtr_l = 8;
  const ddr_efficiency e = derive_efficiency(cfg.ddr);
  EXPECT_DOUBLE_EQ(e.peak_bytes_per_s, 2133e6 * 8);
  EXPECT_EQ(e.write_to_read_tck, 14u + 4 + 8);
  EXPECT_EQ(e.read_to_write_tck, 16u - 14 + 4 + 2);
  EXPECT_LT(e.effective_bytes_per_s, defaults().effective_bytes_per_s);

  cfg = config::platform_config{};
  cfg.ddr.timing.tccd_s = 6;  // bursts to the same bank group
  const ddr_efficiency slow = derive_efficiency(cfg.ddr);
  EXPECT_NEAR(slow.burst_factor, 4.0 / 6.0, 1e-12);
}

}  // namespace
}  // namespace pccx::mem
