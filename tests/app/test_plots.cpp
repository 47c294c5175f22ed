// The plots and speed figures through the pccx-vp executable: a plain run
// with --out and output.plots writes a well-formed ddr_bandwidth.svg next to
// summary.json; plots without a folder are a configuration error.
#include <cmath>

#include "e2e_util.h"
#include "svg_reader.h"

namespace e2e {
namespace {

using pccx::test::xml::element;

class Plots : public E2E {};

TEST_F(Plots, PlainRunWritesTheBandwidthSvgAndTheSpeed) {
  const auto r = vp({"--firmware", "dma_roundtrip", "--out", "out", "--set", "output.plots=true"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const json s = json::parse(read_file(path("out/summary.json")));
  const element svg = pccx::test::xml::parse(read_file(path("out/ddr_bandwidth.svg")));
  EXPECT_EQ(svg.name, "svg");
  for (const auto& [cls, totals] : s["memory"]["ddr"]["bandwidth"]["classes"].items()) {
    const element* series = svg.by_id("ddr-" + cls);
    const uint64_t bytes = totals["bytes"];
    ASSERT_EQ(series != nullptr, bytes != 0) << cls;
    if (series) {
      EXPECT_EQ(std::llround(pccx::test::xml::path_area(series->attr("d"))),
                static_cast<long long>(bytes))
          << cls;
    }
  }
  EXPECT_FALSE(s.contains("speed"));
  EXPECT_FALSE(s.contains("wall_time_s"));
  const json speed = json::parse(read_file(path("out/speed.json")));
  EXPECT_GT(speed.at("sim_per_wall").get<double>(), 0);
  EXPECT_GT(speed.at("peak_rss_mib").get<double>(), 0);
  EXPECT_GT(speed.at("ddr_transactions_per_wall_s").get<double>(), 0);
  EXPECT_GT(speed.at("npu_instructions_per_wall_s").get<double>(), 0);
  EXPECT_EQ(speed.at("npu_instructions"), s.at("instructions_retired"));
  // What the run printed, in the summary too.
  for (const auto& line : s.at("printed")) EXPECT_TRUE(contains(r.out, line.get<std::string>()));
  EXPECT_EQ(s["config"]["output"]["plots"], true);
}

// No wall-clock value in the plot: two runs of the same decode give the
// same file, byte for byte.
TEST_F(Plots, TheBandwidthSvgOfADecodeIsDeterministic) {
  for (const char* out : {"a", "b"}) {
    const auto r =
        vp({"decode", "--model", std::string(PCCX_SOURCE_DIR) + "/configs/models/tiny.json",
            "--context", "16", "--tokens", "2", "--set", "simulation.mode=timing", "--out", out,
            "--set", "output.plots=true"});
    ASSERT_EQ(r.exit_code, 0) << describe(r);
  }
  const std::string a = read_file(path("a/ddr_bandwidth.svg"));
  EXPECT_GT(a.size(), 1000u);
  EXPECT_EQ(a, read_file(path("b/ddr_bandwidth.svg")));
  EXPECT_NO_THROW(pccx::test::xml::parse(a));
}

TEST_F(Plots, PlotsWithoutAFolderAreAConfigurationError) {
  const auto r = vp({"--firmware", "dma_roundtrip", "--set", "output.plots=true"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(contains(r.err, "/output/plots")) << r.err;
  EXPECT_TRUE(contains(r.err, "output.dir")) << r.err;
  EXPECT_TRUE(contains(r.err, "--out")) << r.err;
}

}  // namespace
}  // namespace e2e
