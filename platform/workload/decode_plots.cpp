#include "platform/workload/decode_plots.h"

#include <set>

#include "platform/vp/report/svg_plot.h"

namespace pccx::workload {

namespace {

const std::vector<report::latency_kind>& all_kinds() {
  static const std::vector<report::latency_kind> kinds = {{"entry", "#59a14f", "entry"},
                                                          {"layer-even", "#4e79a7", "layer (even)"},
                                                          {"layer-odd", "#a0cbe8", "layer (odd)"},
                                                          {"exit", "#f28e2b", "exit"},
                                                          {"sync", "#9c9c9c", "sync"}};
  return kinds;
}

// "entry", "layer 3", "exit", "sync" -> its colour class.
std::string kind_of(const std::string& part) {
  if (part.compare(0, 6, "layer ") == 0) {
    // The parity of the last digit alternates the two layer colours.
    const char last = part.back();
    return last >= '0' && last <= '9' && (last - '0') % 2 ? "layer-odd" : "layer-even";
  }
  return part;
}

// Token t's segments from its markers: "decode: token <t>", then
// "... layer <l>", "... exit" and "... end" in the order the firmware
// left them.
std::vector<report::latency_segment> marker_segments(const vp::run_result& r, uint32_t t) {
  const std::string start = "decode: token " + std::to_string(t), prefix = start + " ";
  std::vector<report::latency_segment> out;
  std::string part;
  double from = 0;
  for (size_t i = 0; i < r.markers.size() && i < r.marker_times_ns.size(); ++i) {
    const std::string& m = r.markers[i];
    const double at = r.marker_times_ns[i];
    if (m == start) {
      part = "entry";
      from = at;
      out.clear();
      continue;
    }
    if (part.empty() || m.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string next = m.substr(prefix.size());
    if (next != "end" && next != "exit" && next.compare(0, 6, "layer ") != 0) continue;
    out.push_back({part, kind_of(part), at - from});
    if (next == "end") return out;
    part = next;
    from = at;
  }
  return {};  // the token did not end
}

std::vector<report::latency_segment> part_segments(const std::vector<part_time>& parts) {
  std::vector<report::latency_segment> out;
  for (const auto& p : parts) out.push_back({p.name, kind_of(p.name), p.ns});
  return out;
}

}  // namespace

report::latency_chart latency_breakdown(const decode_report& rep) {
  report::latency_chart c;
  const bool token_parts = !rep.parts.empty() && rep.tokens == 1;
  double mean = 0;
  for (double l : rep.latency_ns) mean += l / static_cast<double>(rep.latency_ns.size());
  c.title = "Decode latency per token: " + rep.model + ", L = " + std::to_string(rep.context);
  c.subtitle = std::to_string(rep.tokens) + (rep.tokens == 1 ? " token" : " tokens") + ", mean " +
               report::format_time(mean) + "; " +
               (token_parts ? "parts up to the completion of their last instruction"
                            : "time between the token's markers (as issued)");
  if (!rep.parts.empty() && !token_parts) c.subtitle += "; mean: parts, mean over the tokens";

  std::set<std::string> used;
  for (uint32_t t = 0; t < rep.tokens; ++t) {
    report::latency_bar b;
    b.label = "t" + std::to_string(t);
    b.kind = "token";
    b.segments = token_parts ? part_segments(rep.parts) : marker_segments(rep.run, t);
    b.title = "token " + std::to_string(t) + ": " + report::format_time(b.total_ns());
    for (const auto& s : b.segments) used.insert(s.kind);
    c.bars.push_back(std::move(b));
  }
  if (!rep.parts.empty() && !token_parts) {
    report::latency_bar b;
    b.label = "mean";
    b.kind = "mean";
    b.segments = part_segments(rep.parts);
    b.title = "mean of the parts over " + std::to_string(rep.tokens) +
              " tokens: " + report::format_time(b.total_ns());
    for (const auto& s : b.segments) used.insert(s.kind);
    c.bars.push_back(std::move(b));
  }
  for (const auto& k : all_kinds())
    if (used.count(k.name)) c.kinds.push_back(k);
  return c;
}

std::string latency_breakdown_svg(const decode_report& rep) {
  return report::latency_svg(latency_breakdown(rep));
}

void write_latency_breakdown_svg(const decode_report& rep, const std::string& path) {
  report::write_text_file(path, latency_breakdown_svg(rep));
}

}  // namespace pccx::workload
