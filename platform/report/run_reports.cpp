#include "platform/report/run_reports.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

#include "platform/report/html_page.h"
#include "platform/workload/sweep_table.h"

namespace pccx::report {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

json read_json(const std::string& path, bool required) {
  if (!fs::exists(path)) {
    if (required) throw std::runtime_error("cannot write the report: " + path + " is missing");
    return json();
  }
  json j = json::parse(read_text(path), nullptr, false);
  if (j.is_discarded()) throw std::runtime_error("cannot write the report: " + path + " is not JSON");
  return j;
}

double num(const json& j, const char* key, double fallback = NAN) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : fallback;
}

// One line of CSV: fields, with "..." quoting ("" inside for a quote).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

bool parse_number(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end && *end == '\0' && std::isfinite(v);
}

// ---- a run ------------------------------------------------------------------

// ddr_bandwidth.csv as two charts: GB/s per traffic class and per port.
void bandwidth_charts(html_page& page, const std::string& dir, const json& bandwidth,
                      double end_ns) {
  // The plots' series (its window follows the run's length), else the
  // stats.window_ns series.
  const bool adaptive = fs::exists(dir + "/ddr_bandwidth_plot.csv");
  const std::string path = dir + (adaptive ? "/ddr_bandwidth_plot.csv" : "/ddr_bandwidth.csv");
  std::ifstream in(path);
  if (!in) return;
  double window_ns = 0;
  std::string line;
  std::getline(in, line);  // header
  std::map<std::string, std::vector<std::string>> names;  // kind -> names in first-seen order
  std::map<std::string, std::map<double, std::map<std::string, double>>> data;
  while (std::getline(in, line)) {
    const auto f = csv_fields(line);
    if (f.size() < 6) continue;
    double start = 0, end = 0, gbps = 0;
    if (!parse_number(f[0], start) || !parse_number(f[1], end) || !parse_number(f[5], gbps)) continue;
    window_ns = end - start;
    auto& list = names[f[2]];
    if (std::find(list.begin(), list.end(), f[3]) == list.end()) list.push_back(f[3]);
    data[f[2]][(start + end) / 2e3][f[3]] = gbps;  // window middle, us
  }
  // A run that moved nothing still gets its (flat) charts, over its length.
  for (const auto& [kind, group] : {std::pair<std::string, const char*>{"class", "classes"},
                                    {"port", "ports"}})
    if (!data.count(kind) && bandwidth.contains(group) && bandwidth[group].is_object()) {
      for (const auto& [name, totals] : bandwidth[group].items()) {
        (void)totals;
        names[kind].push_back(name);
        data[kind][0.0][name] = 0;
        data[kind][end_ns / 1e3][name] = 0;
      }
    }
  for (const char* kind : {"class", "port"}) {
    if (!data.count(kind)) continue;
    time_series_chart c;
    c.id = std::string("ddr_") + kind;
    c.title = std::string("DDR bandwidth per ") + (kind == std::string("class") ? "traffic class" : "port") +
              " (stacked)";
    c.x_label = "simulated time (us)";
    c.y_label = "GB/s";
    c.series = names[kind];
    c.stacked = true;
    for (const auto& [t, values] : data[kind]) {
      std::vector<double> row{t};
      for (const auto& n : c.series) row.push_back(values.count(n) ? values.at(n) : 0.0);
      c.rows.push_back(std::move(row));
    }
    c.note = adaptive ? "Each point is a window of " + number(window_ns) +
                            " ns, chosen for the run's length (ddr_bandwidth_plot.csv); the "
                            "stats.window_ns series is ddr_bandwidth.csv."
                      : "Each point is one stats window (stats.window_ns); long runs keep each "
                        "pixel's peak. All windows: ddr_bandwidth.csv.";
    page.time_series(c);
  }
}

void engine_chart(html_page& page, const json& counters) {
  bar_chart c;
  c.title = "NPU engines: busy, stalled and idle clocks";
  c.y_label = "core clocks";
  c.series = {"busy", "stall", "idle"};
  c.values.assign(3, {});
  c.stacked = true;
  for (const char* e : {"gemv", "gemm", "sfu", "dma"}) {
    const std::string p = e;
    double stall = 0;
    for (const auto& [k, v] : counters.items())
      if (k.rfind(p + "_", 0) == 0 && k.find("stall_cycles") != std::string::npos && v.is_number())
        stall += v.get<double>();
    c.categories.push_back(e);
    c.values[0].push_back(num(counters, (p + "_busy_cycles").c_str(), 0));
    c.values[1].push_back(stall);
    c.values[2].push_back(num(counters, (p + "_idle_cycles").c_str(), 0));
  }
  page.bars(c);
}

void decode_section(html_page& page, const json& d) {
  page.heading("Decode");
  const json lat = d.value("latency_ns", json::array());
  const json bound = d.value("bound", json::array());
  page.key_values({{"model", d.value("model", std::string())},
                   {"context L", number(num(d, "context"))},
                   {"tokens decoded", number(num(d, "tokens"))},
                   {"latency / bound (mean)", number(num(d, "bound_ratio"))},
                   {"achieved DDR bandwidth, GB/s", number(num(d, "achieved_gbps"))},
                   {"GEMV MAC utilisation", number(num(d, "gemv_utilisation"))},
                   {"NPU MAC utilisation", number(num(d, "npu_utilisation"))}});
  bar_chart tokens;
  tokens.title = "Latency per token against the roofline bound";
  tokens.y_label = "ms";
  tokens.series = {"latency", "roofline bound"};
  tokens.values.assign(2, {});
  for (std::size_t t = 0; t < lat.size(); ++t) {
    tokens.categories.push_back("token " + std::to_string(t));
    tokens.values[0].push_back(lat[t].is_number() ? lat[t].get<double>() / 1e6 : 0);
    tokens.values[1].push_back(t < bound.size() ? num(bound[t], "bound_seconds", 0) * 1e3 : 0);
  }
  if (!tokens.categories.empty()) page.bars(tokens);

  // Parts of a token (entry, layer N, exit, sync), each the mean over the tokens.
  const json parts = d.value("parts", json::array());
  if (parts.is_array() && !parts.empty()) {
    bar_chart layers;
    layers.title = "Latency per part of a token: entry, every layer by number, exit (mean over "
                   "the tokens)";
    layers.y_label = "us";
    layers.series = {"latency"};
    layers.values.assign(1, {});
    for (const auto& p : parts) {
      layers.categories.push_back(p.value("name", std::string("?")));
      layers.values[0].push_back(num(p, "ns", 0) / 1e3);
    }
    page.bars(layers);
  } else {
    page.paragraph("Per-layer latency: run the decode with --per-layer to break each token down.");
  }
  const json bytes = d.value("ddr_bytes_per_token", json::object());
  if (bytes.is_object() && !bytes.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& [k, v] : bytes.items())
      if (v.is_number()) rows.push_back({k, number(v.get<double>())});
    page.table({"DDR traffic class", "bytes per token"}, rows);
  }
}

}  // namespace

void write_run_report(const std::string& dir, const config_sources& sources) {
  const json s = read_json(dir + "/summary.json", true);
  const json d = read_json(dir + "/decode.json", false);
  const json fw = s.value("firmware", json::object());
  const json cfg = s.value("config", json::object());
  const std::string run_name = cfg.is_object() && cfg.contains("output") &&
                                       cfg["output"].value("run_name", std::string()) != ""
                                   ? cfg["output"]["run_name"].get<std::string>()
                                   : fw.value("name", std::string("run"));
  html_page page("pccx-vp run: " + run_name);
  const std::string outcome = s.value("outcome", std::string("?"));
  page.key_values({{"outcome", outcome},
                   {"exit code", number(num(s, "exit_code"))},
                   {"message", s.value("message", std::string())},
                   {"firmware", fw.value("name", std::string()) + " (" +
                                    fw.value("origin", std::string()) + ")"},
                   {"simulated time, us", number(num(s, "sim_time_ns") / 1e3)},
                   {"NPU instructions retired", number(num(s, "instructions_retired"))}});
  if (outcome != "finished") page.warning("The run failed: " + s.value("message", std::string()));

  page.heading("Warnings and errors");
  const json w = s.value("warnings", json::object());
  if (w.is_object() && w.contains("first")) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& x : w["first"])
      rows.push_back({number(num(x, "t_ns") / 1e3), x.value("level", std::string()),
                      x.value("module", std::string()), x.value("text", std::string())});
    page.table({"time (us)", "level", "module", "message"}, rows);
    if (num(w, "count", 0) > static_cast<double>(rows.size()))
      page.paragraph(number(num(w, "count", 0)) + " in all; the first " +
                     std::to_string(rows.size()) + " are listed.");
  } else {
    page.paragraph("None.");
  }

  if (d.is_object()) decode_section(page, d);

  page.heading("DDR");
  const json bw = s.contains("memory") ? s["memory"]["ddr"].value("bandwidth", json::object())
                                       : json::object();
  for (const char* group : {"classes", "ports"}) {
    if (!bw.contains(group)) continue;
    std::vector<std::vector<std::string>> rows;
    for (const auto& [name, t] : bw[group].items())
      rows.push_back({name, number(num(t, "read_bytes", 0)), number(num(t, "write_bytes", 0)),
                      number(num(t, "avg_gbps", 0)), number(num(t, "peak_gbps", 0))});
    page.table({group == std::string("classes") ? "traffic class" : "port", "read bytes",
                "write bytes", "average GB/s", "peak GB/s"},
               rows);
  }
  bandwidth_charts(page, dir, bw, num(s, "sim_time_ns", 0));

  page.heading("NPU engines");
  engine_chart(page, s.value("npu_counters", json::object()));

  page.heading("Configuration");
  std::string layers = "built-in defaults";
  for (const auto& f : sources.files) layers += " -> --config " + f;
  for (const auto& x : sources.sets) layers += " -> --set " + x;
  page.paragraph("Layers, later winning: " + layers + ".");
  page.preformatted(cfg.dump(2));
  page.write(dir + "/report.html");
}

// ---- a decode table ---------------------------------------------------------

void write_table_report(const std::string& dir) {
  const json t = read_json(dir + "/decode_table.json", true);
  html_page page("pccx-vp decode table: " + t.value("sweep", std::string()));
  page.paragraph("Every figure is the mean over tokens " + t.value("tokens_averaged", std::string()) +
                 " (" + t.value("mode", std::string()) + " mode). Files: decode_table.md, .csv, .json.");
  const json rows = t.value("rows", json::array());
  std::vector<std::string> models;
  for (const auto& r : rows) {
    const std::string m = r.value("model", std::string());
    if (std::find(models.begin(), models.end(), m) == models.end()) models.push_back(m);
  }
  std::vector<std::vector<std::string>> refused;
  for (const auto& m : models) {
    page.heading("Model " + m);
    // Strategies along the axis, one series per context; the charts share them.
    std::vector<const json*> cells;
    std::vector<std::string> strategies, contexts;
    for (const auto& r : rows) {
      if (r.value("model", std::string()) != m) continue;
      cells.push_back(&r);
      const std::string st = r.value("label", r.value("strategy", std::string()));
      const std::string ctx = "L = " + number(num(r, "context"));
      if (std::find(strategies.begin(), strategies.end(), st) == strategies.end())
        strategies.push_back(st);
      if (std::find(contexts.begin(), contexts.end(), ctx) == contexts.end()) contexts.push_back(ctx);
    }
    auto cell_at = [&](const std::string& st, const std::string& ctx) -> const json* {
      for (const json* r : cells)
        if (r->value("label", r->value("strategy", std::string())) == st &&
            "L = " + number(num(*r, "context")) == ctx)
          return r;
      return nullptr;
    };
    auto chart = [&](const std::string& title, const std::string& unit, auto value) {
      bar_chart c;
      c.title = title + " (" + m + ")";
      c.y_label = unit;
      c.categories = strategies;
      c.series = contexts;
      for (const auto& ctx : contexts) {
        std::vector<double> col;
        for (const auto& st : strategies) {
          const json* r = cell_at(st, ctx);
          col.push_back(r && r->value("status", std::string()) == "ok" ? value(*r) : 0);
        }
        c.values.push_back(std::move(col));
      }
      page.bars(c);
    };
    chart("latency per token", "ms", [](const json& r) { return num(r, "latency_ms", 0); });
    chart("latency over bound", "x", [](const json& r) { return num(r, "latency_over_bound", 0); });
    chart("GEMV MAC utilisation", "%", [](const json& r) { return num(r, "gemv_mac_util_pct", 0); });
    chart("achieved DDR bandwidth", "GB/s", [](const json& r) { return num(r, "achieved_gbps", 0); });
    bar_chart bytes;
    bytes.title = "DDR MB per token by traffic class (" + m + ")";
    bytes.y_label = "MB";
    bytes.stacked = true;
    for (const json* r : cells) {
      bytes.categories.push_back(r->value("label", std::string()) + ", L " + number(num(*r, "context")));
      const json per = r->value("ddr_mb_per_token", json::object());
      for (const auto& [cls, v] : per.items()) {
        auto it = std::find(bytes.series.begin(), bytes.series.end(), cls);
        if (it == bytes.series.end()) {
          bytes.series.push_back(cls);
          bytes.values.emplace_back(bytes.categories.size() - 1, 0.0);
          it = bytes.series.end() - 1;
        }
        auto& col = bytes.values[it - bytes.series.begin()];
        col.resize(bytes.categories.size(), 0.0);
        col.back() = v.is_number() ? v.get<double>() : 0;
      }
      for (auto& col : bytes.values) col.resize(bytes.categories.size(), 0.0);
    }
    page.bars(bytes);
    // Each cell's own report, when --keep-outputs kept its folder.
    std::vector<std::vector<std::string>> links;
    for (const json* r : cells) {
      const std::string id = r->value("model", std::string()) + "-" +
                             r->value("strategy", std::string()) + "-" +
                             std::to_string(static_cast<long long>(num(*r, "context", 0)));
      const std::string report = "cells/" + id + "/report.html";
      links.push_back({fs::exists(dir + "/" + report) ? html_page::link(id, report) : id,
                       r->value("label", std::string()), number(num(*r, "context")),
                       r->value("status", std::string()), number(num(*r, "latency_ms"))});
    }
    page.table({"cell", "strategy", "context", "status", "latency ms"}, links);
    for (const json* r : cells)
      if (r->value("status", std::string()) != "ok")
        refused.push_back({r->value("model", std::string()), r->value("label", std::string()),
                           number(num(*r, "context")), r->value("status", std::string()),
                           r->value("note", std::string())});
  }
  page.heading("Cells that did not run");
  if (refused.empty())
    page.paragraph("None: every cell ran.");
  else
    page.table({"model", "strategy", "context", "status", "why"}, refused);
  page.write(dir + "/report.html");
}

// ---- a sweep ----------------------------------------------------------------

void write_sweep_report(const std::vector<std::string>& inputs, const std::string& dir) {
  const workload::sweep_results r = workload::read_results(inputs);
  std::istringstream csv(workload::results_csv(r));
  std::string line;
  std::getline(csv, line);
  const std::vector<std::string> header = csv_fields(line);
  std::vector<std::vector<std::string>> rows;
  while (std::getline(csv, line)) rows.push_back(csv_fields(line));
  const auto status_col = std::find(header.begin(), header.end(), "status") - header.begin();
  const std::size_t axes = static_cast<std::size_t>(std::max<std::ptrdiff_t>(status_col - 1, 0));
  html_page page("pccx-vp sweep " + r.hash);
  page.paragraph(std::to_string(r.points.size()) + " of " + std::to_string(r.total) +
                 " points; tables: sweep.csv, sweep.md; every point: points.jsonl.");
  // Metrics: the numeric columns after the status.
  std::vector<std::size_t> metrics;
  for (std::size_t c = static_cast<std::size_t>(status_col) + 1; c < header.size(); ++c) {
    bool any = false;
    for (const auto& row : rows) {
      double v;
      any = any || (c < row.size() && parse_number(row[c], v));
    }
    if (any) metrics.push_back(c);
  }
  for (std::size_t m : metrics) {
    page.heading(header[m]);
    for (std::size_t a = 1; a <= axes; ++a) {
      bar_chart c;
      c.title = header[m] + " against " + header[a];
      c.y_label = header[m];
      std::map<std::string, std::map<std::string, double>> by_series;  // others -> axis value -> v
      for (const auto& row : rows) {
        if (row.size() <= m) continue;
        std::string others;
        for (std::size_t o = 1; o <= axes; ++o)
          if (o != a) others += (others.empty() ? "" : ", ") + header[o] + "=" + row[o];
        if (std::find(c.categories.begin(), c.categories.end(), row[a]) == c.categories.end())
          c.categories.push_back(row[a]);
        if (std::find(c.series.begin(), c.series.end(), others) == c.series.end())
          c.series.push_back(others);
        double v = 0;
        by_series[others][row[a]] = parse_number(row[m], v) ? v : 0;
      }
      for (const auto& s : c.series) {
        std::vector<double> col;
        for (const auto& cat : c.categories)
          col.push_back(by_series[s].count(cat) ? by_series[s][cat] : 0);
        c.values.push_back(std::move(col));
      }
      if (c.series.size() == 1 && c.series[0].empty()) c.series[0] = header[m];
      page.bars(c);
    }
  }
  page.heading("Points");
  page.table(header, rows);
  page.write(dir + "/report.html");
}

}  // namespace pccx::report
