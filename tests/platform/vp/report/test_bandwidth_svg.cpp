// The DDR bandwidth plot (platform/vp/report/bandwidth_svg,
// docs/reference/plots.md): the SVG read back and integrated against the
// recorded bytes, its reference lines and markers, and its columns merged
// from many windows.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "infra/trace/trace_hub.h"
#include "models/memory/ddr/ddr_capacity.h"
#include "platform/config/platform_loader.h"
#include "platform/vp/firmware/firmware_loader.h"
#include "platform/vp/report/bandwidth_svg.h"
#include "platform/vp/top/simulation.h"
#include "plot_test_util.h"
#include "svg_reader.h"

using namespace pccx;
namespace fs = std::filesystem;
using test::plots::Plots;
using test::plots::read_text;
using test::plots::tiny_decode;
using test::xml::element;

namespace {

// Bytes per class name from the rows of kind "class" of a DDR CSV; column
// `bytes_column` holds the bytes.
std::map<std::string, uint64_t> class_bytes_csv(const std::string& path, size_t bytes_column) {
  std::map<std::string, uint64_t> out;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    const size_t kind = bytes_column == 4 ? 2 : 0;  // ddr_bandwidth.csv: kind in column 2
    if (cells.size() > bytes_column && cells[kind] == "class")
      out[cells[kind + 1]] += std::stoull(cells[bytes_column]);
  }
  return out;
}

// What the plot maps: data to pixels.
struct plot_frame {
  double left, top, width, height, x_max_ns, y_max_gbps;
  double x(double ns) const { return left + ns * width / x_max_ns; }
  double y(double gbps) const { return top + height - gbps * height / y_max_gbps; }
};

plot_frame frame_of(const element& svg) {
  const element* g = svg.by_id("plot");
  if (!g) throw std::runtime_error("no plot group");
  return {g->number("data-left"),   g->number("data-top"),      g->number("data-width"),
          g->number("data-height"), g->number("data-x-max-ns"), g->number("data-y-max-gbps")};
}

// Checks a bandwidth SVG against the run's summary.json: one series per
// class that moved bytes, each enclosing exactly that class's bytes.
void expect_series_match_summary(const element& svg, const nlohmann::json& summary,
                                 size_t min_classes) {
  const element* series = svg.by_id("series");
  ASSERT_NE(series, nullptr);
  const auto paths = series->by_class("path", "area");
  size_t present = 0;
  for (const auto& [cls, totals] : summary["memory"]["ddr"]["bandwidth"]["classes"].items()) {
    const uint64_t bytes = totals["bytes"];
    const element* p = svg.by_id("ddr-" + cls);
    if (bytes == 0) {
      EXPECT_EQ(p, nullptr) << cls << " moved nothing but has a series";
      continue;
    }
    ++present;
    ASSERT_NE(p, nullptr) << "no series for " << cls;
    EXPECT_TRUE(p->has_class(cls));
    // x: columns, y: bytes in the column. The area is the class's bytes.
    EXPECT_EQ(static_cast<uint64_t>(std::llround(test::xml::path_area(p->attr("d")))), bytes)
        << cls;
  }
  EXPECT_GE(present, min_classes);
  EXPECT_EQ(paths.size(), present);
}

}  // namespace

TEST_F(Plots, BandwidthSvgOfATinyDecode) {
  auto cfg = plotting();
  cfg.output.run_name = "tiny <L = 16>";
  const auto rep = tiny_decode(cfg, 2, false);
  ASSERT_EQ(rep.run.exit_code, 0) << rep.run.message;
  const nlohmann::json summary = nlohmann::json::parse(read_text(path("summary.json")));
  const std::string text = read_text(path("ddr_bandwidth.svg"));
  ASSERT_FALSE(text.empty());
  const element svg = test::xml::parse(text);
  EXPECT_EQ(svg.name, "svg");
  EXPECT_EQ(svg.attr("xmlns"), "http://www.w3.org/2000/svg");
  const auto titles = svg.by_class("text", "title");
  ASSERT_EQ(titles.size(), 1u);
  EXPECT_EQ(titles[0]->text, "DDR bandwidth: tiny <L = 16> (timing mode)");
  expect_series_match_summary(svg, summary, 5);  // weights, kv_read, kv_write, activations, host

  // The CSV series and totals hold the same bytes per class as the summary.
  const auto windows = class_bytes_csv(path("ddr_bandwidth.csv"), 4);
  const auto totals = class_bytes_csv(path("ddr_totals.csv"), 3);
  for (const auto& [cls, j] : summary["memory"]["ddr"]["bandwidth"]["classes"].items()) {
    const uint64_t bytes = j["bytes"];
    EXPECT_EQ(windows.count(cls) ? windows.at(cls) : 0, bytes) << cls;
    EXPECT_EQ(totals.at(cls), bytes) << cls;
  }

  // The reference lines at the configured DDR's peak and effective GB/s.
  const auto eff = mem::derive_capacity(cfg.ddr);
  const plot_frame f = frame_of(svg);
  EXPECT_NEAR(eff.peak_bytes_per_s, 19.2e9, 1);
  const auto peak = svg.by_class("line", "peak");
  const auto effective = svg.by_class("line", "effective");
  ASSERT_EQ(peak.size(), 2u);  // the plot's and the legend's
  ASSERT_EQ(effective.size(), 2u);
  for (const auto* l : {peak[0], effective[0]}) EXPECT_EQ(l->attr("y1"), l->attr("y2"));
  EXPECT_NEAR(peak[0]->number("y1"), f.y(eff.peak_bytes_per_s * 1e-9), 0.006);
  EXPECT_NEAR(effective[0]->number("y1"), f.y(eff.effective_bytes_per_s * 1e-9), 0.006);
  EXPECT_LT(peak[0]->number("y1"), effective[0]->number("y1"));  // higher up

  // A token line per "decode: token <t>" marker, at its time; lighter
  // lines at the layer starts.
  std::vector<double> token_times;
  size_t layer_markers = 0;
  for (size_t i = 0; i < rep.run.markers.size(); ++i) {
    const std::string& m = rep.run.markers[i];
    if (m == "decode: token 0" || m == "decode: token 1")
      token_times.push_back(rep.run.marker_times_ns[i]);
    layer_markers += m.find(" layer ") != std::string::npos;
  }
  ASSERT_EQ(token_times.size(), 2u);
  EXPECT_EQ(layer_markers, 20u);
  const auto tokens = svg.by_class("line", "token");
  ASSERT_EQ(tokens.size(), 2u + 1u);  // and the legend's
  for (size_t t = 0; t < 2; ++t) {
    EXPECT_NEAR(tokens[t]->number("x1"), f.x(token_times[t]), 0.006);
    EXPECT_EQ(tokens[t]->title().rfind("decode: token " + std::to_string(t) + " at ", 0), 0u);
  }
  EXPECT_EQ(svg.by_class("line", "token-end").size(), 2u + 1u);
  const auto layers = svg.by_class("line", "layer");
  EXPECT_GT(layers.size(), 2u);  // layer and exit starts at least 2 px apart, and the legend's
  EXPECT_LE(layers.size(), layer_markers + 2 + 1);

  // Nothing of the host's time in it: two runs give the same file.
  EXPECT_EQ(text.find("wall"), std::string::npos);
}

TEST_F(Plots, MergedColumnsKeepEveryByte) {
  // Ten columns at most: about 100 windows of 10 us merge ten or more per column.
  const auto rep = tiny_decode(plotting(10), 2, false);
  ASSERT_EQ(rep.run.exit_code, 0) << rep.run.message;
  const nlohmann::json summary = nlohmann::json::parse(read_text(path("summary.json")));
  const element svg = test::xml::parse(read_text(path("ddr_bandwidth.svg")));
  const element* series = svg.by_id("series");
  ASSERT_NE(series, nullptr);
  const double window_ns = series->number("data-window-ns");
  const auto per_column = static_cast<size_t>(series->number("data-windows-per-column"));
  const auto columns = static_cast<size_t>(series->number("data-columns"));
  const size_t windows = static_cast<size_t>(std::ceil(rep.run.sim_time_ns / window_ns));
  EXPECT_EQ(window_ns, 10000.0);
  EXPECT_LE(columns, 10u);
  EXPECT_EQ(per_column, (windows + 9) / 10);
  EXPECT_EQ(series->number("data-column-ns"), window_ns * double(per_column));
  EXPECT_DOUBLE_EQ(frame_of(svg).x_max_ns, double(columns * per_column) * window_ns);
  expect_series_match_summary(svg, summary, 5);
}

TEST_F(Plots, GenericMarkersAreLabelledLines) {
  config::platform_config cfg;
  cfg.output.dir = dir();
  cfg.output.plots = true;
  const auto r = vp::run_simulation(cfg, vp::load_firmware("dma_roundtrip"), nullptr);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  ASSERT_EQ(r.markers.size(), 3u);
  const element svg = test::xml::parse(read_text(path("ddr_bandwidth.svg")));
  EXPECT_EQ(svg.by_class("text", "title")[0]->text,
            "DDR bandwidth: dma_roundtrip (functional mode)");  // the firmware's name
  const plot_frame f = frame_of(svg);
  const auto lines = svg.by_class("line", "other");
  ASSERT_EQ(lines.size(), r.markers.size() + 1);  // and the legend's
  for (size_t i = 0; i < r.markers.size(); ++i) {
    EXPECT_NEAR(lines[i]->number("x1"), f.x(r.marker_times_ns[i]), 0.006);
    EXPECT_EQ(lines[i]->title().rfind(r.markers[i] + " at ", 0), 0u) << lines[i]->title();
  }
  // The first marker is always labelled.
  const auto labels = svg.by_class("text", "mlabel");
  ASSERT_FALSE(labels.empty());
  EXPECT_EQ(labels[0]->text, r.markers[0]);
  const nlohmann::json summary = nlohmann::json::parse(read_text(path("summary.json")));
  expect_series_match_summary(svg, summary, 2);
}

// Without a simulation: a recorder filled by hand.
TEST(BandwidthSvg, ThousandsOfWindowsMergeAndManyMarkersThin) {
  using sc_core::SC_NS;
  using sc_core::sc_time;
  mem::bandwidth_recorder rec(sc_time(10, SC_NS), 19.2e9, 11.0e9);
  uint64_t weights = 0, host = 0;
  for (uint64_t w = 0; w < 5000; ++w) {
    mem::ddr_access a;
    a.port = mem::ddr_port::hp2;
    a.cls = mem::traffic_class::weights;
    a.bytes = 100 + (w * 37) % 61;  // spread over two windows, unevenly
    a.arrival = a.start = sc_time(double(w * 10 + 3), SC_NS);
    a.end = a.completion = sc_time(double(w * 10 + 13), SC_NS);
    rec.record(a);
    weights += a.bytes;
    if (w % 7 == 0) {
      a.port = mem::ddr_port::cpu;
      a.cls = mem::traffic_class::host;
      a.bytes = 64;
      rec.record(a);
      host += 64;
    }
  }
  report::bandwidth_plot p;
  p.title = "hand-made <&> \"run\"";
  p.peak_gbps = 19.2;
  p.effective_gbps = 11.0;
  p.end_ns = 50000;
  for (int i = 0; i < 1000; ++i) {
    p.markers.push_back("step " + std::to_string(i));
    p.marker_times_ns.push_back(50.0 * i);
  }
  const std::string text = report::bandwidth_svg(rec, p);
  EXPECT_EQ(text, report::bandwidth_svg(rec, p));  // deterministic
  const element svg = test::xml::parse(text);
  const element* series = svg.by_id("series");
  ASSERT_NE(series, nullptr);
  // 5,001 windows (the last transfer ends in the one after 5,000) in
  // columns of 3: 1,667.
  EXPECT_EQ(series->attr("data-windows-per-column"), "3");
  EXPECT_EQ(series->attr("data-columns"), "1667");
  EXPECT_EQ(std::llround(test::xml::path_area(svg.by_id("ddr-weights")->attr("d"))),
            static_cast<long long>(weights));
  EXPECT_EQ(std::llround(test::xml::path_area(svg.by_id("ddr-host")->attr("d"))),
            static_cast<long long>(host));
  EXPECT_EQ(svg.by_id("ddr-kv_read"), nullptr);
  // 1,000 markers: every 5th drawn, 200 lines (and the legend's).
  EXPECT_EQ(svg.by_class("line", "other").size(), report::kMaxMarkerLines + 1);
  EXPECT_NE(text.find("hand-made &lt;&amp;&gt; &quot;run&quot;"), std::string::npos);
  EXPECT_LT(text.size(), 200000u);
}
