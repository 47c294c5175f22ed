// The HTML reports in a real browser: Debian's Chromium, headless, driven
// over the DevTools protocol (cdp_browser.h). Each report must load without
// an error, draw every chart (a dygraphs canvas with pixels, an SVG with
// bars), and the DDR bandwidth chart must show the values under the mouse.
// Screenshots are kept in <build>/tests/app/report-screenshots/;
// PCCX_UPDATE_DOCS=1 also copies them to docs/img/reports/ for docs/reports.md.
// Without a browser the test fails: the test command installs Chromium.
#include <cstdlib>

#include "browser/cdp_browser.h"
#include "e2e_util.h"

namespace e2e {
namespace {

using Reports = E2E;

std::string source(const std::string& rel) {
  return std::string(PCCX_SOURCE_DIR) + "/" + rel;
}

// Every element marked as a chart, whether it was drawn: a canvas with a
// pixel that is not transparent, an SVG with a bar of some height.
const char kChartsDrawn[] = R"JS(
Array.from(document.querySelectorAll('.pccx-chart')).map(function (e) {
  if (e.tagName.toLowerCase() === 'svg') {
    var bars = Array.from(e.querySelectorAll('rect'));
    return {id: e.id, kind: 'svg', drawn: bars.some(function (r) { return +r.getAttribute('height') > 0; })};
  }
  var drawn = false;
  Array.from(e.querySelectorAll('canvas')).forEach(function (c) {
    if (drawn || !c.width || !c.height) return;
    var d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (var i = 3; i < d.length; i += 4) if (d[i]) { drawn = true; break; }
  });
  return {id: e.id, kind: 'canvas', drawn: drawn};
})
)JS";

struct expectations {
  std::size_t min_charts = 1;
  std::string hover_chart;  // a time-series chart whose legend must follow the mouse
  std::string docs_anchor;  // where the part docs/reports.md shows starts (else the top)
};

// Opens `page` in Chromium and checks it; the screenshot goes to `shot`.png.
void check_report(const std::string& page, const std::string& shot, const std::string& profile,
                  const expectations& want) {
  const std::string exe = browser::find_chromium();
  ASSERT_FALSE(exe.empty()) << "no Chromium on the PATH: install Debian's chromium package "
                               "(scripts/build.sh test installs it) or set PCCX_CHROMIUM";
  ASSERT_TRUE(fs::exists(page)) << page;
  browser::cdp_browser b(exe, profile);
  b.open("file://" + fs::absolute(page).string());
  for (const auto& e : b.errors()) ADD_FAILURE() << page << " while loading: " << e;
  const json charts = b.evaluate(kChartsDrawn);
  ASSERT_TRUE(charts.is_array()) << charts.dump();
  EXPECT_GE(charts.size(), want.min_charts) << charts.dump();
  for (const auto& c : charts) EXPECT_TRUE(c.value("drawn", false)) << "chart not drawn: " << c.dump();

  if (!want.hover_chart.empty()) {
    const json box = b.evaluate(
        "(function () { var e = document.getElementById('" + want.hover_chart +
        "'); e.scrollIntoView({block: 'center'}); var r = e.getBoundingClientRect();"
        " return [r.left, r.top, r.width, r.height]; })()");
    ASSERT_TRUE(box.is_array() && box.size() == 4) << box.dump();
    const double x = box[0].get<double>() + box[2].get<double>() * 0.5;
    const double y = box[1].get<double>() + box[3].get<double>() * 0.4;
    b.hover(x - 10, y);
    b.hover(x, y);
    const json legend = b.evaluate("document.querySelector('#" + want.hover_chart +
                                   " .dygraph-legend').textContent");
    ASSERT_TRUE(legend.is_string()) << legend.dump();
    // The hovered time and a value of each series: "123.4: weights: 5.6 ...".
    EXPECT_NE(legend.get<std::string>().find(':'), std::string::npos) << legend;
    EXPECT_NE(legend.get<std::string>().find_first_of("0123456789"), std::string::npos) << legend;
  }
  // The whole page is kept with the build; the documentation shows its top.
  const std::string png = b.screenshot_png();
  EXPECT_EQ(png.substr(1, 3), "PNG");
  const fs::path kept = fs::path(PCCX_BINARY_DIR) / "tests/app/report-screenshots";
  fs::create_directories(kept);
  write_file(kept / (shot + ".png"), png);
  if (const char* u = std::getenv("PCCX_UPDATE_DOCS"); u && std::string(u) == "1") {
    double top = 0;
    if (!want.docs_anchor.empty())
      top = b.evaluate("document.getElementById('" + want.docs_anchor +
                       "').getBoundingClientRect().top + window.scrollY - 60")
                .get<double>();
    fs::create_directories(source("docs/img/reports"));
    write_file(source("docs/img/reports/" + shot + ".png"), b.screenshot_png(900, top));
  }
  for (const auto& e : b.errors()) ADD_FAILURE() << page << ": " << e;  // also after the hover
}

TEST_F(Reports, ARunReportDrawsEveryChartAndFollowsTheMouse) {
  const auto r = vp({"decode", "--model", source("configs/models/tiny.json"), "--context", "64",
                     "--tokens", "2", "--per-layer", "--out", "run"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  check_report(path("run/report.html"), "run", path("profile"), {5, "ddr_class", "ddr_class"});
  check_report(path("run/report.html"), "run-top", path("profile2"), {5, "", ""});
  // The charts' series follows the run's length: about a millisecond here,
  // thousands of windows (stats.window_ns gives about a hundred).
  EXPECT_GT(read_lines(path("run/ddr_bandwidth_plot.csv")).size(), 4 * read_lines(path("run/ddr_bandwidth.csv")).size());
  const std::string html = read_file(path("run/report.html"));
  EXPECT_TRUE(contains(html, "layer 9")) << "per-layer bars name their layers";
  EXPECT_FALSE(contains(html, "src=\"http")) << "the page loads nothing from the network";
}

TEST_F(Reports, AFailedRunsReportShowsItsError) {
  const auto r = vp({"--firmware", test_firmware("ignore_npu_error"), "--out", "failed"});
  ASSERT_EQ(r.exit_code, 1) << describe(r);
  check_report(path("failed/report.html"), "run-failed", path("profile"), {3, "ddr_class", ""});
  EXPECT_TRUE(contains(read_file(path("failed/report.html")), "ERR_UNKNOWN_OPCODE"));
}

TEST_F(Reports, ADecodeTableReportLinksItsCells) {
  const auto r = vp({"decode-table", "--sweep", source("configs/sweeps/decode-table-tiny.json"),
                     "--out", "table", "--keep-outputs"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  check_report(path("table/report.html"), "decode-table", path("profile"), {5, "", ""});
  EXPECT_TRUE(contains(read_file(path("table/report.html")), "cells/tiny-fp16-16/report.html"));
}

TEST_F(Reports, ASweepReportPlotsEachMetricAgainstEachAxis) {
  const auto r = vp({"sweep", "--sweep", "ddr.data_rate_mtps=2400,3200", "--sweep",
                     "npu.gemv.weight_fifos=[2,3],[0,1,2,3]", "--out", "sweep", "--", "decode",
                     "--model", source("configs/models/tiny.json"), "--context", "16", "--tokens",
                     "1"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  check_report(path("sweep/report.html"), "sweep", path("profile"), {4, "", ""});
}

TEST_F(Reports, ACompareReportDrawsItsCharts) {
  for (const char* side : {"a", "b"}) {
    const auto r = vp({"decode", "--model", source("configs/models/tiny.json"), "--context", "16",
                       "--tokens", "1", "--per-layer", "--out", side, "--set",
                       std::string("ddr.data_rate_mtps=") + (side[0] == 'a' ? "2400" : "3200")});
    ASSERT_EQ(r.exit_code, 0) << describe(r);
  }
  const auto c = vp({"compare", "a", "b", "--html", "compare.html"});
  ASSERT_EQ(c.exit_code, 0) << describe(c);
  check_report(path("compare.html"), "compare", path("profile"), {1, "", ""});
}

}  // namespace
}  // namespace e2e
