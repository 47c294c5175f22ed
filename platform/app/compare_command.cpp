#include "platform/app/compare_command.h"

#include <cmath>
#include <iostream>
#include <map>
#include <sstream>

#include "infra/io/output_file.h"
#include "platform/report/html_page.h"
#include "platform/vp/top/simulation.h"

namespace pccx::app {

namespace {

using workload::comparison;
using workload::metric_diff;
using workload::output_kind;

std::string joined(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::string pct_option(double pct) {
  return workload::figure_text(pct);
}

// What --fail-above checked, for the report and stderr.
std::string scope(const comparison& c, const std::vector<std::size_t>& chosen) {
  if (chosen.size() == c.metrics.size()) return "every metric";
  return std::to_string(chosen.size()) + " chosen metric" + (chosen.size() == 1 ? "" : "s");
}

std::string threshold_markdown(const comparison& c, double pct,
                               const std::vector<std::size_t>& chosen,
                               const std::vector<std::size_t>& moved) {
  std::ostringstream o;
  o << "\n## Threshold\n\n--fail-above " << pct_option(pct) << " (" << scope(c, chosen) << "): ";
  if (moved.empty()) {
    o << "no metric moved by more than " << pct_option(pct) << " %.\n";
    return o.str();
  }
  o << moved.size() << " of " << chosen.size() << " moved by more than " << pct_option(pct)
    << " % (a metric in one folder only counts as moved).\n\n"
    << "| Metric | A | B | B - A | Change |\n|---|--:|--:|--:|--:|\n";
  for (std::size_t i : moved) {
    const metric_diff& m = c.metrics[i];
    o << "| " << m.name << " | " << (m.a ? workload::figure_text(*m.a) : "-") << " | "
      << (m.b ? workload::figure_text(*m.b) : "-") << " | " << workload::delta_text(m.delta())
      << " | " << workload::percent_text(m.relative_pct()) << " |\n";
  }
  return o.str();
}

std::string change_of(const metric_diff& m) {
  if (!m.a) return "only in B";
  if (!m.b) return "only in A";
  return workload::percent_text(m.relative_pct());
}

// Categories and their metric names for the A-against-B chart, with the
// chart's title, unit and scale.
struct side_by_side {
  std::string title, y_label;
  double scale = 1;
  std::vector<std::pair<std::string, std::string>> bars;  // category, metric name
};

side_by_side a_against_b(const comparison& c) {
  side_by_side s;
  const std::string part = "decode.part.", ns = ".ns";
  switch (c.kind) {
    case output_kind::run:
      for (const auto& m : c.metrics)
        if (m.name.rfind(part, 0) == 0 && m.name.size() > part.size() + ns.size() &&
            m.name.compare(m.name.size() - ns.size(), ns.size(), ns) == 0)
          s.bars.push_back(
              {m.name.substr(part.size(), m.name.size() - part.size() - ns.size()), m.name});
      if (!s.bars.empty()) {
        s.title = "Latency per part of a token (mean), A against B";
        s.y_label = "us";
        s.scale = 1e-3;
        return s;
      }
      for (const auto& m : c.metrics) {
        const std::string pre = "ddr.class.", post = ".read_bytes";
        if (m.name.rfind(pre, 0) == 0 && m.name.size() > pre.size() + post.size() &&
            m.name.compare(m.name.size() - post.size(), post.size(), post) == 0)
          s.bars.push_back(
              {m.name.substr(pre.size(), m.name.size() - pre.size() - post.size()) + " read",
               m.name});
      }
      s.title = "DDR bytes read per class, A against B";
      s.y_label = "bytes";
      return s;
    case output_kind::decode_table: {
      for (const auto& m : c.metrics) {
        const auto slash = m.name.rfind('/');
        if (slash != std::string::npos &&
            m.name.compare(slash + 1, std::string::npos, "latency_ms") == 0)
          s.bars.push_back({m.name.substr(0, slash), m.name});
      }
      s.title = "Latency per cell (mean over its tokens), A against B";
      s.y_label = "ms/token";
      return s;
    }
    case output_kind::sweep: {
      for (const char* headline : {"decode.mean_latency_ns", "sim_time_ns"}) {
        for (const auto& m : c.metrics) {
          const auto slash = m.name.rfind('/');
          if (slash != std::string::npos &&
              m.name.compare(slash + 1, std::string::npos, headline) == 0)
            s.bars.push_back({m.name.substr(0, slash), m.name});
        }
        if (!s.bars.empty()) {
          s.title = std::string(headline == std::string("sim_time_ns")
                                    ? "Simulated time per point"
                                    : "Decode latency per point (mean per token)") +
                    ", A against B";
          s.y_label = "us";
          s.scale = 1e-3;
          return s;
        }
      }
      return s;
    }
  }
  return s;
}

}  // namespace

std::string compare_html(const comparison& c, double pct, const std::vector<std::size_t>& chosen,
                         const std::vector<std::size_t>& moved) {
  using report::html_page;
  html_page p("pccx-vp compare: " + c.dir_a + " and " + c.dir_b);
  std::size_t one_side = 0;
  for (const auto& m : c.metrics) one_side += m.both() ? 0 : 1;
  std::vector<std::pair<std::string, std::string>> kv = {
      {"Kind", std::string("two ") + workload::output_kind_name(c.kind) + "s"},
      {"A", c.dir_a + " (" + joined(c.files_a) + ")"},
      {"B", c.dir_b + " (" + joined(c.files_b) + ")"},
      {"Metrics", std::to_string(c.metrics.size()) + ", " + std::to_string(c.differing()) +
                      " differ" +
                      (one_side ? " (" + std::to_string(one_side) + " in one folder only)" : "")},
      {"Configuration keys that differ", std::to_string(c.config.size())}};
  if (!c.only_a.empty() || !c.only_b.empty())
    kv.push_back(
        {c.kind == output_kind::sweep ? "Points in one folder only" : "Cells in one folder only",
         std::to_string(c.only_a.size()) + " only in A, " + std::to_string(c.only_b.size()) +
             " only in B"});
  p.key_values(kv);
  if (pct >= 0) {
    if (moved.empty()) {
      p.paragraph("--fail-above " + pct_option(pct) + " (" + scope(c, chosen) +
                  "): no metric moved by more than " + pct_option(pct) + " %.");
    } else {
      std::vector<std::string> names;
      for (std::size_t k = 0; k < moved.size() && k < 20; ++k)
        names.push_back(c.metrics[moved[k]].name + " (" + change_of(c.metrics[moved[k]]) + ")");
      p.warning("--fail-above " + pct_option(pct) + " (" + scope(c, chosen) +
                "): " + std::to_string(moved.size()) + " metric" + (moved.size() == 1 ? "" : "s") +
                " moved by more than " + pct_option(pct) + " %: " + joined(names) +
                (moved.size() > 20 ? ", ..." : ""));
    }
  }
  p.paragraph("Change = (B - A) / |A|. A metric in one folder only has no change.");

  p.heading("Largest changes");
  const auto top = workload::largest_changes(c, 16);
  if (top.empty()) {
    p.paragraph("No metric differs between the two folders.");
  } else {
    report::bar_chart ch;
    ch.title = "Largest relative changes, |B - A| / |A| (%), each labelled with its signed change";
    ch.y_label = "|change| %";
    ch.series = {"|change| %"};
    ch.values.resize(1);
    for (std::size_t i : top) {
      const metric_diff& m = c.metrics[i];
      ch.categories.push_back(workload::percent_text(m.relative_pct()) + " " + m.name);
      ch.values[0].push_back(std::fabs(m.relative_pct()));
    }
    p.bars(ch);
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i : top) {
      const metric_diff& m = c.metrics[i];
      rows.push_back({m.name, workload::figure_text(*m.a), workload::figure_text(*m.b),
                      workload::delta_text(m.delta()), workload::percent_text(m.relative_pct())});
    }
    p.table({"Metric", "A", "B", "B - A", "Change"}, rows);
  }

  const side_by_side s = a_against_b(c);
  if (!s.bars.empty()) {
    std::map<std::string, const metric_diff*> by_name;
    for (const auto& m : c.metrics) by_name[m.name] = &m;
    report::bar_chart ch;
    ch.title = s.title;
    ch.y_label = s.y_label;
    ch.series = {"A", "B"};
    ch.values.resize(2);
    for (const auto& [category, name] : s.bars) {
      const metric_diff* m = by_name.at(name);
      ch.categories.push_back(category);
      ch.values[0].push_back(m->a ? *m->a * s.scale : std::nan(""));
      ch.values[1].push_back(m->b ? *m->b * s.scale : std::nan(""));
    }
    p.heading("A against B");
    p.bars(ch);
  }

  std::string section;
  std::vector<std::vector<std::string>> rows;
  const auto flush = [&] {
    if (!rows.empty()) {
      p.heading(section);
      p.table({"Metric", "A", "B", "B - A", "Change"}, rows);
    }
    rows.clear();
  };
  for (const auto& m : c.metrics) {
    if (m.section != section) {
      flush();
      section = m.section;
    }
    rows.push_back({m.name, m.a ? workload::figure_text(*m.a) : "-",
                    m.b ? workload::figure_text(*m.b) : "-", workload::delta_text(m.delta()),
                    change_of(m)});
  }
  flush();

  if (!c.only_a.empty() || !c.only_b.empty()) {
    p.heading(c.kind == output_kind::sweep ? "Points in one folder only"
                                           : "Cells in one folder only");
    std::vector<std::vector<std::string>> r;
    for (const auto& e : c.only_a) r.push_back({e, "A"});
    for (const auto& e : c.only_b) r.push_back({e, "B"});
    p.table({c.kind == output_kind::sweep ? "Point" : "Cell", "Only in"}, r);
  }
  if (!c.texts.empty()) {
    p.heading("Other differences");
    std::vector<std::vector<std::string>> r;
    for (const auto& t : c.texts)
      r.push_back({t.name, t.a ? *t.a : "(absent)", t.b ? *t.b : "(absent)"});
    p.table({"Field", "A", "B"}, r);
  }
  p.heading("Configuration keys that differ");
  if (c.config.empty()) {
    p.paragraph("None.");
  } else {
    const auto text = [](const std::optional<nlohmann::json>& v) {
      return v ? v->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) : "(absent)";
    };
    std::vector<std::vector<std::string>> r;
    for (const auto& d : c.config) r.push_back({d.pointer, text(d.a), text(d.b)});
    p.table({"Key", "A", "B"}, r);
  }
  for (const auto& n : c.notes) p.paragraph(n);
  return p.html();
}

int run_compare_command(const cli_options& opts) {
  workload::comparison c;
  std::vector<std::size_t> chosen;
  try {
    c = workload::compare_folders(opts.inputs.at(0), opts.inputs.at(1));
    chosen = workload::select_metrics(c, opts.metrics);
  } catch (const workload::compare_error& e) {
    throw vp::input_error("compare: " + std::string(e.what()));
  }
  const bool check = opts.fail_above >= 0;
  const std::vector<std::size_t> moved =
      check ? workload::moved_above(c, chosen, opts.fail_above) : std::vector<std::size_t>{};
  std::string md = workload::comparison_markdown(c);
  if (check) md += threshold_markdown(c, opts.fail_above, chosen, moved);
  if (!opts.html_file.empty()) {
    try {
      io::write_output(opts.html_file, compare_html(c, check ? opts.fail_above : -1, chosen, moved),
                       "the --html report");
    } catch (const io::output_error& e) {
      throw vp::input_error(e.what());
    }
  }
  std::cout << md;
  std::cerr << "pccx-vp: compare: " << c.metrics.size() << " metrics, " << c.differing()
            << " differ; " << c.config.size() << " configuration key"
            << (c.config.size() == 1 ? "" : "s") << " differ" << (c.config.size() == 1 ? "s" : "")
            << (opts.html_file.empty() ? "" : "; report in " + opts.html_file) << "\n";
  if (moved.empty()) return 0;
  std::cerr << "pccx-vp: compare: " << moved.size() << " metric" << (moved.size() == 1 ? "" : "s")
            << " moved by more than " << pct_option(opts.fail_above) << " % (--fail-above):\n";
  const std::size_t shown = 20;
  for (std::size_t k = 0; k < moved.size() && k < shown; ++k) {
    const metric_diff& m = c.metrics[moved[k]];
    std::cerr << "  " << m.name << ": " << (m.a ? workload::figure_text(*m.a) : "-") << " -> "
              << (m.b ? workload::figure_text(*m.b) : "-") << " (" << change_of(m) << ")\n";
  }
  if (moved.size() > shown)
    std::cerr << "  ... and " << moved.size() - shown << " more (the report's Threshold section)\n";
  return 1;
}

}  // namespace pccx::app
