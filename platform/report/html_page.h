// A self-contained HTML report: one file that opens offline in any browser.
// Styles and scripts are inside the file; time series are drawn by dygraphs
// (Debian's libjs-dygraphs, read when the page is written and inlined), bar
// charts are inline SVG. Text given to the page is escaped.
//
//   html_page p("decode, tiny");
//   p.heading("Summary");
//   p.key_values({{"outcome", "finished"}, ...});
//   p.time_series({"bw", "DDR bandwidth", "time (us)", "GB/s", {"weights", ...}, rows});
//   p.write(dir + "/report.html");
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace pccx::report {

// A zoomable line chart: x in the first column of each row, one value per
// series after it. Hovering shows the values at that x.
struct time_series_chart {
  std::string id;     // unique on the page: letters, digits, '_' and '-'
  std::string title;
  std::string x_label, y_label;
  std::vector<std::string> series;
  std::vector<std::vector<double>> rows;  // {x, v1, ..., vn}, x increasing
  bool stacked = false;
  std::string note;  // under the chart (escaped), e.g. where the full data is
};

// Bars per category, one colour per series, stacked or side by side; each
// bar has a tooltip with its value.
struct bar_chart {
  std::string title;
  std::string y_label;
  std::vector<std::string> categories;
  std::vector<std::string> series;
  std::vector<std::vector<double>> values;  // [series][category]
  bool stacked = false;
  std::vector<std::string> links;  // optional, per category: a link under its label
};

class html_page {
 public:
  explicit html_page(std::string title);

  void heading(const std::string& text, int level = 2);
  void paragraph(const std::string& text);
  // A paragraph in the warning style (errors, refusals).
  void warning(const std::string& text);
  void key_values(const std::vector<std::pair<std::string, std::string>>& rows);
  // Cells are escaped; a cell starting with "<a " is taken as a link made by link().
  void table(const std::vector<std::string>& header,
             const std::vector<std::vector<std::string>>& rows);
  void preformatted(const std::string& text);
  void time_series(const time_series_chart& chart);
  void bars(const bar_chart& chart);
  // Markup for a table cell or a paragraph: an escaped link.
  static std::string link(const std::string& text, const std::string& href);
  static std::string escape(const std::string& text);

  // The whole document. Throws std::runtime_error when the charting library
  // is needed and cannot be read (naming the file and its Debian package).
  std::string html() const;
  // html() into `path`, written whole or not at all.
  void write(const std::string& path) const;

  // Where the charting library is read from (PCCX_DYGRAPHS_DIR at build
  // time; the environment variable of the same name overrides it).
  static std::string library_dir();

 private:
  std::string title_;
  std::string body_;
  std::string scripts_;  // chart set-up, run once the page has loaded
  bool uses_dygraphs_ = false;
  std::size_t svg_count_ = 0;
};

// A number as a report shows it: up to 4 significant digits, grouped
// thousands for large integers ("12,345", "0.1234", "1.5e-07").
std::string number(double v);

}  // namespace pccx::report
