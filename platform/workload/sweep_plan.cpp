#include "platform/workload/sweep_plan.h"

#include <cstdio>
#include <iomanip>
#include <sstream>

#include "infra/config/layered_json.h"
#include "platform/workload/json_input.h"

namespace pccx::workload {

namespace {

struct axis_schema {
  std::string key;
  // "values" holds any JSON and is read by hand; the binder sees an empty
  // list in its place, so it still knows the key (for "did you mean").
  std::vector<std::string> values;
  template <class V>
  void visit(V& v) {
    v.field("key", key, "Configuration key a.b.c");
    v.field("values", values, "Values of the axis, any JSON");
  }
};

struct sweep_file_schema {
  std::string description;
  std::vector<axis_schema> axes;
  template <class V>
  void visit(V& v) {
    v.field("description", description, "What the sweep is for");
    v.field("axes", axes, "Axes, first varying slowest", config::items(1, 16));
  }
};

constexpr std::size_t kMaxValues = 1024;

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// The items of "V1,V2,...": commas inside [], {} or a JSON string do not
// split, so '[2,3],[0,1,2,3]' is two values.
std::vector<std::string> split_values(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  out.push_back(cur);
  return out;
}

// The source of an axis' messages and the pointer (or prefix) of value j.
set_origin value_origin(const sweep_axis& a, std::size_t j) {
  const std::string arg = set_arg(a.key, a.values[j]);
  if (a.pointer.empty()) return {arg, a.source, "", "value " + value_text(a.values[j]) + ": "};
  return {arg, a.source, index_pointer(pointer(a.pointer, "values"), j), ""};
}

uint64_t fnv1a64(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace

std::string value_text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

const char* kind_name(sweep_kind k) {
  switch (k) {
    case sweep_kind::decode: return "decode";
    case sweep_kind::replay: return "replay";
    case sweep_kind::run: return "run";
  }
  return "run";
}

sweep_axis parse_axis_option(const std::string& text) {
  const std::string source = "--sweep " + text;
  auto fail = [&](const std::string& what) { throw config::config_error({source + ": " + what}); };
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    fail("expected KEY=V1,V2,..., e.g. --sweep ddr.data_rate_mtps=2400,3200");
  sweep_axis a;
  a.key = text.substr(0, eq);
  a.source = source;
  const std::string problem = set_key_problem(a.key);
  if (!problem.empty()) fail(problem);
  const auto items = split_values(text.substr(eq + 1));
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string item = trim(items[i]);
    if (item.empty())
      fail("value " + std::to_string(i + 1) +
           " is empty (a stray comma? write '\"\"' for an empty string)");
    const nlohmann::json v = nlohmann::json::parse(item, nullptr, false);
    a.values.push_back(v.is_discarded() ? nlohmann::json(item) : v);
  }
  return a;
}

std::vector<sweep_axis> load_sweep_file(const std::string& path) {
  const nlohmann::json parsed = read_object_file(path);
  config::diagnostics diag([&](const std::string&) { return config::source_ref{path, 1}; });
  nlohmann::json plain = parsed;
  require(plain, "", {"axes"}, path, diag);
  std::vector<sweep_axis> axes;
  if (parsed.contains("axes") && parsed.at("axes").is_array()) {
    for (std::size_t i = 0; i < parsed.at("axes").size(); ++i) {
      const std::string at = index_pointer("/axes", i);
      const nlohmann::json& item = parsed.at("axes")[i];
      require(item, at, {"key", "values"}, path, diag);
      sweep_axis a;
      a.source = path;
      a.pointer = at;
      if (item.is_object() && item.contains("values")) {
        plain["axes"][i]["values"] = nlohmann::json::array();
        const nlohmann::json& values = item.at("values");
        if (!values.is_array() || values.empty() || values.size() > kMaxValues)
          diag.report(path, pointer(at, "values"),
                      "expected an array of 1 to " + std::to_string(kMaxValues) +
                          " values (any JSON), found " + config::detail::json_text(values));
        else
          a.values.assign(values.begin(), values.end());
      }
      axes.push_back(std::move(a));
    }
  }
  sweep_file_schema raw;
  config::decode_struct(plain, raw, "", diag);
  diag.throw_if_any();
  for (std::size_t i = 0; i < raw.axes.size(); ++i) {
    axes[i].key = raw.axes[i].key;
    const std::string problem = set_key_problem(axes[i].key);
    if (!problem.empty()) diag.report(path, pointer(axes[i].pointer, "key"), problem);
  }
  diag.throw_if_any();
  return axes;
}

std::size_t sweep_definition::points() const {
  std::size_t n = 1;
  for (const auto& a : axes) n *= a.values.size();
  return n;
}

std::vector<std::size_t> sweep_definition::coordinates(std::size_t k) const {
  std::vector<std::size_t> c(axes.size());
  for (std::size_t i = axes.size(); i-- > 0;) {
    c[i] = k % axes[i].values.size();
    k /= axes[i].values.size();
  }
  return c;
}

nlohmann::ordered_json sweep_definition::to_json() const {
  nlohmann::ordered_json j;
  j["command"] = command;
  j["kind"] = kind_name(kind);
  j["config"] = {{"files", base.files}, {"sets", base.sets}};
  j["timing_mode"] = timing_mode;
  j["axes"] = nlohmann::ordered_json::array();
  for (const auto& a : axes) {
    nlohmann::ordered_json values = nlohmann::ordered_json::array();
    for (const auto& v : a.values) values.push_back(nlohmann::ordered_json::parse(v.dump()));
    j["axes"].push_back({{"key", a.key}, {"values", std::move(values)}});
  }
  j["points"] = points();
  return j;
}

std::string definition_hash(const nlohmann::ordered_json& definition) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx",
                static_cast<unsigned long long>(fnv1a64(definition.dump())));
  return buf;
}

std::string sweep_definition::hash() const {
  return definition_hash(to_json());
}

void check_axes(const std::vector<sweep_axis>& axes, const config::config_layers& layers,
                std::size_t max_points) {
  config::diagnostics diag;
  auto where = [](const sweep_axis& a, const std::string& sub) {
    return a.pointer.empty() ? a.pointer : pointer(a.pointer, sub);
  };
  double points = 1;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const sweep_axis& a = axes[i];
    points *= static_cast<double>(a.values.size());
    for (std::size_t j = 0; j < i; ++j)
      if (axes[j].key == a.key)
        diag.report(a.source, where(a, "key"),
                    "the key " + a.key + " is also an axis of " + axes[j].source +
                        (axes[j].pointer.empty() ? "" : " " + axes[j].pointer));
    for (std::size_t v = 0; v < a.values.size(); ++v)
      for (std::size_t w = 0; w < v; ++w)
        if (a.values[w] == a.values[v]) {
          const set_origin o = value_origin(a, v);
          diag.report(a.source, o.pointer,
                      o.prefix + "the value " + a.values[v].dump() + " is there twice (" +
                          (a.pointer.empty() ? "value " + std::to_string(w + 1)
                                             : index_pointer(where(a, "values"), w)) +
                          ")");
        }
  }
  if (points > static_cast<double>(max_points)) {
    // Past 2^53 a double holds no exact count, past 2^64 no integer type
    // does: the product is said as a power of ten, never as a wrapped number.
    std::ostringstream count;
    if (points < 9.0e15)
      count << static_cast<uint64_t>(points);
    else
      count << "about " << std::setprecision(3) << points;
    diag.report(axes.empty() ? "--sweep" : axes.front().source, "",
                "the axes make " + count.str() + " points, more than the " +
                    std::to_string(max_points) + " a sweep may have");
  }
  diag.throw_if_any();

  // One value at a time against the configuration: the same message for
  // every value of an axis (an unknown key) is said once.
  std::vector<std::string> messages;
  for (const auto& a : axes) {
    std::vector<std::string> seen;
    for (std::size_t v = 0; v < a.values.size(); ++v) {
      config::diagnostics one;
      config::config_layers l = layers;
      const set_origin o = value_origin(a, v);
      l.sets.push_back(o.arg);
      if (load_blaming(l, {o}, a.source, where(a, "values"), one)) continue;
      for (const auto& m : one.messages()) {
        std::string general = m;
        if (!o.prefix.empty()) {
          const auto at = general.find(o.prefix);
          if (at != std::string::npos) general.erase(at, o.prefix.size());
        }
        bool repeat = false;
        for (const auto& s : seen) repeat = repeat || s == general;
        if (repeat) continue;
        seen.push_back(general);
        messages.push_back(m);
      }
    }
  }
  if (!messages.empty()) throw config::config_error(messages);
}

bool sets_simulation_mode(const config::config_layers& layers) {
  for (const auto& s : layers.sets) {
    const auto eq = s.find('=');
    const std::string key = s.substr(0, eq);
    if (key == "simulation.mode") return true;
    if (key == "simulation" && eq != std::string::npos) {
      const auto v = nlohmann::json::parse(s.substr(eq + 1), nullptr, false);
      if (v.is_object() && v.contains("mode")) return true;
    }
  }
  for (const auto& f : layers.files) {
    config::diagnostics ignore;
    const auto j = config::read_json_file(f, ignore);
    if (j && j->is_object() && j->contains("simulation") && (*j)["simulation"].is_object() &&
        (*j)["simulation"].contains("mode"))
      return true;
  }
  return false;
}

std::vector<std::string> point_args(const sweep_definition& d, std::size_t k,
                                    const std::string& folder, const std::string& result,
                                    const std::string& config) {
  std::vector<std::string> a = d.command;
  for (const auto& f : d.base.files) a.insert(a.end(), {"--config", f});
  for (const auto& s : d.base.sets) a.insert(a.end(), {"--set", s});
  const auto c = d.coordinates(k);
  for (std::size_t i = 0; i < d.axes.size(); ++i)
    a.insert(a.end(), {"--set", set_arg(d.axes[i].key, d.axes[i].values[c[i]])});
  // The decode runner is built for timing mode (docs/models/decode.md).
  if (d.timing_mode) a.insert(a.end(), {"--set", "simulation.mode=timing"});
  if (d.kind == sweep_kind::run)
    a.insert(a.end(), {"--out", folder});
  else
    a.insert(a.end(), {"--json", result});
  a.insert(a.end(), {"--dump-config", config});
  return a;
}

}  // namespace pccx::workload
