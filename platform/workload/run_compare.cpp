#include "platform/workload/run_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "infra/config/config_error.h"
#include "platform/workload/sweep_plan.h"
#include "platform/workload/sweep_table.h"
#include "platform/workload/table_format.h"

namespace pccx::workload {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const char* kSummary = "summary.json";
const char* kDecode = "decode.json";
const char* kTable = "decode_table.json";

bool is_points_file(const std::string& name) {
  if (name == "points.jsonl") return true;
  return name.rfind("points-", 0) == 0 && name.find("-of-") != std::string::npos &&
         name.size() > 6 && name.compare(name.size() - 6, 6, ".jsonl") == 0;
}

std::string in_dir(const std::string& dir, const std::string& name) {
  return (fs::path(dir) / name).string();
}

json read_json(const std::string& dir, const std::string& name) {
  const std::string file = in_dir(dir, name);
  std::ifstream in(file, std::ios::binary);
  if (!in) throw compare_error(file + ": cannot open file");
  std::ostringstream text;
  text << in.rdbuf();
  json j = json::parse(text.str(), nullptr, false);
  if (j.is_discarded()) throw compare_error(file + ": not valid JSON");
  if (!j.is_object()) throw compare_error(file + ": expected a JSON object");
  return j;
}

// A part or a class name as one word of a metric name: letters, digits,
// '_', '-' and '.'; anything else becomes '_'.
std::string word(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-' || c == '.';
    out += keep ? c : '_';
  }
  return out.empty() ? "_" : out;
}

const json* find(const json& j, std::initializer_list<const char*> path) {
  const json* at = &j;
  for (const char* key : path) {
    if (!at->is_object()) return nullptr;
    const auto it = at->find(key);
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

struct sink {
  std::vector<metric>& out;
  std::string prefix, section;
  void add(const std::string& name, const json* v) const {
    if (v && v->is_number()) out.push_back({section, prefix + name, v->get<double>()});
  }
  void add(const std::string& name, double v) const { out.push_back({section, prefix + name, v}); }
};

// Every number of an object's members, each under `name.<key>.<field>` for
// the fields given (read_bytes, ...), or `name.<key>` for a number member.
void per_key(const sink& s, const std::string& name, const json* obj,
             const std::vector<std::string>& fields) {
  if (!obj || !obj->is_object()) return;
  for (const auto& [key, v] : obj->items()) {
    if (fields.empty()) {
      s.add(name + "." + word(key), &v);
      continue;
    }
    for (const auto& f : fields)
      if (v.is_object() && v.contains(f)) s.add(name + "." + word(key) + "." + f, &v.at(f));
  }
}

std::string per_token(std::size_t t, const std::string& what) {
  return "token" + std::to_string(t) + "." + what;
}

// Numbers at any depth of a document we know nothing about (a replay's):
// each named by its path, array elements by their index.
void flatten(const json& j, const std::string& name, const sink& s) {
  if (j.is_number()) {
    s.add(name, &j);
  } else if (j.is_object()) {
    for (const auto& [key, v] : j.items()) flatten(v, name.empty() ? word(key) : name + "." + word(key), s);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i)
      flatten(j[i], name.empty() ? std::to_string(i) : name + "." + std::to_string(i), s);
  }
}

std::string text_of(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

void add_text(folder_metrics& f, const std::string& name, const json* v) {
  if (v && !v->is_null()) f.texts.push_back({name, text_of(*v)});
}

// ---- the three kinds of folder -------------------------------------------------

void read_run(folder_metrics& f) {
  const json summary = read_json(f.dir, kSummary);
  f.files.push_back(kSummary);
  summary_metrics(summary, "", "", f.metrics);
  add_text(f, "outcome", find(summary, {"outcome"}));
  add_text(f, "message", find(summary, {"message"}));
  add_text(f, "firmware", find(summary, {"firmware", "name"}));
  if (const json* cfg = find(summary, {"config"}); cfg && cfg->is_object()) f.config = *cfg;
  else f.notes.push_back(in_dir(f.dir, kSummary) + " records no configuration");
  std::error_code ec;
  if (fs::exists(in_dir(f.dir, kDecode), ec)) {
    const json doc = read_json(f.dir, kDecode);
    f.files.push_back(kDecode);
    decode_metrics(doc, "", "", f.metrics);
    add_text(f, "decode.status", find(doc, {"status"}));
    add_text(f, "decode.error", find(doc, {"error"}));
  }
}

void read_table(folder_metrics& f) {
  const json doc = read_json(f.dir, kTable);
  f.files.push_back(kTable);
  const std::string file = in_dir(f.dir, kTable);
  const json* rows = find(doc, {"rows"});
  if (!rows || !rows->is_array()) throw compare_error(file + ": /rows: expected the table's rows");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < rows->size(); ++i) {
    const json& row = (*rows)[i];
    const json* model = find(row, {"model"});
    const json* strategy = find(row, {"strategy"});
    const json* context = find(row, {"context"});
    if (!model || !model->is_string() || !strategy || !strategy->is_string() || !context ||
        !context->is_number_unsigned())
      throw compare_error(file + ": /rows/" + std::to_string(i) +
                          ": expected a cell with model, strategy and context");
    // The cell id of the table (decode_cell::id).
    const std::string id = model->get<std::string>() + "-" + strategy->get<std::string>() + "-" +
                           std::to_string(context->get<uint64_t>());
    if (!seen.insert(id).second)
      throw compare_error(file + ": /rows/" + std::to_string(i) + ": cell " + id + " twice");
    f.entities.push_back(id);
    table_row_metrics(row, id + "/", id, f.metrics);
    add_text(f, id + "/status", find(row, {"status"}));
    if (const json* note = find(row, {"note"}); note && note->is_string() && !note->get<std::string>().empty())
      add_text(f, id + "/note", note);
  }
  f.config = doc;
  f.config.erase("rows");
}

void read_sweep(folder_metrics& f) {
  sweep_results r;
  try {
    r = read_results({f.dir});
  } catch (const config::config_error& e) {
    throw compare_error(f.dir + ": cannot read the sweep's points:\n" + std::string(e.what()));
  }
  for (const auto& e : fs::directory_iterator(f.dir)) {
    const std::string name = e.path().filename().string();
    if (is_points_file(name)) f.files.push_back(name);
  }
  std::sort(f.files.begin(), f.files.end());
  f.config = json::parse(r.definition.dump());
  const std::string kind = r.definition.value("kind", std::string());
  for (const auto& record : r.points) {
    const json p = json::parse(record.dump());
    std::string label;
    for (const auto& [key, v] : p.at("axes").items())
      label += (label.empty() ? "" : ",") + key + "=" + value_text(v);
    if (label.empty()) label = "point " + std::to_string(p.value("point", 0));
    f.entities.push_back(label);
    const json result = p.contains("result") ? p.at("result") : json();
    if (result.is_object()) {
      if (kind == "decode") {
        decode_metrics(result, label + "/", label + ", ", f.metrics);
        if (const json* run = find(result, {"run"}); run && run->is_object())
          summary_metrics(*run, label + "/", label + ", ", f.metrics);
      } else if (kind == "run") {
        summary_metrics(result, label + "/", label + ", ", f.metrics);
      } else {
        flatten(result, "", sink{f.metrics, label + "/", label});
      }
    }
    add_text(f, label + "/status", p.contains("status") ? &p.at("status") : nullptr);
    add_text(f, label + "/error", find(p, {"error"}));
  }
  if (!r.missing.empty()) {
    std::string list;
    for (std::size_t k : r.missing) list += (list.empty() ? "" : ", ") + std::to_string(k);
    f.notes.push_back(f.dir + ": " + std::to_string(r.missing.size()) + " of " +
                      std::to_string(r.total) + " points missing (" + list + ")");
  }
}

std::string escape_pointer(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

bool ignored(const std::string& ptr, const std::vector<std::string>& ignore) {
  for (const auto& i : ignore)
    if (ptr == i || (ptr.size() > i.size() && ptr.compare(0, i.size(), i) == 0 && ptr[i.size()] == '/'))
      return true;
  return false;
}

void differences(const json& a, const json& b, const std::string& ptr,
                 const std::vector<std::string>& ignore, std::vector<config_diff>& out) {
  if (ignored(ptr, ignore)) return;
  if (a.is_object() && b.is_object()) {
    std::set<std::string> keys;
    for (const auto& [k, v] : a.items()) keys.insert(k);
    for (const auto& [k, v] : b.items()) keys.insert(k);
    for (const auto& k : keys) {
      const std::string p = ptr + "/" + escape_pointer(k);
      const bool in_a = a.contains(k), in_b = b.contains(k);
      if (in_a && in_b) {
        differences(a.at(k), b.at(k), p, ignore, out);
      } else if (!ignored(p, ignore)) {
        config_diff d{p, std::nullopt, std::nullopt};
        if (in_a) d.a = a.at(k);
        if (in_b) d.b = b.at(k);
        out.push_back(std::move(d));
      }
    }
    return;
  }
  if (a.is_array() && b.is_array()) {
    const std::size_t n = std::max(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i) {
      const std::string p = ptr + "/" + std::to_string(i);
      if (i < a.size() && i < b.size()) {
        differences(a[i], b[i], p, ignore, out);
      } else if (!ignored(p, ignore)) {
        config_diff d{p, std::nullopt, std::nullopt};
        if (i < a.size()) d.a = a[i];
        if (i < b.size()) d.b = b[i];
        out.push_back(std::move(d));
      }
    }
    return;
  }
  if (a != b) out.push_back({ptr.empty() ? "/" : ptr, a, b});
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// '*' matches any run of characters, everything else itself.
bool glob_match(const std::string& pattern, const std::string& text) {
  std::size_t p = 0, t = 0, star = std::string::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::string quoted(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i ? (i + 1 == names.size() ? " or " : ", ") : "") + ("\"" + names[i] + "\"");
  return out;
}

std::string what_is_in(output_kind k) {
  switch (k) {
    case output_kind::run: return "a run's output folder (summary.json)";
    case output_kind::decode_table: return "a decode table's folder (decode_table.json)";
    case output_kind::sweep: return "a sweep's folder (points.jsonl)";
  }
  return "";
}

std::string json_cell(const std::optional<json>& v) {
  if (!v) return "(absent)";
  std::string text = v->dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 200) text = text.substr(0, 197) + "...";
  return text;
}

}  // namespace

const char* output_kind_name(output_kind k) {
  switch (k) {
    case output_kind::run: return "run";
    case output_kind::decode_table: return "decode table";
    case output_kind::sweep: return "sweep";
  }
  return "run";
}

output_kind detect_kind(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) throw compare_error(dir + ": no such folder");
  const std::string expected =
      "expected the output folder of a run (summary.json, from --out), a decode table "
      "(decode_table.json, from decode-table --out) or a sweep (points.jsonl, from sweep --out)";
  if (!fs::is_directory(dir, ec)) throw compare_error(dir + ": not a folder; " + expected);
  std::vector<std::pair<output_kind, std::string>> found;
  if (fs::exists(in_dir(dir, kTable), ec)) found.push_back({output_kind::decode_table, kTable});
  std::string points;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (is_points_file(name) && (points.empty() || name < points)) points = name;
  }
  if (!points.empty()) found.push_back({output_kind::sweep, points});
  if (fs::exists(in_dir(dir, kSummary), ec)) found.push_back({output_kind::run, kSummary});
  if (found.empty()) throw compare_error(dir + ": nothing to compare in this folder; " + expected);
  if (found.size() > 1) {
    std::string what;
    for (const auto& [k, file] : found)
      what += (what.empty() ? "" : " and ") + std::string(output_kind_name(k)) + " (" + file + ")";
    throw compare_error(dir + ": holds the outputs of more than one kind: " + what +
                        "; compare needs a folder of one kind");
  }
  return found.front().first;
}

folder_metrics read_folder(const std::string& dir) {
  folder_metrics f;
  f.dir = dir;
  f.kind = detect_kind(dir);
  switch (f.kind) {
    case output_kind::run: read_run(f); break;
    case output_kind::decode_table: read_table(f); break;
    case output_kind::sweep: read_sweep(f); break;
  }
  return f;
}

void summary_metrics(const json& summary, const std::string& prefix, const std::string& section,
                     std::vector<metric>& out) {
  const sink top{out, prefix, section + "Summary"};
  top.add("sim_time_ns", find(summary, {"sim_time_ns"}));
  top.add("instructions_retired", find(summary, {"instructions_retired"}));
  top.add("exit_code", find(summary, {"exit_code"}));
  const json* counters = find(summary, {"npu_counters"});
  if (!counters) counters = find(summary, {"counters"});  // a decode document's run
  per_key(sink{out, prefix, section + "NPU counters"}, "npu", counters, {});
  const json* bw = find(summary, {"memory", "ddr", "bandwidth"});
  if (!bw) return;
  per_key(sink{out, prefix, section + "DDR per class"}, "ddr.class", find(*bw, {"classes"}),
          {"read_bytes", "write_bytes"});
  per_key(sink{out, prefix, section + "DDR per port"}, "ddr.port", find(*bw, {"ports"}),
          {"read_bytes", "write_bytes"});
  const sink total{out, prefix, section + "DDR total"};
  for (const char* f : {"read_bytes", "write_bytes", "transactions", "avg_gbps", "avg_latency_ns"})
    total.add(std::string("ddr.total.") + f, find(*bw, {"total", f}));
  per_key(total, "ddr.dram.energy", find(summary, {"memory", "ddr", "dram", "energy"}), {});
}

void decode_metrics(const json& doc, const std::string& prefix, const std::string& section,
                    std::vector<metric>& out) {
  const sink s{out, prefix, section + "Decode"};
  const json* lat = find(doc, {"latency_ns"});
  if (lat && lat->is_array() && !lat->empty()) {
    double sum = 0;
    std::size_t n = 0;
    for (const auto& v : *lat)
      if (v.is_number()) sum += v.get<double>(), ++n;
    if (n) s.add("decode.mean_latency_ns", sum / double(n));
  }
  const std::size_t tokens = lat && lat->is_array() ? lat->size() : 0;
  const json* bound = find(doc, {"bound"});
  const json* instr = find(doc, {"instructions"});
  const json* cpu_instr = find(doc, {"cpu", "instructions_per_token"});
  const json* cpu_busy = find(doc, {"cpu", "busy_ns_per_token"});
  const json* cos = find(doc, {"reference_cosine"});
  const json* cos_exact = find(doc, {"reference_cosine_exact"});
  const auto at = [](const json* arr, std::size_t t) -> const json* {
    return arr && arr->is_array() && t < arr->size() ? &(*arr)[t] : nullptr;
  };
  for (std::size_t t = 0; t < tokens; ++t) {
    s.add("decode." + per_token(t, "latency_ns"), at(lat, t));
    if (const json* b = at(bound, t); b && b->contains("bound_seconds") && b->at("bound_seconds").is_number())
      s.add("decode." + per_token(t, "bound_ns"), b->at("bound_seconds").get<double>() * 1e9);
    s.add("decode." + per_token(t, "instructions"), at(instr, t));
    s.add("decode." + per_token(t, "cpu_instructions"), at(cpu_instr, t));
    s.add("decode." + per_token(t, "cpu_busy_ns"), at(cpu_busy, t));
    s.add("decode." + per_token(t, "reference_cosine"), at(cos, t));
    s.add("decode." + per_token(t, "reference_cosine_exact"), at(cos_exact, t));
  }
  for (const char* f : {"bound_ratio", "achieved_gbps", "gemv_utilisation", "npu_utilisation",
                        "cycles", "macs", "gemv_macs", "dram_pj_per_bit"})
    s.add(std::string("decode.") + f, find(doc, {f}));
  const sink ddr{out, prefix, section + "Decode DDR per token"};
  per_key(ddr, "decode.ddr_bytes_per_token", find(doc, {"ddr_bytes_per_token"}), {});
  per_key(ddr, "decode.dram_mj_per_token", find(doc, {"dram_mj_per_token"}), {});
  per_key(sink{out, prefix, section + "Decode engines (clocks)"}, "decode.engine",
          find(doc, {"engines"}), {"busy", "stall", "idle"});
  const json* parts = find(doc, {"parts"});
  if (parts && parts->is_array()) {
    const sink ps{out, prefix, section + "Decode parts (mean per token)"};
    std::map<std::string, int> seen;
    for (const auto& p : *parts) {
      if (!p.is_object() || !p.contains("name") || !p.at("name").is_string()) continue;
      std::string name = word(p.at("name").get<std::string>());
      if (const int n = seen[name]++; n) name += "#" + std::to_string(n + 1);
      ps.add("decode.part." + name + ".ns", find(p, {"ns"}));
      ps.add("decode.part." + name + ".instructions", find(p, {"instructions"}));
    }
  }
}

void table_row_metrics(const json& row, const std::string& prefix, const std::string& section,
                       std::vector<metric>& out) {
  const sink s{out, prefix, section};
  for (const char* f : {"latency_ms", "tokens_per_s", "bound_ms", "latency_over_bound",
                        "gemv_mac_util_pct", "npu_mac_util_pct", "achieved_gbps",
                        "instructions_per_token", "dram_pj_per_bit"})
    s.add(f, find(row, {f}));
  per_key(s, "ddr_mb_per_token", find(row, {"ddr_mb_per_token"}), {});
  per_key(s, "dram_mj_per_token", find(row, {"dram_mj_per_token"}), {});
  static const std::pair<const char*, const char*> per_token_arrays[] = {
      {"latency_ms_per_token", "latency_ms"}, {"bound_ms_per_token", "bound_ms"}};
  for (const auto& [array, what] : per_token_arrays) {
    const json* a = find(row, {array});
    if (!a || !a->is_array()) continue;
    for (std::size_t t = 0; t < a->size(); ++t) s.add(per_token(t, what), &(*a)[t]);
  }
}

// ---- comparing -----------------------------------------------------------------

bool metric_diff::same() const {
  return a && b && std::fabs(*b - *a) <= 1e-12 * std::max(std::fabs(*a), std::fabs(*b));
}

double metric_diff::delta() const {
  if (same()) return 0;
  return a && b ? *b - *a : std::nan("");
}

double metric_diff::relative_pct() const {
  if (!a || !b) return std::nan("");
  if (same()) return 0;
  if (*a == 0) return *b > 0 ? HUGE_VAL : -HUGE_VAL;
  return 100 * (*b - *a) / std::fabs(*a);
}

bool metric_diff::moved_above(double pct) const {
  if (!both()) return true;
  return std::fabs(relative_pct()) > pct;
}

std::size_t comparison::differing() const {
  std::size_t n = 0;
  for (const auto& m : metrics)
    if (!m.same()) ++n;
  return n;
}

std::vector<config_diff> json_differences(const json& a, const json& b,
                                          const std::vector<std::string>& ignore) {
  std::vector<config_diff> out;
  differences(a, b, "", ignore, out);
  return out;
}

namespace {

void check_same_kind(const std::string& a, output_kind ka, const std::string& b, output_kind kb) {
  if (ka != kb)
    throw compare_error(b + ": expected " + what_is_in(ka) + " as " + a + " is, found " +
                        what_is_in(kb) + "; compare needs two folders of the same kind");
}

}  // namespace

comparison compare_folders(const std::string& a, const std::string& b) {
  check_same_kind(a, detect_kind(a), b, detect_kind(b));
  return compare(read_folder(a), read_folder(b));
}

comparison compare(const folder_metrics& a, const folder_metrics& b) {
  check_same_kind(a.dir, a.kind, b.dir, b.kind);
  comparison c;
  c.kind = a.kind;
  c.dir_a = a.dir;
  c.dir_b = b.dir;
  c.files_a = a.files;
  c.files_b = b.files;

  // Sections in order of first appearance (A's, then the ones only B has);
  // in each, A's metrics then B's others.
  std::vector<std::string> sections;
  std::map<std::string, std::vector<metric_diff>> by_section;
  std::map<std::string, std::size_t> in_b;
  for (std::size_t i = 0; i < b.metrics.size(); ++i) in_b.emplace(b.metrics[i].name, i);
  std::set<std::string> in_a;
  const auto place = [&](const metric& m, std::optional<double> va, std::optional<double> vb) {
    auto [it, fresh] = by_section.try_emplace(m.section);
    if (fresh) sections.push_back(m.section);
    it->second.push_back({m.section, m.name, va, vb});
  };
  for (const auto& m : a.metrics) {
    if (!in_a.insert(m.name).second) continue;  // a name twice: the first counts
    const auto it = in_b.find(m.name);
    place(m, m.value, it == in_b.end() ? std::nullopt : std::optional<double>(b.metrics[it->second].value));
  }
  std::set<std::string> placed_b;
  for (const auto& m : b.metrics)
    if (!in_a.count(m.name) && placed_b.insert(m.name).second) place(m, std::nullopt, m.value);
  for (const auto& s : sections)
    for (auto& d : by_section[s]) c.metrics.push_back(std::move(d));

  // A cell or point on one side only is listed as such, not by its texts.
  const std::set<std::string> ea(a.entities.begin(), a.entities.end()),
      eb(b.entities.begin(), b.entities.end());
  for (const auto& e : a.entities)
    if (!eb.count(e)) c.only_a.push_back(e);
  for (const auto& e : b.entities)
    if (!ea.count(e)) c.only_b.push_back(e);
  const auto of_one_side = [&](const std::string& name) {
    const auto slash = name.rfind('/');  // a label may hold '/', a field name does not
    if (slash == std::string::npos) return false;
    const std::string e = name.substr(0, slash);
    return ea.count(e) != eb.count(e);
  };

  std::map<std::string, std::string> tb;
  for (const auto& t : b.texts) tb.emplace(t.name, t.value);
  std::set<std::string> ta;
  for (const auto& t : a.texts) {
    ta.insert(t.name);
    if (of_one_side(t.name)) continue;
    const auto it = tb.find(t.name);
    if (it == tb.end()) c.texts.push_back({t.name, t.value, std::nullopt});
    else if (it->second != t.value) c.texts.push_back({t.name, t.value, it->second});
  }
  for (const auto& t : b.texts)
    if (!ta.count(t.name) && !of_one_side(t.name)) c.texts.push_back({t.name, std::nullopt, t.value});

  // A run's output folder is where its outputs went: different by design.
  const std::vector<std::string> ignore =
      a.kind == output_kind::run ? std::vector<std::string>{"/output/dir"} : std::vector<std::string>{};
  c.config = json_differences(a.config, b.config, ignore);
  for (const auto& n : a.notes) c.notes.push_back("A: " + n);
  for (const auto& n : b.notes) c.notes.push_back("B: " + n);
  return c;
}

std::vector<std::string> close_names(const std::string& name, const std::vector<std::string>& names) {
  std::vector<std::pair<std::size_t, std::string>> ranked;
  const std::size_t limit = std::max<std::size_t>(2, name.size() / 3);
  for (const auto& n : names) {
    const std::size_t d = edit_distance(name, n);
    if (d <= limit) ranked.push_back({d, n});
    else if (!name.empty() && n.find(name) != std::string::npos) ranked.push_back({limit + 1 + n.size(), n});
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> out;
  for (const auto& [d, n] : ranked) {
    if (out.size() == 3) break;
    out.push_back(n);
  }
  return out;
}

std::vector<std::size_t> select_metrics(const comparison& c, const std::vector<std::string>& names) {
  std::vector<std::size_t> chosen;
  if (names.empty()) {
    for (std::size_t i = 0; i < c.metrics.size(); ++i) chosen.push_back(i);
    return chosen;
  }
  std::vector<std::string> all;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < c.metrics.size(); ++i) {
    all.push_back(c.metrics[i].name);
    index.emplace(c.metrics[i].name, i);
  }
  std::set<std::size_t> picked;
  for (const auto& name : names) {
    if (name.find('*') != std::string::npos) {
      std::size_t n = 0;
      for (std::size_t i = 0; i < all.size(); ++i)
        if (glob_match(name, all[i])) picked.insert(i), ++n;
      if (!n)
        throw compare_error("--metric " + name + ": the pattern matches no metric of " + c.dir_a +
                            " or " + c.dir_b + " (the names in the first column of the report)");
      continue;
    }
    const auto it = index.find(name);
    if (it != index.end()) {
      picked.insert(it->second);
      continue;
    }
    const auto near = close_names(name, all);
    throw compare_error("--metric " + name + ": no such metric in " + c.dir_a + " or " + c.dir_b +
                        (near.empty() ? std::string(" (the names in the first column of the report; "
                                                    "'*' matches any run of characters)")
                                      : "; did you mean " + quoted(near) + "?"));
  }
  chosen.assign(picked.begin(), picked.end());
  return chosen;
}

std::vector<std::size_t> moved_above(const comparison& c, const std::vector<std::size_t>& chosen,
                                     double pct) {
  std::vector<std::size_t> out;
  for (std::size_t i : chosen)
    if (c.metrics.at(i).moved_above(pct)) out.push_back(i);
  return out;
}

std::vector<std::size_t> largest_changes(const comparison& c, std::size_t n) {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < c.metrics.size(); ++i)
    if (c.metrics[i].both() && c.metrics[i].relative_pct() != 0) idx.push_back(i);
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t x, std::size_t y) {
    return std::fabs(c.metrics[x].relative_pct()) > std::fabs(c.metrics[y].relative_pct());
  });
  if (idx.size() > n) idx.resize(n);
  return idx;
}

// ---- text ----------------------------------------------------------------------

std::string figure_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string delta_text(double v) {
  if (std::isnan(v)) return "n/a";
  if (v == 0) return "0";
  return (v > 0 ? "+" : "-") + figure_text(std::fabs(v));
}

std::string percent_text(double pct) {
  if (std::isnan(pct)) return "n/a";
  if (std::isinf(pct)) return pct > 0 ? "+inf %" : "-inf %";
  if (pct == 0) return "0 %";
  char buf[64];
  if (std::fabs(pct) >= 0.001 && std::fabs(pct) < 1e9)
    std::snprintf(buf, sizeof buf, "%+.3f %%", pct);
  else
    std::snprintf(buf, sizeof buf, "%+.3g %%", pct);
  return buf;
}

std::string comparison_markdown(const comparison& c) {
  std::ostringstream o;
  const auto files = [](const std::vector<std::string>& f) {
    std::string s;
    for (const auto& x : f) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  const auto side = [](const std::optional<double>& v) { return v ? figure_text(*v) : "-"; };
  const auto row = [&](const metric_diff& m) {
    o << "| " << md_cell(m.name) << " | " << side(m.a) << " | " << side(m.b) << " | "
      << delta_text(m.delta()) << " | " << percent_text(m.relative_pct()) << " |\n";
  };
  const char* head = "| Metric | A | B | B - A | Change |\n|---|--:|--:|--:|--:|\n";

  o << "# Comparison of two " << output_kind_name(c.kind) << "s\n\n"
    << "| | Folder | Files |\n|---|---|---|\n"
    << "| A | " << md_cell(c.dir_a) << " | " << md_cell(files(c.files_a)) << " |\n"
    << "| B | " << md_cell(c.dir_b) << " | " << md_cell(files(c.files_b)) << " |\n\n";
  std::size_t one_side = 0;
  for (const auto& m : c.metrics) one_side += m.both() ? 0 : 1;
  o << c.metrics.size() << " metrics, " << c.differing() << " differ";
  if (one_side) o << " (" << one_side << " in one folder only)";
  o << "; " << c.config.size() << " configuration key" << (c.config.size() == 1 ? "" : "s")
    << " differ" << (c.config.size() == 1 ? "s" : "") << ". Change = (B - A) / |A|.\n";

  const auto top = largest_changes(c, 10);
  if (!top.empty()) {
    o << "\n## Largest changes\n\n" << head;
    for (std::size_t i : top) row(c.metrics[i]);
  }
  std::string section;
  bool first = true;
  for (const auto& m : c.metrics) {
    if (first || m.section != section) {
      section = m.section;
      first = false;
      o << "\n## " << md_cell(section) << "\n\n" << head;
    }
    row(m);
  }
  if (c.metrics.empty()) o << "\nNo metrics in either folder.\n";

  const char* things = c.kind == output_kind::sweep ? "Points" : "Cells";
  if (!c.only_a.empty() || !c.only_b.empty()) {
    o << "\n## " << things << " in one folder only\n\n";
    for (const auto& e : c.only_a) o << "- only in A: " << md_cell(e) << "\n";
    for (const auto& e : c.only_b) o << "- only in B: " << md_cell(e) << "\n";
  }
  if (!c.texts.empty()) {
    o << "\n## Other differences\n\n| Field | A | B |\n|---|---|---|\n";
    for (const auto& t : c.texts)
      o << "| " << md_cell(t.name) << " | " << md_cell(t.a ? *t.a : "(absent)") << " | "
        << md_cell(t.b ? *t.b : "(absent)") << " |\n";
  }

  o << "\n## Configuration keys that differ\n\n";
  switch (c.kind) {
    case output_kind::run:
      o << "The effective configurations (summary.json /config; /output/dir, the output folder "
           "itself, is not compared).\n\n";
      break;
    case output_kind::decode_table:
      o << "The tables' recorded sweep, --config and --set (decode_table.json without its "
           "rows).\n\n";
      break;
    case output_kind::sweep:
      o << "The sweeps' definitions (the points files' header).\n\n";
      break;
  }
  if (c.config.empty()) {
    o << "None.\n";
  } else {
    o << "| Key | A | B |\n|---|---|---|\n";
    for (const auto& d : c.config)
      o << "| " << md_cell(d.pointer) << " | " << md_cell(json_cell(d.a)) << " | "
        << md_cell(json_cell(d.b)) << " |\n";
  }
  if (!c.notes.empty()) {
    o << "\n## Notes\n\n";
    for (const auto& n : c.notes) o << "- " << md_cell(n) << "\n";
  }
  return o.str();
}

}  // namespace pccx::workload
