// Stacked latency bars as an SVG: one bar per item (a decode token), its
// segments the parts the time went to, each part kind in a fixed colour.
// workload/decode_plots.h builds the decode's chart from a decode report.
#pragma once

#include <string>
#include <vector>

namespace pccx::report {

struct latency_segment {
  std::string name;  // "layer 3"
  std::string kind;  // one of latency_chart::kinds: the colour
  double ns = 0;
};

struct latency_bar {
  std::string label;  // under the bar: "t0"
  std::string kind;   // CSS class of the bar's group: "token", "mean"
  std::string title;  // tooltip of the bar
  std::vector<latency_segment> segments;
  double total_ns() const;
};

struct latency_kind {
  std::string name;    // CSS class
  std::string colour;  // "#4e79a7"
  std::string label;   // legend text
};

struct latency_chart {
  std::string title, subtitle;
  std::vector<latency_kind> kinds;  // legend order
  std::vector<latency_bar> bars;
};

constexpr int kLatencyPlotWidth = 900;
constexpr int kLatencyPlotHeight = 520;

// Rectangle heights are differences of the rounded stacked pixel positions,
// so a bar's segments add up to its total to 1/100 px.
std::string latency_svg(const latency_chart& c);

}  // namespace pccx::report
