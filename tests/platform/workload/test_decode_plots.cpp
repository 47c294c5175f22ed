// The decode's plots (platform/workload/decode_plots, docs/reference/plots.md):
// the latency bars against the report's per-token latency, and the example
// pictures of the documentation.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "platform/vp/report/svg_plot.h"
#include "platform/workload/decode_plots.h"
#include "plot_test_util.h"
#include "svg_reader.h"

using namespace pccx;
namespace fs = std::filesystem;
using test::plots::Plots;
using test::plots::read_text;
using test::plots::tiny_decode;
using test::xml::element;

// The latency bars: one per token, each token's segments adding up to its
// latency (in the segments' ns and in the drawn pixels).
namespace {

// mean_segments: 0 = no bar "mean".
void expect_bars(const element& svg, const workload::decode_report& rep, size_t segments,
                 size_t mean_segments) {
  const element* plot = svg.by_id("plot");
  ASSERT_NE(plot, nullptr);
  const double ns_per_px = plot->number("data-y-max-ns") / plot->number("data-height");
  const auto bars = svg.by_class("g", "token");
  ASSERT_EQ(bars.size(), rep.tokens);
  ASSERT_EQ(rep.latency_ns.size(), rep.tokens);
  auto check = [&](const element& bar, double want_ns, size_t want_segments) {
    const auto segs = bar.by_class("rect", "seg");
    EXPECT_EQ(segs.size(), want_segments);
    double ns = 0, height = 0;
    for (const auto* s : segs) {
      ns += s->number("data-ns");
      height += s->number("height");
    }
    EXPECT_NEAR(ns, want_ns, 0.05 * double(segs.size()) + 0.05);
    EXPECT_NEAR(bar.number("data-total-ns"), want_ns, 0.05);
    EXPECT_NEAR(height * ns_per_px, want_ns, 0.01 * ns_per_px);
  };
  double mean = 0;
  for (size_t t = 0; t < rep.tokens; ++t) {
    check(*bars[t], rep.latency_ns[t], segments);
    EXPECT_EQ(bars[t]->attr("data-index"), std::to_string(t));
    mean += rep.latency_ns[t] / rep.tokens;
  }
  const auto means = svg.by_class("g", "mean");
  ASSERT_EQ(means.size(), mean_segments ? 1u : 0u);
  if (mean_segments) check(*means[0], mean, mean_segments);
}

}  // namespace

TEST_F(Plots, LatencyBarsFromTheMarkers) {
  config::platform_config cfg;
  cfg.simulation.mode = pccx::config::sim_mode::timing;
  const auto rep = tiny_decode(cfg, 3, false);
  ASSERT_EQ(rep.run.exit_code, 0) << rep.run.message;
  workload::write_latency_breakdown_svg(rep, path("latency.svg"));
  const element svg = test::xml::parse(read_text(path("latency.svg")));
  // entry, 10 layers, exit (up to the token's end)
  expect_bars(svg, rep, 1 + 10 + 1, 0);
  EXPECT_EQ(workload::latency_breakdown_svg(rep), read_text(path("latency.svg")));
}

TEST_F(Plots, LatencyBarOfTheParts) {
  config::platform_config cfg;
  cfg.simulation.mode = pccx::config::sim_mode::timing;
  const auto rep = tiny_decode(cfg, 1, true);
  ASSERT_EQ(rep.run.exit_code, 0) << rep.run.message;
  ASSERT_EQ(rep.parts.size(), 13u);
  workload::write_latency_breakdown_svg(rep, path("latency.svg"));
  const element svg = test::xml::parse(read_text(path("latency.svg")));
  // entry, 10 layers, exit, sync: the parts themselves
  expect_bars(svg, rep, 13, 0);
  const auto segs = svg.by_class("g", "token")[0]->by_class("rect", "seg");
  for (size_t k = 0; k < rep.parts.size(); ++k)
    EXPECT_NEAR(segs[k]->number("data-ns"), rep.parts[k].ns, 0.05) << rep.parts[k].name;
}

TEST_F(Plots, LatencyBarsOfTokensAndTheMeanOfTheParts) {
  config::platform_config cfg;
  cfg.simulation.mode = pccx::config::sim_mode::timing;
  const auto rep = tiny_decode(cfg, 2, true);
  ASSERT_EQ(rep.run.exit_code, 0) << rep.run.message;
  workload::write_latency_breakdown_svg(rep, path("latency.svg"));
  const element svg = test::xml::parse(read_text(path("latency.svg")));
  // Tokens from their markers, the mean from the parts (with sync).
  expect_bars(svg, rep, 12, 13);
}

// The example pictures of docs/reference/plots.md: a tiny-model decode of two tokens
// with --per-layer and 2 us windows. With PCCX_UPDATE_DOCS set they are
// rewritten; otherwise the checked-in files must be well-formed and show
// what a fresh run shows: the same series and the same bars.
TEST_F(Plots, DocExamples) {
  auto cfg = plotting();
  cfg.stats.window_ns = 2000;
  cfg.output.run_name = "tiny model, L = 16, 2 tokens";
  const auto rep = tiny_decode(cfg, 2, true);
  ASSERT_EQ(rep.run.exit_code, 0) << rep.run.message;
  const std::string bandwidth = read_text(path("ddr_bandwidth.svg"));
  const std::string latency = workload::latency_breakdown_svg(rep);
  const std::string img = std::string(PCCX_SOURCE_DIR) + "/docs/img/";
  if (std::getenv("PCCX_UPDATE_DOCS")) {
    fs::create_directories(img);
    report::write_text_file(img + "ddr_bandwidth_tiny.svg", bandwidth);
    report::write_text_file(img + "decode_latency_tiny.svg", latency);
  }
  auto same_shape = [](const std::string& checked_in, const std::string& fresh) {
    const element a = test::xml::parse(checked_in), b = test::xml::parse(fresh);
    auto ids = [](const element& e) {
      std::vector<std::string> out;
      for (const auto* p : e.find_all([](const element& x) { return x.has("id"); }))
        out.push_back(p->attr("id"));
      return out;
    };
    EXPECT_EQ(ids(a), ids(b));
    EXPECT_EQ(a.by_class("g", "bar").size(), b.by_class("g", "bar").size());
    EXPECT_EQ(a.by_class("line", "marker").size(), b.by_class("line", "marker").size());
  };
  same_shape(read_text(img + "ddr_bandwidth_tiny.svg"), bandwidth);
  same_shape(read_text(img + "decode_latency_tiny.svg"), latency);
}
