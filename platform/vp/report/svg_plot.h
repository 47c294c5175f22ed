// What the run's SVG plots share: fixed number formatting (two runs of the
// same configuration give byte-identical files), XML escaping, axis ticks,
// a plot frame mapping data to pixels, and a small document builder. Plain
// standard library: the files open in any browser without scripts or fonts
// beyond sans-serif.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pccx::report {

// v with `decimals` digits after the point; never "-0".
std::string fixed(double v, int decimals);
// v with up to `digits` significant digits in the shortest form (%g).
std::string general(double v, int digits = 9);
// 2273561728 -> "2,273,561,728".
std::string grouped(uint64_t v);
// &, <, >, " and ' as entities.
std::string xml_escape(const std::string& s);

// Ticks at the multiples of a step of 1, 2 or 5 x 10^n from 0 to `top`, the
// first multiple >= max; about `target` intervals.
struct ticks {
  double step = 1;
  double top = 1;
  std::vector<double> values;
  int decimals = 0;  // digits after the point a label needs at this step
};
ticks nice_ticks(double max, int target);

// The unit an axis or a figure of `ns` nanoseconds reads best in.
struct time_unit {
  const char* name;  // "ns", "us", "ms", "s"
  double ns;         // nanoseconds per unit
};
time_unit time_unit_for(double ns);
// "306.39 ms": two decimals in the unit time_unit_for picks.
std::string format_time(double ns);

// The plot area in pixels and the data values at its right and top edges
// (both axes start at 0).
struct frame {
  double left = 0, top = 0, width = 0, height = 0;
  double x_max = 1, y_max = 1;
  double x(double v) const { return left + v * width / x_max; }
  double y(double v) const { return top + height - v * height / y_max; }
  double bottom() const { return top + height; }
  double right() const { return left + width; }
};

// Builds one SVG document as text. Coordinates are printed with two
// decimals (1/100 px).
class svg_document {
 public:
  // style: the CSS of the <style> element (classes of the plot's elements).
  svg_document(int width, int height, const std::string& style);

  void raw(const std::string& text) { out_ += text; }
  void line(double x1, double y1, double x2, double y2, const std::string& cls,
            const std::string& title = "");
  void rect(double x, double y, double w, double h, const std::string& cls,
            const std::string& extra_attributes = "", const std::string& title = "");
  // anchor: start, middle or end; rotate: degrees around (x, y).
  void text(double x, double y, const std::string& s, const std::string& cls,
            const char* anchor = "start", double rotate = 0);
  // Grid lines, tick labels and the title of the y axis at the ticks `t`.
  void y_axis(const frame& f, const ticks& t, const std::string& label);
  // Ticks and labels of an x axis of nanoseconds, in the unit of its span.
  void x_time_axis(const frame& f, const std::string& label);
  // The closing tag; the document is complete.
  std::string finish();

 private:
  std::string out_;
};

// Pixel coordinate text: two decimals.
inline std::string px(double v) {
  return fixed(v, 2);
}

// Writes `text` to `path`; throws std::runtime_error when it cannot.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace pccx::report
