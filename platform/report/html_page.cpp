#include "platform/report/html_page.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "infra/io/output_file.h"
#include "infra/text/quote.h"
#include "platform/workload/llm/model_shapes.h"

#ifndef PCCX_DYGRAPHS_DIR
#define PCCX_DYGRAPHS_DIR "/usr/share/javascript/dygraphs"
#endif

namespace pccx::report {

namespace {

const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
constexpr std::size_t kPaletteSize = sizeof kPalette / sizeof kPalette[0];

const char kStyle[] = R"(
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 1100px; color: #222; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.6em 0; }
td, th { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
pre { background: #f7f7f7; padding: 0.6em; overflow-x: auto; }
.warning { background: #fff4e5; border-left: 4px solid #e69500; padding: 0.4em 0.8em; }
.chart { width: 100%; height: 320px; }
.chart-box { margin: 0.8em 0 1.6em 0; }
.chart-title { font-weight: 600; margin-bottom: 0.3em; }
.note { color: #666; font-size: 0.9em; }
.dygraph-legend { background: rgba(255,255,255,0.9) !important; }
svg.bars text { font-size: 11px; fill: #333; }
)";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::string();
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A JSON-safe number (no NaN or infinity in a data array).
std::string js_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// A string as a JavaScript literal inside a <script>.
std::string js_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '<': out += "\\u003c"; break;  // no </script> inside a script
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

bool valid_id(const std::string& id) {
  if (id.empty()) return false;
  for (char c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  return true;
}

// At most `cap` rows: consecutive rows merged into one per bucket, keeping
// each series' largest value (a peak must not vanish from the plot).
std::vector<std::vector<double>> reduce(const std::vector<std::vector<double>>& rows,
                                        std::size_t cap) {
  if (rows.size() <= cap) return rows;
  std::vector<std::vector<double>> out;
  const double per = static_cast<double>(rows.size()) / static_cast<double>(cap);
  for (std::size_t b = 0; b < cap; ++b) {
    const auto from = static_cast<std::size_t>(std::floor(b * per));
    const auto to = std::min(rows.size(), static_cast<std::size_t>(std::floor((b + 1) * per)));
    if (from >= to) continue;
    std::vector<double> r = rows[from];
    for (std::size_t i = from + 1; i < to; ++i)
      for (std::size_t k = 1; k < r.size() && k < rows[i].size(); ++k)
        r[k] = std::max(r[k], rows[i][k]);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

std::string number(double v) {
  if (!std::isfinite(v)) return "-";
  char buf[48];
  const double a = std::fabs(v);
  if (a >= 1e15 || (a != 0 && a < 1e-3)) {
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
  }
  if (a >= 1000 || v == std::floor(v))  // a whole number, thousands grouped
    return (v < 0 ? "-" : "") + llm::grouped(static_cast<uint64_t>(std::nearbyint(a)));  // ties to even, as printf
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

html_page::html_page(std::string title) : title_(std::move(title)) {
  body_ += "<h1>" + escape(title_) + "</h1>\n";
}

std::string html_page::escape(const std::string& text) {
  return text::markup_escaped(text, true);
}

std::string html_page::link(const std::string& text, const std::string& href) {
  return "<a href=\"" + escape(href) + "\">" + escape(text) + "</a>";
}

std::string html_page::library_dir() {
  if (const char* env = std::getenv("PCCX_DYGRAPHS_DIR"); env && *env) return env;
  return PCCX_DYGRAPHS_DIR;
}

void html_page::heading(const std::string& text, int level) {
  level = std::clamp(level, 2, 4);
  body_ += "<h" + std::to_string(level) + ">" + escape(text) + "</h" + std::to_string(level) +
           ">\n";
}

void html_page::paragraph(const std::string& text) {
  body_ += "<p>" + escape(text) + "</p>\n";
}

void html_page::warning(const std::string& text) {
  body_ += "<p class=\"warning\">" + escape(text) + "</p>\n";
}

void html_page::preformatted(const std::string& text) {
  body_ += "<pre>" + escape(text) + "</pre>\n";
}

void html_page::key_values(const std::vector<std::pair<std::string, std::string>>& rows) {
  body_ += "<table>\n";
  for (const auto& [k, v] : rows)
    body_ += "<tr><th>" + escape(k) + "</th><td>" + escape(v) + "</td></tr>\n";
  body_ += "</table>\n";
}

void html_page::table(const std::vector<std::string>& header,
                      const std::vector<std::vector<std::string>>& rows) {
  auto cell = [](const std::string& c) {
    if (c.rfind("<a ", 0) == 0) return "<td>" + c + "</td>";
    const bool num = !c.empty() && (std::isdigit(static_cast<unsigned char>(c[0])) ||
                                    ((c[0] == '-' || c[0] == '+') && c.size() > 1 &&
                                     std::isdigit(static_cast<unsigned char>(c[1]))));
    return std::string(num ? "<td class=\"num\">" : "<td>") + escape(c) + "</td>";
  };
  body_ += "<table>\n<tr>";
  for (const auto& h : header) body_ += "<th>" + escape(h) + "</th>";
  body_ += "</tr>\n";
  for (const auto& r : rows) {
    body_ += "<tr>";
    for (const auto& c : r) body_ += cell(c);
    body_ += "</tr>\n";
  }
  body_ += "</table>\n";
}

void html_page::time_series(const time_series_chart& c) {
  if (!valid_id(c.id)) throw std::invalid_argument("chart id '" + c.id + "' is not a plain name");
  uses_dygraphs_ = true;
  // A browser draws a few thousand points per chart comfortably; longer
  // series keep each bucket's peak.
  const auto rows = reduce(c.rows, 4000);
  body_ += "<div class=\"chart-box\"><div class=\"chart-title\">" + escape(c.title) +
           "</div><div id=\"" + c.id + "\" class=\"chart pccx-chart\"></div>";
  if (!c.note.empty()) body_ += "<div class=\"note\">" + escape(c.note) + "</div>";
  body_ += "</div>\n";
  std::string data = "[";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    data += i ? ",[" : "[";
    for (std::size_t k = 0; k < rows[i].size(); ++k) data += (k ? "," : "") + js_number(rows[i][k]);
    data += "]";
  }
  data += "]";
  std::string labels = "[" + js_string(c.x_label);
  for (const auto& s : c.series) labels += "," + js_string(s);
  labels += "]";
  std::string colors = "[";
  for (std::size_t i = 0; i < c.series.size(); ++i)
    colors += std::string(i ? "," : "") + "\"" + kPalette[i % kPaletteSize] + "\"";
  colors += "]";
  scripts_ += "pccxCharts.push(new Dygraph(document.getElementById(\"" + c.id + "\"), " +
              (rows.empty() ? "[[0" + std::string(c.series.size(), ',') + "]]" : data) +
              ", {labels: " + labels + ", xlabel: " + js_string(c.x_label) +
              ", ylabel: " + js_string(c.y_label) + ", colors: " + colors +
              ", stackedGraph: " + (c.stacked ? "true" : "false") +
              ", legend: \"always\", labelsSeparateLines: false, showRangeSelector: " +
              (rows.size() > 50 ? "true" : "false") + ", animatedZooms: false}));\n";
}

void html_page::bars(const bar_chart& c) {
  const std::size_t n = c.categories.size();
  const double width = 1040, height = 340, left = 110, right = 20, top = 20, bottom = 130;
  double max = 0;
  for (std::size_t k = 0; k < n; ++k) {
    double sum = 0;
    for (std::size_t s = 0; s < c.series.size(); ++s) {
      const double v = k < c.values[s].size() && std::isfinite(c.values[s][k]) ? c.values[s][k] : 0;
      sum = c.stacked ? sum + std::max(0.0, v) : std::max(sum, v);
    }
    max = std::max(max, sum);
  }
  if (max <= 0) max = 1;
  const double plot_w = width - left - right, plot_h = height - top - bottom;
  const double slot = n ? plot_w / static_cast<double>(n) : plot_w;
  const std::size_t groups = c.stacked ? 1 : std::max<std::size_t>(1, c.series.size());
  const double bar_w = std::max(1.0, slot * 0.8 / static_cast<double>(groups));
  std::ostringstream svg;
  svg << "<div class=\"chart-box\"><div class=\"chart-title\">" << escape(c.title)
      << "</div><svg class=\"bars pccx-chart\" id=\"bars" << svg_count_++ << "\" viewBox=\"0 0 "
      << width << ' ' << height << "\" width=\"100%\" role=\"img\">\n";
  for (int t = 0; t <= 4; ++t) {  // grid and axis labels
    const double v = max * t / 4, y = top + plot_h - plot_h * t / 4;
    svg << "<line x1=\"" << left << "\" x2=\"" << width - right << "\" y1=\"" << y << "\" y2=\""
        << y << "\" stroke=\"#e3e3e3\"/><text x=\"" << left - 6 << "\" y=\"" << y + 4
        << "\" text-anchor=\"end\">" << escape(number(v)) << "</text>\n";
  }
  svg << "<text x=\"40\" y=\"" << top + plot_h / 2 << "\" transform=\"rotate(-90 40 "
      << top + plot_h / 2 << ")\" text-anchor=\"middle\">" << escape(c.y_label) << "</text>\n";
  for (std::size_t k = 0; k < n; ++k) {
    double base = 0;
    for (std::size_t s = 0; s < c.series.size(); ++s) {
      const double v = k < c.values[s].size() && std::isfinite(c.values[s][k]) ? c.values[s][k] : 0;
      const double h = plot_h * std::max(0.0, v) / max;
      const double x = left + slot * k + slot * 0.1 + (c.stacked ? 0 : bar_w * s);
      const double y = top + plot_h - h - (c.stacked ? plot_h * base / max : 0);
      svg << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << bar_w << "\" height=\"" << h
          << "\" fill=\"" << kPalette[s % kPaletteSize] << "\"><title>"
          << escape(c.categories[k] + (c.series.size() > 1 ? ", " + c.series[s] : "") + ": " +
                    number(v))
          << "</title></rect>\n";
      if (c.stacked) base += std::max(0.0, v);
    }
    const double lx = left + slot * k + slot / 2, ly = top + plot_h + 12;
    // A long label is cut on the axis; the bar's tooltip has it whole.
    const std::string& full = c.categories[k];
    const std::string label = full.size() > 30 ? full.substr(0, 28) + "..." : full;
    svg << "<text x=\"" << lx << "\" y=\"" << ly << "\" text-anchor=\"end\" transform=\"rotate(-35 "
        << lx << ' ' << ly << ")\">" << escape(label) << "</text>\n";
  }
  svg << "</svg>";
  if (c.series.size() > 1) {  // legend
    svg << "<div class=\"note\">";
    for (std::size_t s = 0; s < c.series.size(); ++s)
      svg << "<span style=\"color:" << kPalette[s % kPaletteSize] << "\">&#9632;</span> "
          << escape(c.series[s]) << "&nbsp;&nbsp; ";
    svg << "</div>";
  }
  if (!c.links.empty()) {
    svg << "<div class=\"note\">";
    for (std::size_t k = 0; k < c.links.size() && k < n; ++k)
      if (!c.links[k].empty()) svg << link(c.categories[k], c.links[k]) << " &nbsp;";
    svg << "</div>";
  }
  svg << "</div>\n";
  body_ += svg.str();
}

std::string html_page::html() const {
  std::string lib, css;
  if (uses_dygraphs_) {
    const std::string dir = library_dir();
    lib = read_file(dir + "/dygraph.min.js");
    css = read_file(dir + "/dygraph.min.css");
    if (lib.empty())
      throw std::runtime_error("cannot read the charting library " + dir +
                               "/dygraph.min.js (Debian package libjs-dygraphs)");
    // The page is offline: no source map to fetch. "</script" would end the
    // inline script early; "<\/script" means the same in a string or a regex.
    if (const auto at = lib.rfind("//# sourceMappingURL="); at != std::string::npos)
      lib.erase(at);
    for (std::size_t at = 0; (at = lib.find("</script", at)) != std::string::npos; at += 3)
      lib.replace(at, 2, "<\\/");
    if (const auto at = css.rfind("/*# sourceMappingURL="); at != std::string::npos) css.erase(at);
  }
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"generator\" content=\"pccx-vp\">\n<title>" +
      escape(title_) + "</title>\n<style>" + css + kStyle + "</style>\n";
  if (uses_dygraphs_) out += "<script>\n" + lib + "\n</script>\n";
  out += "</head>\n<body>\n" + body_;
  out += "<script>\nvar pccxCharts = [];\n" + scripts_ + "</script>\n</body>\n</html>\n";
  return out;
}

void html_page::write(const std::string& path) const {
  io::write_output(path, html(), "report");
}

}  // namespace pccx::report
