#include "platform/workload/sweep_table.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>

#include "infra/config/config_error.h"
#include "platform/workload/decode_table.h"
#include "platform/workload/table_format.h"

namespace pccx::workload {

namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

constexpr int kFormat = 1;  // "pccx_vp_sweep" of the header: the file format's version

std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

// ---- columns ------------------------------------------------------------------

// A figure column: CSV name, Markdown heading, decimals in each, and how
// the figure comes out of an ok point's result.
struct column {
  const char* csv;
  const char* md;
  int md_decimals, csv_decimals;
};

using figures = std::vector<std::optional<double>>;

const std::vector<column>& decode_columns() {
  static const std::vector<column> c = {{"latency_ms", "ms/token", 3, 6},
                                        {"tokens_per_s", "tokens/s", 2, 4},
                                        {"bound_ms", "Bound ms", 3, 6},
                                        {"latency_over_bound", "Latency / bound", 3, 6},
                                        {"gemv_mac_util_pct", "GEMV MAC util %", 2, 4},
                                        {"weights_mb_per_token", "Weights MB/token", 3, 6},
                                        {"kv_read_mb_per_token", "KV read MB/token", 3, 6},
                                        {"kv_write_mb_per_token", "KV write MB/token", 3, 6},
                                        {"activations_mb_per_token", "Activations MB/token", 3, 6},
                                        {"achieved_gbps", "GB/s", 2, 4}};
  return c;
}

figures decode_figures(const nlohmann::json& result) {
  decode_row r;
  read_decode_figures(result, r);
  figures f = {r.latency_ms, r.tokens_per_s, r.bound_ms, r.latency_over_bound, r.gemv_util_pct};
  for (const auto& cls : table_classes()) f.push_back(r.mb(cls));
  f.push_back(r.achieved_gbps);
  return f;
}

const std::vector<column>& replay_columns() {
  static const std::vector<column> c = {
      {"words", "Words", 0, 0},           {"instructions_retired", "Retired", 0, 0},
      {"stream_us", "Stream us", 3, 3},   {"sim_time_us", "Simulated us", 3, 3},
      {"npu_errors", "NPU errors", 0, 0}, {"dma_errors", "DMA errors", 0, 0}};
  return c;
}

figures replay_figures(const nlohmann::json& r) {
  return {r.at("words").get<double>(),
          r.at("instructions_retired").get<double>(),
          r.at("stream_ns").get<double>() / 1e3,
          r.at("sim_time_ns").get<double>() / 1e3,
          static_cast<double>(r.at("npu_errors").size()),
          static_cast<double>(r.at("dma_errors").size())};
}

const std::vector<column>& run_columns() {
  static const std::vector<column> c = {
      {"sim_time_us", "Simulated us", 3, 3}, {"instructions_retired", "Retired", 0, 0},
      {"cycles", "NPU cycles", 0, 0},        {"macs", "MACs", 0, 0},
      {"ddr_read_mb", "DDR read MB", 3, 6},  {"ddr_write_mb", "DDR write MB", 3, 6},
      {"ddr_gbps", "NPU DDR GB/s", 2, 4}};
  return c;
}

figures run_figures(const nlohmann::json& r) {
  const auto& c = r.at("npu_counters");
  const double t = r.at("sim_time_ns").get<double>();
  const double rd = c.at("ddr_read_bytes").get<double>(),
               wr = c.at("ddr_write_bytes").get<double>();
  return {t / 1e3,
          r.at("instructions_retired").get<double>(),
          c.at("cycles").get<double>(),
          c.at("macs").get<double>(),
          rd / 1e6,
          wr / 1e6,
          t > 0 ? (rd + wr) / t : 0.0};
}

struct kind_columns {
  const std::vector<column>* cols;
  std::function<figures(const nlohmann::json&)> read;
};

kind_columns columns_of(const std::string& kind) {
  if (kind == "decode") return {&decode_columns(), decode_figures};
  if (kind == "replay") return {&replay_columns(), replay_figures};
  return {&run_columns(), run_figures};
}

// One table row: the axes' text, the status, the figures (empty unless the
// point is ok and its result has them) and the note.
struct table_row {
  std::vector<std::string> axes;
  std::string status, note;
  figures values;
};

std::vector<table_row> rows_of(const sweep_results& r) {
  const ojson& axes = r.definition.at("axes");
  const kind_columns kc = columns_of(r.definition.at("kind").get<std::string>());
  std::vector<table_row> rows;
  std::size_t next = 0;
  auto axis_text = [&](std::size_t k) {
    std::vector<std::string> out(axes.size());
    for (std::size_t i = axes.size(); i-- > 0;) {
      const std::size_t n = axes[i].at("values").size();
      out[i] = value_text(nlohmann::json::parse(axes[i].at("values")[k % n].dump()));
      k /= n;
    }
    return out;
  };
  for (std::size_t k = 0; k < r.total; ++k) {
    table_row row;
    row.axes = axis_text(k);
    if (next < r.points.size() && r.points[next].at("point").get<std::size_t>() == k) {
      const ojson& p = r.points[next++];
      row.status = p.at("status").get<std::string>();
      const std::string error = p.value("error", std::string());
      if (row.status == "ok") {
        try {
          row.values = kc.read(nlohmann::json::parse(p.at("result").dump()));
        } catch (const std::exception& e) {
          row.status = "failed";
          row.note = std::string("the result lacks a figure: ") + e.what();
        }
      } else if (row.status == "does_not_fit") {
        row.note = short_plan_error(error);
      } else {
        row.note = row.status + ": " + first_line(error);
      }
    } else {
      row.status = "missing";
      row.note = "not in the points files read";
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string figure_text(const std::optional<double>& v, int decimals) {
  if (!v) return "";
  return decimals == 0 ? count_text(*v) : fixed(*v, decimals);
}

// ---- reading ----------------------------------------------------------------------

std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs,
                                       std::vector<std::string>& problems) {
  std::vector<std::string> files;
  for (const auto& in : inputs) {
    std::error_code ec;
    if (!fs::is_directory(in, ec)) {
      files.push_back(in);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& e : fs::directory_iterator(in, ec)) {
      const std::string name = e.path().filename().string();
      const bool shard = name.rfind("points-", 0) == 0 && name.find("-of-") != std::string::npos;
      if (name == "points.jsonl" ||
          (shard && name.size() > 6 && name.compare(name.size() - 6, 6, ".jsonl") == 0))
        found.push_back(e.path().string());
    }
    std::sort(found.begin(), found.end());
    if (found.empty())
      problems.push_back(in + ": no points.jsonl or points-<I>-of-<N>.jsonl in this folder");
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

// Which parts of two definitions differ, for the message about mixed sweeps.
std::string difference(const ojson& a, const ojson& b) {
  std::string out;
  for (const auto& [key, value] : a.items())
    if (!b.contains(key) || b.at(key) != value) out += (out.empty() ? "" : ", ") + key;
  return out.empty() ? "definition" : out;
}

}  // namespace

// ---- records ----------------------------------------------------------------------

ojson header_record(const sweep_definition& d, std::size_t shard, std::size_t shards) {
  ojson h;
  h["pccx_vp_sweep"] = kFormat;
  h["hash"] = d.hash();
  h["shard"] = {{"index", shard}, {"count", shards}};
  h["definition"] = d.to_json();
  return h;
}

ojson point_record(const sweep_definition& d, const sweep_point_result& p) {
  ojson j;
  j["point"] = p.index;
  ojson axes = ojson::object();
  const auto c = d.coordinates(p.index);
  for (std::size_t i = 0; i < d.axes.size(); ++i)
    axes[d.axes[i].key] = ojson::parse(d.axes[i].values[c[i]].dump());
  j["axes"] = std::move(axes);
  j["status"] = p.status;
  j["exit_code"] = p.exit_code;
  if (p.status != "ok") j["error"] = p.error;
  if (!p.config_file.empty()) j["config"] = p.config_file;
  if (!p.result_file.empty()) j["result_file"] = p.result_file;
  j["result"] = ojson::parse(p.result.dump());
  return j;
}

namespace {

void strip_wall_clock(nlohmann::json& j) {
  if (j.is_object()) {
    j.erase("wall_time_s");
    j.erase("speed");
    for (auto& [k, v] : j.items()) strip_wall_clock(v);
  } else if (j.is_array()) {
    for (auto& v : j) strip_wall_clock(v);
  }
}

}  // namespace

void keep_deterministic(sweep_kind kind, nlohmann::json& j) {
  strip_wall_clock(j);
  if (kind == sweep_kind::run && j.is_object()) j.erase("config");
}

void classify_point(sweep_kind kind, const std::string& abnormal, int exit_code,
                    const std::string& log_tail, sweep_point_result& p) {
  p.exit_code = exit_code;
  auto set = [&](const std::string& status, const std::string& error) {
    p.status = status;
    p.error = status == "ok" ? "" : first_line(error);
  };
  if (!abnormal.empty()) return set("failed", abnormal);
  const nlohmann::json& doc = p.result;
  const std::string fallback = "exit code " + std::to_string(exit_code) + ": " + log_tail;
  if (kind == sweep_kind::run) {
    if (exit_code == 0 && doc.is_object()) return set("ok", "");
    if (exit_code == 2) return set("bad_input", log_tail);
    if (exit_code == 1 && doc.is_object()) {
      const std::string message = doc.value("message", std::string());
      if (doc.value("outcome", std::string()) == "failed") return set("failed", message);
      return set("failed", "firmware exit code " + std::to_string(doc.value("exit_code", -1)) +
                               ": " + message);
    }
    return set("failed", fallback);
  }
  const std::string status = doc.is_object() ? doc.value("status", std::string()) : "";
  const std::string error = doc.is_object() ? doc.value("error", std::string()) : "";
  if (exit_code == 0 && status == "ok") return set("ok", "");
  const bool consistent = (exit_code == 2 && (status == "bad_input" || status == "does_not_fit")) ||
                          (exit_code == 1 && status == "failed");
  if (consistent && (status != "does_not_fit" || kind == sweep_kind::decode))
    return set(status, error);
  return set("failed", error.empty() ? fallback : error);
}

sweep_results read_results(const std::vector<std::string>& inputs) {
  std::vector<std::string> problems;
  const std::vector<std::string> files = expand_inputs(inputs, problems);
  if (!problems.empty()) throw config::config_error(problems);

  sweep_results r;
  std::string first_file;
  std::map<std::size_t, std::pair<std::string, ojson>> points;  // point -> (file:line, record)
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      problems.push_back(file + ": cannot open file");
      continue;
    }
    std::string line;
    std::size_t n = 0, shard = 0, shards = 1;
    bool header = false;
    while (std::getline(in, line)) {
      ++n;
      const std::string where = file + ":" + std::to_string(n);
      if (line.empty()) continue;
      const ojson j = ojson::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object()) {
        problems.push_back(where + ": not a JSON object");
        continue;
      }
      if (!header) {
        if (!j.contains("pccx_vp_sweep") || j.at("pccx_vp_sweep") != kFormat ||
            !j.contains("definition") || !j.contains("hash") || !j.contains("shard")) {
          problems.push_back(where + ": expected the header of a pccx-vp sweep points file");
          break;
        }
        header = true;
        const ojson& def = j.at("definition");
        const std::string hash = j.at("hash").get<std::string>();
        if (definition_hash(def) != hash) {
          problems.push_back(where + ": the definition does not match its hash " + hash +
                             " (the file was edited)");
          break;
        }
        shard = j.at("shard").at("index").get<std::size_t>();
        shards = j.at("shard").at("count").get<std::size_t>();
        if (first_file.empty()) {
          first_file = file;
          r.definition = def;
          r.hash = hash;
          r.total = def.at("points").get<std::size_t>();
        } else if (hash != r.hash) {
          problems.push_back(file + ": from another sweep than " + first_file + " (hash " + hash +
                             ", not " + r.hash + "; the " + difference(def, r.definition) +
                             " differ)");
          break;
        }
        continue;
      }
      if (!j.contains("point") || !j.at("point").is_number_unsigned() || !j.contains("status") ||
          !j.contains("axes")) {
        problems.push_back(where + ": expected a point record (point, axes, status, result)");
        continue;
      }
      const std::size_t k = j.at("point").get<std::size_t>();
      if (k >= r.total || k % shards != shard) {
        problems.push_back(where + ": point " + std::to_string(k) + " is not a point of shard " +
                           std::to_string(shard) + "/" + std::to_string(shards) + " of " +
                           std::to_string(r.total));
        continue;
      }
      const auto it = points.find(k);
      if (it != points.end()) {
        problems.push_back(where + ": point " + std::to_string(k) + " is also in " +
                           it->second.first);
        continue;
      }
      points.emplace(k, std::make_pair(where, j));
    }
    if (!header && n == 0) problems.push_back(file + ": empty (no header line)");
  }
  if (!problems.empty()) throw config::config_error(problems);
  for (auto& [k, p] : points) r.points.push_back(std::move(p.second));
  for (std::size_t k = 0, i = 0; k < r.total; ++k) {
    if (i < r.points.size() && r.points[i].at("point").get<std::size_t>() == k)
      ++i;
    else
      r.missing.push_back(k);
  }
  return r;
}

// ---- tables ---------------------------------------------------------------------

std::string results_csv(const sweep_results& r) {
  const ojson& axes = r.definition.at("axes");
  const auto& cols = *columns_of(r.definition.at("kind").get<std::string>()).cols;
  std::ostringstream o;
  o << "point";
  for (const auto& a : axes) o << ',' << csv_cell(a.at("key").get<std::string>());
  o << ",status";
  for (const auto& c : cols) o << ',' << c.csv;
  o << ",note\n";
  const auto rows = rows_of(r);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const table_row& row = rows[k];
    o << k;
    for (const auto& a : row.axes) o << ',' << csv_cell(a);
    o << ',' << row.status;
    for (std::size_t i = 0; i < cols.size(); ++i)
      o << ',' << (row.values.empty() ? "" : figure_text(row.values[i], cols[i].csv_decimals));
    o << ',' << csv_cell(row.note) << '\n';
  }
  return o.str();
}

std::string results_markdown(const sweep_results& r) {
  const ojson& d = r.definition;
  const ojson& axes = d.at("axes");
  const std::string kind = d.at("kind").get<std::string>();
  const auto& cols = *columns_of(kind).cols;
  std::ostringstream o;
  o << "# Sweep " << r.hash << "\n\n";
  std::string command;
  for (const auto& w : d.at("command"))
    command += (command.empty() ? "" : " ") + w.get<std::string>();
  o << "- command: `pccx-vp " << md_cell(command) << "` (" << kind << ")\n";
  o << "- platform: built-in defaults";
  for (const auto& f : d.at("config").at("files"))
    o << ", --config `" << f.get<std::string>() << "`";
  for (const auto& s : d.at("config").at("sets"))
    o << ", --set `" << md_cell(s.get<std::string>()) << "`";
  o << ", the point's axes";
  if (d.at("timing_mode").get<bool>()) o << ", simulation.mode=timing";
  o << "\n- axes (first varies slowest): ";
  for (std::size_t i = 0; i < axes.size(); ++i) {
    o << (i ? "; " : "") << "`" << axes[i].at("key").get<std::string>() << "` = ";
    std::string values;
    for (const auto& v : axes[i].at("values"))
      values += (values.empty() ? "" : ", ") + value_text(nlohmann::json::parse(v.dump()));
    o << md_cell(values);
  }
  o << "\n- points: " << r.total << ", " << r.points.size() << " present";
  if (!r.missing.empty()) {
    o << ", missing:";
    for (std::size_t k : r.missing) o << ' ' << k;
  }
  o << "\n\n| Point |";
  for (const auto& a : axes) o << ' ' << md_cell(a.at("key").get<std::string>()) << " |";
  o << " Status |";
  for (const auto& c : cols) o << ' ' << c.md << " |";
  o << " Note |\n|--:|";
  for (std::size_t i = 0; i < axes.size(); ++i) o << "---|";
  o << "---|";
  for (std::size_t i = 0; i < cols.size(); ++i) o << "--:|";
  o << "---|\n";
  const auto rows = rows_of(r);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const table_row& row = rows[k];
    o << "| " << k << " |";
    for (const auto& a : row.axes) o << ' ' << md_cell(a) << " |";
    o << ' ' << row.status << " |";
    for (std::size_t i = 0; i < cols.size(); ++i)
      o << ' ' << (row.values.empty() ? "-" : figure_text(row.values[i], cols[i].md_decimals))
        << " |";
    o << ' ' << md_cell(row.note) << " |\n";
  }
  return o.str();
}

}  // namespace pccx::workload
