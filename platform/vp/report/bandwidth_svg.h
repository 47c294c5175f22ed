// DDR bandwidth over simulated time as an SVG (docs/reference/plots.md): GB/s per
// traffic class as stacked areas, the DDR's peak and effective bandwidth as
// horizontal lines, and the firmware's sim-control markers as vertical ones.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/memory/ddr/bandwidth_recorder.h"

namespace pccx::report {

struct bandwidth_plot {
  std::string title;
  double end_ns = 0;          // end of the run: the time axis reaches at least here
  double peak_gbps = 0;       // data rate x bus width
  double effective_gbps = 0;  // the effective bandwidth of docs/models/memory-ddr.md
  std::vector<std::string> markers;
  std::vector<double> marker_times_ns;  // same order as markers
  // Windows are merged, a whole number per column, so that the plot has at
  // most this many columns.
  uint32_t max_columns = 2000;
};

// The plot's layout constants, for readers of the file (tests, docs).
constexpr int kBandwidthPlotWidth = 1200;
constexpr int kBandwidthPlotHeight = 540;
// Generic markers: at most this many lines (every k-th beyond it).
constexpr size_t kMaxMarkerLines = 200;

std::string bandwidth_svg(const mem::bandwidth_recorder& rec, const bandwidth_plot& p);
// Throws std::runtime_error when `path` cannot be written.
void write_bandwidth_svg(const mem::bandwidth_recorder& rec, const bandwidth_plot& p,
                         const std::string& path);

}  // namespace pccx::report
