#include "platform/vp/report/latency_svg.h"

#include <algorithm>
#include <cmath>

#include "platform/vp/report/svg_plot.h"

namespace pccx::report {

double latency_bar::total_ns() const {
  double t = 0;
  for (const auto& s : segments) t += s.ns;
  return t;
}

namespace {
// Pixel positions in whole 1/100 px, as printed.
long long hundredths(double v) {
  return std::llround(v * 100.0);
}
std::string from_hundredths(long long v) {
  return fixed(static_cast<double>(v) / 100.0, 2);
}
}  // namespace

std::string latency_svg(const latency_chart& c) {
  std::string style =
      ".axis{stroke:#333;stroke-width:1}.grid{stroke:#ddd;stroke-width:0.5}"
      ".axis-title{font-size:12px}.title{font-size:15px;font-weight:bold}.subtitle{fill:#555}"
      ".seg{stroke:#fff;stroke-width:0.3}.value{font-size:10px}";
  for (const auto& k : c.kinds) style += "." + k.name + "{fill:" + k.colour + "}";
  svg_document doc(kLatencyPlotWidth, kLatencyPlotHeight, style);

  double longest = 0;
  for (const auto& b : c.bars) longest = std::max(longest, b.total_ns());
  const time_unit u = time_unit_for(longest > 0 ? longest : 1);
  const ticks yt = nice_ticks(longest / u.ns * 1.08, 6);

  frame f;
  f.left = 80;
  f.top = 60;
  f.width = 620;
  f.height = 380;
  f.x_max = 1;
  f.y_max = yt.top * u.ns;  // ns
  doc.text(f.left, 22, c.title, "title");
  doc.text(f.left, 40, c.subtitle, "subtitle");
  doc.raw("<g id=\"plot\" data-left=\"" + px(f.left) + "\" data-top=\"" + px(f.top) +
          "\" data-width=\"" + px(f.width) + "\" data-height=\"" + px(f.height) +
          "\" data-y-max-ns=\"" + general(f.y_max, 12) + "\">\n");
  frame in_unit = f;  // the axis is labelled in the unit, the bars are placed in ns
  in_unit.y_max = yt.top;
  doc.y_axis(in_unit, yt, std::string("latency (") + u.name + ")");
  doc.text(f.left + f.width / 2, f.bottom() + 34, "token", "axis-title", "middle");

  const size_t n = c.bars.size();
  const double slot = n ? f.width / static_cast<double>(n) : f.width;
  const double bar_w = std::min(60.0, slot * 0.7);
  // Labels under the bars: every k-th when the slots are narrow.
  const size_t label_stride = std::max<size_t>(1, static_cast<size_t>(std::ceil(24.0 / slot)));
  const long long base = hundredths(f.bottom());
  for (size_t i = 0; i < n; ++i) {
    const auto& b = c.bars[i];
    const double x = f.left + slot * (static_cast<double>(i) + 0.5) - bar_w / 2;
    const double total = b.total_ns();
    doc.raw("<g class=\"bar " + b.kind + "\" data-index=\"" + std::to_string(i) +
            "\" data-total-ns=\"" + fixed(total, 1) + "\">\n<title>" + xml_escape(b.title) +
            "</title>\n");
    double sum = 0;
    long long below = base;
    for (const auto& s : b.segments) {
      sum += s.ns;
      const long long above = hundredths(f.y(sum));
      doc.raw("<rect class=\"seg " + s.kind + "\" x=\"" + px(x) + "\" y=\"" +
              from_hundredths(above) + "\" width=\"" + px(bar_w) + "\" height=\"" +
              from_hundredths(below - above) + "\" data-ns=\"" + fixed(s.ns, 1) + "\"><title>" +
              xml_escape(s.name + ": " + format_time(s.ns)) + "</title></rect>\n");
      below = above;
    }
    doc.raw("</g>\n");
    doc.text(x + bar_w / 2, f.y(total) - 4, fixed(total / u.ns, 2), "value", "middle");
    if (i % label_stride == 0) doc.text(x + bar_w / 2, f.bottom() + 16, b.label, "", "middle");
  }
  doc.raw("</g>\n");

  doc.raw("<g id=\"legend\">\n");
  double ly = f.top;
  const double lx = f.right() + 30;
  for (const auto& k : c.kinds) {
    doc.rect(lx, ly, 12, 12, k.name);
    doc.text(lx + 18, ly + 10, k.label, "");
    ly += 20;
  }
  doc.raw("</g>\n");
  return doc.finish();
}

}  // namespace pccx::report
