#include "platform/vp/report/bandwidth_svg.h"

#include <algorithm>
#include <cmath>

#include "infra/trace/trace_hub.h"
#include "platform/vp/report/svg_plot.h"

namespace pccx::report {

namespace {

// Tableau 10: distinguishable, also in grey scale and for the common
// colour-vision deficiencies. Fixed per class so plots of different runs
// compare at a glance.
const char* class_colour(mem::traffic_class c) {
  switch (c) {
    case mem::traffic_class::weights: return "#4e79a7";
    case mem::traffic_class::kv_read: return "#f28e2b";
    case mem::traffic_class::kv_write: return "#e15759";
    case mem::traffic_class::kv_metadata: return "#b07aa1";
    case mem::traffic_class::activations: return "#59a14f";
    case mem::traffic_class::host: return "#9c9c9c";
    case mem::traffic_class::count: break;
  }
  return "#000";
}

std::string style() {
  std::string s =
      ".axis{stroke:#333;stroke-width:1}.grid{stroke:#ddd;stroke-width:0.5}"
      ".axis-title{font-size:12px}.title{font-size:15px;font-weight:bold}.subtitle{fill:#555}"
      ".area{stroke:none}.ref{stroke-width:1.2;stroke-dasharray:6 3}.peak{stroke:#c00}"
      ".effective{stroke:#e08000}.token{stroke:#222;stroke-width:1}"
      ".token-end{stroke:#222;stroke-width:1;stroke-dasharray:2 2}"
      ".layer{stroke:#777;stroke-width:0.5;stroke-opacity:0.6}"
      ".other{stroke:#6a3d9a;stroke-width:0.8}.mlabel{font-size:9px;fill:#333}";
  for (size_t c = 0; c < mem::kTrafficClasses; ++c) {
    const auto tc = static_cast<mem::traffic_class>(c);
    s += std::string(".") + mem::traffic_class_name(tc) + "{fill:" + class_colour(tc) + "}";
  }
  return s;
}

// The decode program's markers (docs/models/decode.md): "decode: token <t>",
// "... layer <l>", "... exit", "... end". Anything else is `other`.
enum class marker_kind { token, token_end, layer, other };

marker_kind classify(const std::string& m) {
  static const std::string prefix = "decode: token ";
  if (m.compare(0, prefix.size(), prefix) != 0) return marker_kind::other;
  size_t i = prefix.size();
  const size_t digits = i;
  while (i < m.size() && m[i] >= '0' && m[i] <= '9') ++i;
  if (i == digits) return marker_kind::other;
  const std::string rest = m.substr(i);
  if (rest.empty()) return marker_kind::token;
  if (rest == " end") return marker_kind::token_end;
  if (rest == " exit") return marker_kind::layer;
  if (rest.compare(0, 7, " layer ") == 0 && rest.size() > 7 &&
      rest.find_first_not_of("0123456789", 7) == std::string::npos)
    return marker_kind::layer;
  return marker_kind::other;
}

// The band of one class between the stacked totals below it and with it,
// in data units (x: column index, y: bytes in the column), one closed
// subpath per run of columns where the class moved bytes. Integers only, so
// the polygon's area is exactly the class's bytes.
std::string band_path(const std::vector<uint64_t>& bottom, const std::vector<uint64_t>& top) {
  std::string d;
  const size_t n = top.size();
  long long cur = 0, pending_h = 0;
  auto flush_h = [&] {
    if (pending_h != 0) d += "h" + std::to_string(pending_h);
    pending_h = 0;
  };
  auto move_v = [&](uint64_t to) {
    const long long target = static_cast<long long>(to);
    if (target == cur) return;
    flush_h();
    d += "v" + std::to_string(target - cur);
    cur = target;
  };
  size_t j = 0;
  while (j < n) {
    if (top[j] == bottom[j]) {
      ++j;
      continue;
    }
    size_t end = j;
    while (end < n && top[end] != bottom[end]) ++end;
    d += "M" + std::to_string(j) + " " + std::to_string(bottom[j]);
    cur = static_cast<long long>(bottom[j]);
    for (size_t k = j; k < end; ++k) {
      move_v(top[k]);
      ++pending_h;
    }
    flush_h();
    for (size_t k = end; k-- > j;) {
      move_v(bottom[k]);
      --pending_h;
    }
    flush_h();
    d += "Z";
    j = end;
  }
  return d;
}

}  // namespace

std::string bandwidth_svg(const mem::bandwidth_recorder& rec, const bandwidth_plot& p) {
  const double window_ns = trace::to_ns(rec.window());
  const size_t recorded = rec.window_count();
  double end_ns = std::max(p.end_ns, static_cast<double>(recorded) * window_ns);
  for (double t : p.marker_times_ns) end_ns = std::max(end_ns, t);
  const size_t windows =
      std::max<size_t>({1, recorded, static_cast<size_t>(std::ceil(end_ns / window_ns - 1e-9))});
  const size_t max_columns = std::max<uint32_t>(1, p.max_columns);
  const size_t per_column = (windows + max_columns - 1) / max_columns;
  const size_t columns = (windows + per_column - 1) / per_column;
  const double column_ns = static_cast<double>(per_column) * window_ns;

  // Bytes per class and column, and the stacked totals over the classes
  // that moved bytes, in the classes' order.
  std::vector<mem::traffic_class> present;
  std::vector<std::vector<uint64_t>> stacked;  // stacked[i]: classes 0..i-1 of `present`
  stacked.emplace_back(columns, 0);
  for (size_t c = 0; c < mem::kTrafficClasses; ++c) {
    const auto tc = static_cast<mem::traffic_class>(c);
    if (rec.cls(tc).bytes == 0) continue;
    present.push_back(tc);
    std::vector<uint64_t> next = stacked.back();
    for (size_t w = 0; w < recorded; ++w) next[w / per_column] += rec.window_bytes(tc, w);
    stacked.push_back(std::move(next));
  }
  uint64_t busiest = 0;
  for (uint64_t b : stacked.back()) busiest = std::max(busiest, b);
  const double max_gbps =
      std::max({p.peak_gbps * 1.04, p.effective_gbps, static_cast<double>(busiest) / column_ns});
  const ticks yt = nice_ticks(max_gbps, 6);

  frame f;
  f.left = 80;
  f.top = 60;
  f.width = 880;
  f.height = 400;
  f.x_max = static_cast<double>(columns) * column_ns;
  f.y_max = yt.top;

  svg_document doc(kBandwidthPlotWidth, kBandwidthPlotHeight, style());
  doc.text(f.left, 22, p.title, "title");
  const time_unit wu = time_unit_for(window_ns);
  doc.text(f.left, 40,
           "window " + general(window_ns / wu.ns, 6) + " " + wu.name + ", " +
               std::to_string(per_column) + (per_column == 1 ? " window" : " windows") +
               " per column of " + format_time(column_ns) + " (" + grouped(columns) +
               (columns == 1 ? " column" : " columns") + "); DDR total " +
               grouped(rec.total().bytes) + " bytes",
           "subtitle");
  doc.raw("<g id=\"plot\" data-left=\"" + px(f.left) + "\" data-top=\"" + px(f.top) +
          "\" data-width=\"" + px(f.width) + "\" data-height=\"" + px(f.height) +
          "\" data-x-max-ns=\"" + general(f.x_max, 12) + "\" data-y-max-gbps=\"" +
          general(f.y_max, 12) + "\">\n");
  doc.y_axis(f, yt, "DDR bandwidth (GB/s)");
  doc.x_time_axis(f, "simulated time");

  // Data units inside the group: x = column index, y = bytes in the column;
  // the transform maps them to pixels, so y / column_ns is the GB/s.
  const double sx = f.width / static_cast<double>(columns);
  const double sy = f.height / (f.y_max * column_ns);
  doc.raw("<g id=\"series\" data-window-ns=\"" + general(window_ns, 12) +
          "\" data-windows-per-column=\"" + std::to_string(per_column) + "\" data-columns=\"" +
          std::to_string(columns) + "\" data-column-ns=\"" + general(column_ns, 12) +
          "\" transform=\"matrix(" + general(sx) + " 0 0 " + general(-sy) + " " + px(f.left) + " " +
          px(f.bottom()) + ")\">\n");
  for (size_t i = 0; i < present.size(); ++i) {
    const std::string name = mem::traffic_class_name(present[i]);
    doc.raw("<path id=\"ddr-" + name + "\" class=\"area " + name + "\" d=\"" +
            band_path(stacked[i], stacked[i + 1]) + "\"><title>" + name + ": " +
            grouped(rec.cls(present[i]).bytes) + " bytes</title></path>\n");
  }
  doc.raw("</g>\n");
  if (present.empty())
    doc.text(f.left + f.width / 2, f.top + f.height / 2, "no DDR traffic", "", "middle");

  // Reference lines.
  doc.line(f.left, f.y(p.peak_gbps), f.right(), f.y(p.peak_gbps), "ref peak",
           "DDR peak " + fixed(p.peak_gbps, 3) + " GB/s");
  doc.line(f.left, f.y(p.effective_gbps), f.right(), f.y(p.effective_gbps), "ref effective",
           "effective " + fixed(p.effective_gbps, 3) + " GB/s");

  // Markers. Tokens: every one, labelled where there is room. Layer and
  // exit starts: light lines, at least 2 px apart. Others: at most
  // kMaxMarkerLines lines (every k-th), labelled where there is room.
  doc.raw("<g id=\"markers\">\n");
  size_t others = 0;
  for (const auto& m : p.markers) others += classify(m) == marker_kind::other;
  const size_t other_stride = (others + kMaxMarkerLines - 1) / kMaxMarkerLines;
  size_t other_index = 0;
  double last_layer_x = -1e9, last_label_x = -1e9;
  for (size_t i = 0; i < p.markers.size() && i < p.marker_times_ns.size(); ++i) {
    const std::string& m = p.markers[i];
    const double x = f.x(p.marker_times_ns[i]);
    const std::string title = m + " at " + format_time(p.marker_times_ns[i]);
    switch (classify(m)) {
      case marker_kind::token:
        doc.line(x, f.top, x, f.bottom(), "marker token", title);
        if (x - last_label_x >= 14) {
          doc.text(x + 2, f.top + 10, "t" + m.substr(14), "mlabel");
          last_label_x = x;
        }
        break;
      case marker_kind::token_end:
        doc.line(x, f.top, x, f.bottom(), "marker token-end", title);
        break;
      case marker_kind::layer:
        if (x - last_layer_x < 2) break;
        doc.line(x, f.top + 14, x, f.bottom(), "marker layer", title);
        last_layer_x = x;
        break;
      case marker_kind::other:
        if (other_index++ % other_stride != 0) break;
        doc.line(x, f.top, x, f.bottom(), "marker other", title);
        if (x - last_label_x >= 12) {
          doc.text(x + 3, f.top + 4, m, "mlabel", "start", 90);
          last_label_x = x;
        }
        break;
    }
  }
  doc.raw("</g>\n</g>\n");

  // Legend.
  double ly = f.top;
  const double lx = f.right() + 24;
  doc.raw("<g id=\"legend\">\n");
  for (auto tc : present) {
    const std::string name = mem::traffic_class_name(tc);
    doc.rect(lx, ly, 12, 12, name);
    doc.text(lx + 18, ly + 10, name, "");
    doc.text(lx + 18, ly + 23, grouped(rec.cls(tc).bytes) + " B", "subtitle");
    ly += 34;
  }
  ly += 6;
  doc.line(lx, ly + 6, lx + 12, ly + 6, "ref peak");
  doc.text(lx + 18, ly + 10, "peak " + fixed(p.peak_gbps, 2) + " GB/s", "");
  ly += 20;
  doc.line(lx, ly + 6, lx + 12, ly + 6, "ref effective");
  doc.text(lx + 18, ly + 10, "effective " + fixed(p.effective_gbps, 2) + " GB/s", "");
  ly += 26;
  bool tokens = false, layers = false;
  for (const auto& m : p.markers) {
    tokens |= classify(m) == marker_kind::token;
    layers |= classify(m) == marker_kind::layer;
  }
  if (tokens) {
    doc.line(lx + 6, ly, lx + 6, ly + 12, "token");
    doc.text(lx + 18, ly + 10, "token start", "");
    ly += 20;
    doc.line(lx + 6, ly, lx + 6, ly + 12, "token-end");
    doc.text(lx + 18, ly + 10, "token end", "");
    ly += 20;
  }
  if (layers) {
    doc.line(lx + 6, ly, lx + 6, ly + 12, "layer");
    doc.text(lx + 18, ly + 10, "layer / exit start", "");
    ly += 20;
  }
  if (others != 0) {
    doc.line(lx + 6, ly, lx + 6, ly + 12, "other");
    doc.text(lx + 18, ly + 10,
             other_stride > 1 ? "marker (1 in " + std::to_string(other_stride) + ")" : "marker",
             "");
  }
  doc.raw("</g>\n");
  return doc.finish();
}

void write_bandwidth_svg(const mem::bandwidth_recorder& rec, const bandwidth_plot& p,
                         const std::string& path) {
  write_text_file(path, bandwidth_svg(rec, p));
}

}  // namespace pccx::report
