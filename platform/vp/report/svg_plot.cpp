#include "platform/vp/report/svg_plot.h"

#include "infra/text/quote.h"

#include "infra/io/output_file.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace pccx::report {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  // "-0.00" and "0.00" must not differ between two runs that round alike.
  if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

std::string general(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string grouped(uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string xml_escape(const std::string& s) {
  return text::markup_escaped(s);
}

ticks nice_ticks(double max, int target) {
  if (!(max > 0)) max = 1;
  if (target < 1) target = 1;
  const double raw = max / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / mag;
  ticks t;
  t.step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;
  // The tolerance keeps a maximum that is a multiple of the step (20.0 at
  // step 5) from gaining an empty interval.
  const long n = std::max(1L, static_cast<long>(std::ceil(max / t.step - 1e-9)));
  t.top = static_cast<double>(n) * t.step;
  for (long i = 0; i <= n; ++i) t.values.push_back(static_cast<double>(i) * t.step);
  t.decimals = std::max(0, -static_cast<int>(std::floor(std::log10(t.step) + 1e-9)));
  return t;
}

time_unit time_unit_for(double ns) {
  if (ns < 1e3) return {"ns", 1};
  if (ns < 1e6) return {"µs", 1e3};
  if (ns < 1e9) return {"ms", 1e6};
  return {"s", 1e9};
}

std::string format_time(double ns) {
  const time_unit u = time_unit_for(ns);
  return fixed(ns / u.ns, 2) + " " + u.name;
}

svg_document::svg_document(int width, int height, const std::string& style) {
  out_ = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out_ += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) +
          "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(width) +
          " " + std::to_string(height) + "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  out_ += "<style>" + style + "</style>\n";
  out_ += "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n";
}

void svg_document::line(double x1, double y1, double x2, double y2, const std::string& cls,
                        const std::string& title) {
  out_ += "<line class=\"" + cls + "\" x1=\"" + px(x1) + "\" y1=\"" + px(y1) + "\" x2=\"" + px(x2) +
          "\" y2=\"" + px(y2) + "\"";
  out_ += title.empty() ? "/>\n" : "><title>" + xml_escape(title) + "</title></line>\n";
}

void svg_document::rect(double x, double y, double w, double h, const std::string& cls,
                        const std::string& extra_attributes, const std::string& title) {
  out_ += "<rect class=\"" + cls + "\" x=\"" + px(x) + "\" y=\"" + px(y) + "\" width=\"" + px(w) +
          "\" height=\"" + px(h) + "\"" + extra_attributes;
  out_ += title.empty() ? "/>\n" : "><title>" + xml_escape(title) + "</title></rect>\n";
}

void svg_document::text(double x, double y, const std::string& s, const std::string& cls,
                        const char* anchor, double rotate) {
  out_ += "<text";
  if (!cls.empty()) out_ += " class=\"" + cls + "\"";
  out_ += " x=\"" + px(x) + "\" y=\"" + px(y) + "\"";
  if (std::string(anchor) != "start") out_ += std::string(" text-anchor=\"") + anchor + "\"";
  if (rotate != 0)
    out_ += " transform=\"rotate(" + fixed(rotate, 0) + " " + px(x) + " " + px(y) + ")\"";
  out_ += ">" + xml_escape(s) + "</text>\n";
}

void svg_document::y_axis(const frame& f, const ticks& t, const std::string& label) {
  out_ += "<g class=\"y-axis\">\n";
  for (double v : t.values) {
    const double y = f.y(v);
    line(f.left, y, f.right(), y, v == 0 ? "axis" : "grid");
    text(f.left - 6, y + 4, fixed(v, t.decimals), "", "end");
  }
  line(f.left, f.top, f.left, f.bottom(), "axis");
  text(f.left - 48, f.top + f.height / 2, label, "axis-title", "middle", -90);
  out_ += "</g>\n";
}

void svg_document::x_time_axis(const frame& f, const std::string& label) {
  const time_unit u = time_unit_for(f.x_max);
  const ticks t = nice_ticks(f.x_max / u.ns, 10);
  out_ += "<g class=\"x-axis\">\n";
  for (double v : t.values) {
    // The span is rarely a multiple of the step: no tick past the edge.
    if (v * u.ns > f.x_max * (1 + 1e-9)) break;
    const double x = f.x(v * u.ns);
    line(x, f.bottom(), x, f.bottom() + 5, "axis");
    text(x, f.bottom() + 17, fixed(v, t.decimals), "", "middle");
  }
  text(f.left + f.width / 2, f.bottom() + 34, label + " (" + u.name + ")", "axis-title", "middle");
  out_ += "</g>\n";
}

std::string svg_document::finish() {
  return out_ + "</svg>\n";
}

void write_text_file(const std::string& path, const std::string& text) {
  io::write_output(path, text, "plot");
}

}  // namespace pccx::report
