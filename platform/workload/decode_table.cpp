#include "platform/workload/decode_table.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "infra/config/layered_json.h"
#include "platform/workload/json_input.h"
#include "platform/workload/llm/model_config.h"
#include "platform/workload/table_format.h"

namespace pccx::workload {

namespace {

namespace fs = std::filesystem;

// ---- the sweep file ----------------------------------------------------------

// The typed keys; "set" objects hold any configuration value, so they are
// taken out before binding and read by take_sets().
struct strategy_schema {
  std::string name, label;
  uint32_t ring_cap = 0, sinks = 0;
  template <class V>
  void visit(V& v) {
    v.field("name", name, "Strategy name: letters, digits, '.', '_', '+', '-'");
    v.field("label", label, "Label in the tables (default: the name)");
    v.field("ring_cap", ring_cap, "Records per KV stream; 0 = L + N");
    v.field("sinks", sinks, "First tokens a full-history ring keeps when it wraps");
  }
};

struct prefill_schema {
  std::vector<std::string> models;
  std::vector<uint32_t> prompts;
  uint32_t chunk = 0;
  template <class V>
  void visit(V& v) {
    v.field("models", models, "Models of the prefill table, as the sweep's \"models\" list them",
            config::items(1, 64));
    v.field("prompts", prompts, "Prompt lengths P", config::items(1, 16),
            config::range(1u, 1u << 20, "prompt tokens of a prefill cell"));
    v.field("chunk", chunk,
            "Prompt rows per chunk (the decode program's --chunk; 0: the most it takes at each "
            "prompt length)",
            config::range(0u, 64u, "rows the decode program takes in a chunk (GD_MAX_CHUNK)"));
  }
};

struct sweep_schema {
  prefill_schema prefill;
  std::vector<std::string> models;
  std::vector<uint32_t> contexts;
  uint32_t tokens = 1;
  std::vector<strategy_schema> strategies;
  template <class V>
  void visit(V& v) {
    v.field("models", models, "Model files, relative to the sweep file's folder",
            config::items(1, 64));
    v.field("contexts", contexts, "Contexts L", config::items(1, 64),
            config::range(0u, 1u << 30,
                          "tokens of history before the decoded ones; 2^30 keeps a ring's byte "
                          "count within 64 bits, and the model's max_position decides further"));
    v.field("tokens", tokens, "Tokens decoded per cell, N", config::range(1u, 4096u,
                          "at least one token a cell; 4096 bounds a cell's run time "
                          "(modelling cap)"));
    v.field("strategies", strategies, "KV strategies", config::items(1, 64));
    v.field("prefill", prefill,
            "Prefill table: the models, prompt lengths and chunk of its cells (none without)");
  }
};

// Reads obj["set"] (ordered: the file's order is the order of the
// overrides) and removes it from `plain`, the copy the binder reads.
void take_sets(const nlohmann::ordered_json& obj, nlohmann::json& plain, const std::string& ptr,
               const std::string& file, config_sets& out, config::diagnostics& diag) {
  if (!obj.is_object() || !obj.contains("set")) return;
  if (plain.is_object()) plain.erase("set");
  const auto& set = obj.at("set");
  const std::string at = pointer(ptr, "set");
  if (!set.is_object()) {
    diag.report(file, at,
                "expected an object mapping configuration keys (a.b.c) to values, found " +
                    config::detail::json_text(nlohmann::json::parse(set.dump())));
    return;
  }
  for (const auto& [key, value] : set.items()) {
    const std::string problem = set_key_problem(key);
    if (!problem.empty()) {
      diag.report(file, pointer(at, key), problem);
      continue;
    }
    out.emplace_back(key, nlohmann::json::parse(value.dump()));
  }
}

bool file_name_safe(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '+' || c == '-';
    if (!ok) return false;
  }
  return s != "." && s != "..";
}

std::string file_name_of(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '+' || c == '-';
    out += ok ? c : '_';
  }
  return out.empty() ? "model" : out;
}

std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

std::string kv_text(const config::kv_format_config& f) {
  std::string t = f.kind;
  if (f.kind == "int8" || f.kind == "int4") t += " group " + std::to_string(f.group);
  if (f.kind == "rotated")
    t += " bits " + std::to_string(f.bits) + (f.residual_sketch ? " + sketch" : "");
  return t;
}

// The settings of one strategy against the platform configuration, and its
// KV formats against every model's head_dim. Configuration messages that
// blame one of the sweep's overrides are re-addressed to that key of the
// sweep file.
void check_strategy(const decode_sweep& s, std::size_t i, const config::config_layers& base,
                    const std::vector<llm::model_config>& models, config::diagnostics& diag) {
  const decode_strategy& st = s.strategies[i];
  const std::string at = pointer(index_pointer("/strategies", i), "set");
  std::vector<set_origin> origins;
  for (const auto& [k, v] : s.set)
    origins.push_back({set_arg(k, v), s.file, pointer("/set", k), ""});
  for (const auto& [k, v] : st.set) origins.push_back({set_arg(k, v), s.file, pointer(at, k), ""});

  const config::config_layers layers{base.files, cell_sets(s, st, base.sets)};
  const auto loaded = load_blaming(layers, origins, s.file, at, diag);
  if (!loaded) return;
  const config::platform_config& cfg = *loaded;
  for (std::size_t m = 0; m < models.size(); ++m) {
    const uint32_t d = models[m].attention.head_dim;
    for (const auto& [name, f] :
         {std::pair{"key", &cfg.npu.kv.key}, std::pair{"value", &cfg.npu.kv.value}}) {
      const std::string problem = config::to_kv_format(*f, d).check();
      if (!problem.empty())
        diag.report(s.file, at,
                    std::string("npu.kv.") + name + " (" + kv_text(*f) + ") does not suit model " +
                        models[m].name + " (" + index_pointer("/models", m) + ", head_dim " +
                        std::to_string(d) + "): " + problem);
    }
  }
}

// ---- numbers and text --------------------------------------------------------

std::string tokens_averaged(uint32_t n) {
  return n == 1 ? "L+1" : "L+1..L+" + std::to_string(n);
}

const char* status_name(decode_row::status s) {
  switch (s) {
    case decode_row::status::ok: return "ok";
    case decode_row::status::does_not_fit: return "does_not_fit";
    case decode_row::status::failed: return "failed";
  }
  return "failed";
}

std::string set_text(const config_sets& sets) {
  std::string out;
  for (const auto& [k, v] : sets)
    out += (out.empty() ? "" : ", ") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  return out;
}

nlohmann::ordered_json sets_json(const config_sets& sets) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [k, v] : sets) j[k] = nlohmann::ordered_json::parse(v.dump());
  return j;
}

decode_row base_row(const decode_sweep& s, const decode_cell& c) {
  const decode_strategy& st = s.strategies[c.strategy];
  decode_row r;
  r.model = s.models[c.model].name;
  r.strategy = st.name;
  r.label = st.label;
  r.cell = "cells/" + c.id + ".json";
  r.context = c.context;
  r.tokens = s.tokens;
  r.ring_cap = st.ring_cap != 0 ? st.ring_cap : c.context + s.tokens;
  r.sinks = st.sinks;
  return r;
}

}  // namespace

// ---- the sweep ----------------------------------------------------------------

decode_sweep load_sweep(const std::string& path, const config::config_layers& base) {
  const std::string& file = path;
  const nlohmann::json parsed = read_object_file(path);
  config::diagnostics diag([&](const std::string&) { return config::source_ref{file, 1}; });
  // The same text again, keeping the order of the keys of "set".
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(text.str(), nullptr, false);
  if (ordered.is_discarded() || !ordered.is_object()) {
    diag.report(file, "", "changed while it was read");
    diag.throw_if_any();
  }

  decode_sweep s;
  s.file = file;
  nlohmann::json plain = parsed;
  require(plain, "", {"models", "contexts", "tokens", "strategies"}, file, diag);
  take_sets(ordered, plain, "", file, s.set, diag);
  std::vector<config_sets> strategy_sets;
  if (ordered.contains("strategies") && ordered.at("strategies").is_array()) {
    auto& list = plain["strategies"];
    for (std::size_t i = 0; i < ordered.at("strategies").size(); ++i) {
      const std::string at = index_pointer("/strategies", i);
      require(list[i], at, {"name"}, file, diag);
      strategy_sets.emplace_back();
      take_sets(ordered.at("strategies")[i], list[i], at, file, strategy_sets.back(), diag);
    }
  }
  sweep_schema raw;
  config::decode_struct(plain, raw, "", diag);
  diag.throw_if_any();

  s.contexts = raw.contexts;
  s.tokens = raw.tokens;
  for (std::size_t i = 0; i < raw.contexts.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (raw.contexts[j] == raw.contexts[i])
        diag.report(file, index_pointer("/contexts", i),
                    "context " + std::to_string(raw.contexts[i]) + " is also " +
                        index_pointer("/contexts", j));
  for (std::size_t i = 0; i < raw.strategies.size(); ++i) {
    const auto& r = raw.strategies[i];
    const std::string at = index_pointer("/strategies", i);
    if (!file_name_safe(r.name))
      diag.report(file, pointer(at, "name"),
                  "expected a name of letters, digits, '.', '_', '+' and '-' (it names the cell "
                  "files), found \"" +
                      r.name + "\"");
    for (std::size_t j = 0; j < i; ++j)
      if (raw.strategies[j].name == r.name)
        diag.report(file, pointer(at, "name"),
                    "strategy \"" + r.name + "\" is also " + index_pointer("/strategies", j));
    decode_strategy st;
    st.name = r.name;
    st.label = r.label.empty() ? r.name : r.label;
    st.set = strategy_sets[i];
    st.ring_cap = r.ring_cap;
    st.sinks = r.sinks;
    s.strategies.push_back(std::move(st));
  }

  // Model files: relative to the sweep file's folder.
  const fs::path folder = fs::path(path).parent_path();
  std::vector<llm::model_config> models;
  for (std::size_t i = 0; i < raw.models.size(); ++i) {
    const std::string at = index_pointer("/models", i);
    decode_sweep_model m;
    m.file = raw.models[i];
    const fs::path p(m.file);
    m.path = (p.is_absolute() ? p : folder / p).lexically_normal().string();
    try {
      const llm::model_config mc = llm::load_model(m.path);
      m.name = mc.name;
      models.push_back(mc);
    } catch (const std::exception& e) {
      diag.report(file, at, "cannot load model file " + m.path + ":\n  " + e.what());
      continue;
    }
    for (std::size_t j = 0; j < s.models.size(); ++j)
      if (file_name_of(s.models[j].name) == file_name_of(m.name))
        diag.report(file, at,
                    "model name \"" + m.name + "\" is also the name of " +
                        index_pointer("/models", j) + " (" + s.models[j].file + ")");
    s.models.push_back(std::move(m));
  }
  for (std::size_t i = 0; i < raw.prefill.models.size(); ++i) {
    const auto it = std::find(raw.models.begin(), raw.models.end(), raw.prefill.models[i]);
    if (it == raw.models.end())
      diag.report(file, index_pointer("/prefill/models", i),
                  "\"" + raw.prefill.models[i] + "\" is not one of the sweep's \"models\"");
    else
      s.prefill.models.push_back(static_cast<std::size_t>(it - raw.models.begin()));
  }
  s.prefill.prompts = raw.prefill.prompts;
  s.prefill.chunk = raw.prefill.chunk;
  if (!raw.prefill.models.empty() && raw.prefill.prompts.empty())
    diag.report(file, "/prefill", "a prefill table needs \"prompts\"");
  diag.throw_if_any();

  for (std::size_t i = 0; i < s.strategies.size(); ++i) check_strategy(s, i, base, models, diag);
  diag.throw_if_any();
  return s;
}

std::vector<decode_cell> sweep_cells(const decode_sweep& s) {
  std::vector<decode_cell> out;
  for (std::size_t m = 0; m < s.models.size(); ++m)
    for (std::size_t st = 0; st < s.strategies.size(); ++st)
      for (uint32_t l : s.contexts) {
        decode_cell c;
        c.model = m;
        c.strategy = st;
        c.context = l;
        c.id =
            file_name_of(s.models[m].name) + "-" + s.strategies[st].name + "-" + std::to_string(l);
        out.push_back(std::move(c));
      }
  return out;
}

std::vector<std::string> cell_sets(const decode_sweep& s, const decode_strategy& st,
                                   const std::vector<std::string>& base_sets) {
  std::vector<std::string> out;
  for (const auto& [k, v] : s.set) out.push_back(set_arg(k, v));
  for (const auto& [k, v] : st.set) out.push_back(set_arg(k, v));
  out.insert(out.end(), base_sets.begin(), base_sets.end());
  // The decode runner is built for timing mode (docs/models/decode.md).
  out.push_back("simulation.mode=timing");
  return out;
}

std::vector<std::string> decode_args(const decode_sweep& s, const decode_cell& c,
                                     const config::config_layers& base,
                                     const std::string& json_path) {
  const decode_strategy& st = s.strategies[c.strategy];
  std::vector<std::string> a = {"decode",
                                "--model",
                                s.models[c.model].path,
                                "--context",
                                std::to_string(c.context),
                                "--tokens",
                                std::to_string(s.tokens),
                                "--ring-cap",
                                std::to_string(st.ring_cap),
                                "--sinks",
                                std::to_string(st.sinks),
                                "--json",
                                json_path};
  for (const auto& f : base.files) a.insert(a.end(), {"--config", f});
  for (const auto& set : cell_sets(s, st, base.sets)) a.insert(a.end(), {"--set", set});
  return a;
}

// ---- rows ----------------------------------------------------------------------

double decode_row::dram_mj() const {
  double mj = 0;
  for (const auto& [c, v] : mj_per_token) mj += v;
  return mj;
}

double decode_row::mb(const std::string& cls) const {
  for (const auto& [c, v] : mb_per_token)
    if (c == cls) return v;
  return 0;
}

std::string cell_file_name(const std::string& s) {
  return file_name_of(s);
}

std::string short_plan_error(const std::string& what) {
  const std::string s = first_line(what);
  const auto at = s.find("does not fit");
  if (at == std::string::npos) return "does not fit: " + s;
  const auto colon = s.find(": ", at);
  const auto eq = s.rfind(" = ");
  if (colon == std::string::npos || eq == std::string::npos || eq < colon) return s.substr(at);
  return s.substr(at, colon - at) + ": " + s.substr(eq + 3);
}

decode_row failed_row(const decode_sweep& s, const decode_cell& c, const std::string& reason) {
  decode_row r = base_row(s, c);
  r.state = decode_row::status::failed;
  r.note = "failed: " + first_line(reason);
  return r;
}

void read_decode_figures(const nlohmann::json& doc, decode_row& r) {
  const auto lat = doc.at("latency_ns").get<std::vector<double>>();
  const auto& bound = doc.at("bound");
  if (lat.empty() || bound.size() != lat.size())
    throw std::runtime_error("the document has " + std::to_string(lat.size()) + " latencies and " +
                             std::to_string(bound.size()) + " bounds");
  const double n = static_cast<double>(lat.size());
  double lat_sum = 0, bound_sum = 0;
  r.latency_ms_per_token.clear();
  r.bound_ms_per_token.clear();
  r.memory_bound = true;
  for (std::size_t t = 0; t < lat.size(); ++t) {
    r.latency_ms_per_token.push_back(lat[t] / 1e6);
    r.bound_ms_per_token.push_back(bound[t].at("bound_seconds").get<double>() * 1e3);
    r.memory_bound = r.memory_bound && bound[t].at("memory_bound").get<bool>();
    lat_sum += r.latency_ms_per_token.back();
    bound_sum += r.bound_ms_per_token.back();
  }
  r.latency_ms = lat_sum / n;
  r.bound_ms = bound_sum / n;
  r.tokens_per_s = r.latency_ms > 0 ? 1e3 / r.latency_ms : 0;
  r.latency_over_bound = r.bound_ms > 0 ? r.latency_ms / r.bound_ms : 0;
  r.ring_cap = doc.at("ring_cap").get<uint32_t>();
  r.gemv_util_pct = 100 * doc.at("gemv_utilisation").get<double>();
  r.npu_util_pct = 100 * doc.at("npu_utilisation").get<double>();
  r.achieved_gbps = doc.at("achieved_gbps").get<double>();
  const auto instr = doc.at("instructions").get<std::vector<uint64_t>>();
  double isum = 0;
  for (uint64_t i : instr) isum += double(i);
  r.instructions = instr.empty() ? 0 : isum / double(instr.size());
  r.mb_per_token.clear();
  for (const auto& [cls, v] : doc.at("ddr_bytes_per_token").items())
    r.mb_per_token.emplace_back(cls, v.get<double>() / 1e6);
  r.mj_per_token.clear();
  if (doc.contains("dram_mj_per_token"))
    for (const auto& [cls, v] : doc.at("dram_mj_per_token").items())
      r.mj_per_token.emplace_back(cls, v.get<double>());
  r.dram_pj_per_bit = doc.value("dram_pj_per_bit", 0.0);
  r.state = decode_row::status::ok;
}

decode_row cell_row(const decode_sweep& s, const decode_cell& c, const nlohmann::json& doc) {
  decode_row r = base_row(s, c);
  try {
    const std::string status = doc.at("status").get<std::string>();
    if (status == "does_not_fit") {
      r.state = decode_row::status::does_not_fit;
      r.note = short_plan_error(doc.at("error").get<std::string>());
      return r;
    }
    if (status != "ok")
      return failed_row(s, c, status + ": " + doc.value("error", std::string("no message")));
    const auto lat = doc.at("latency_ns").get<std::vector<double>>();
    const auto& bound = doc.at("bound");
    if (lat.size() != s.tokens || bound.size() != s.tokens)
      return failed_row(s, c,
                        "the cell document has " + std::to_string(lat.size()) + " latencies and " +
                            std::to_string(bound.size()) + " bounds for " +
                            std::to_string(s.tokens) + " tokens");
    read_decode_figures(doc, r);
  } catch (const nlohmann::json::exception& e) {
    return failed_row(s, c, std::string("malformed cell document: ") + e.what());
  }
  return r;
}

const std::vector<std::string>& table_classes() {
  static const std::vector<std::string> classes = {"weights", "kv_read", "kv_write", "activations"};
  return classes;
}

// ---- renderings ------------------------------------------------------------------

std::string table_markdown(const decode_table& t) {
  const decode_sweep& s = t.sweep;
  std::ostringstream o;
  o << "# Decode table\n\n"
    << "The decode (docs/models/decode.md) of every model for every KV strategy and context L, one "
       "`pccx-vp decode` run per cell: N = "
    << s.tokens << " token" << (s.tokens == 1 ? "" : "s")
    << " decoded after L tokens already in the KV rings; every figure is the mean over tokens "
    << tokens_averaged(s.tokens) << ".\n\n";
  o << "- sweep: `" << s.file << "`\n";
  o << "- platform: built-in defaults";
  for (const auto& f : t.base.files) o << ", --config `" << f << "`";
  if (!s.set.empty()) o << ", the sweep's settings (" << md_cell(set_text(s.set)) << ")";
  o << ", the strategy's settings";
  for (const auto& set : t.base.sets) o << ", --set `" << set << "`";
  o << ", simulation.mode=timing\n";
  o << "- bound: the roofline lower bound of the whole model at each token's span "
       "(llm::decode_roofline); latency / bound is the mean latency over the mean bound\n";
  o << "- MAC utilisation over the whole run; MB = 10^6 bytes of DDR traffic per token by "
       "class; GB/s = the decode's DDR bytes over its summed latency; DRAM mJ/token and pJ/bit = "
       "the DRAM's energy per token (IDD method, docs/models/memory-ddr.md) and per bit moved\n\n";

  o << "| Strategy | Label | Settings | Ring cap | Sinks |\n|---|---|---|---|---|\n";
  for (const auto& st : s.strategies)
    o << "| " << st.name << " | " << md_cell(st.label) << " | " << md_cell(set_text(st.set))
      << " | " << (st.ring_cap ? std::to_string(st.ring_cap) : "L + N") << " | " << st.sinks
      << " |\n";

  for (std::size_t m = 0; m < s.models.size(); ++m) {
    o << "\n## " << s.models[m].name << "\n\nModel file `" << s.models[m].path << "`.\n\n";
    o << "| Strategy | L | Ring cap | Tokens | ms/token | tokens/s | Bound ms | Latency / bound "
         "| GEMV MAC util % | NPU MAC util % | Weights MB/token | KV read MB/token | KV write "
         "MB/token | Activations MB/token | GB/s | Instructions/token | DRAM mJ/token | DRAM "
         "pJ/bit | Note |\n"
         "|---|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n";
    for (const auto& r : t.rows) {
      if (r.model != s.models[m].name) continue;
      o << "| " << md_cell(r.label) << " | " << r.context << " | " << r.ring_cap << " | "
        << tokens_averaged(r.tokens) << " | ";
      if (r.state == decode_row::status::ok) {
        o << fixed(r.latency_ms, 3) << " | " << fixed(r.tokens_per_s, 2) << " | "
          << fixed(r.bound_ms, 3) << " | " << fixed(r.latency_over_bound, 3) << " | "
          << fixed(r.gemv_util_pct, 2) << " | " << fixed(r.npu_util_pct, 2) << " | ";
        for (const auto& cls : table_classes()) o << fixed(r.mb(cls), 3) << " | ";
        o << fixed(r.achieved_gbps, 2) << " | " << count_text(r.instructions) << " | "
          << fixed(r.dram_mj(), 2) << " | " << fixed(r.dram_pj_per_bit, 2) << " | ";
      } else {
        for (int i = 0; i < 14; ++i) o << "- | ";
      }
      o << md_cell(r.note) << " |\n";
    }
  }
  return o.str();
}

std::string table_csv(const decode_table& t) {
  std::ostringstream o;
  o << "model,strategy,label,context,ring_cap,sinks,tokens,tokens_averaged,status,latency_ms,"
       "tokens_per_s,bound_ms,latency_over_bound,gemv_mac_util_pct,npu_mac_util_pct,"
       "weights_mb_per_token,kv_read_mb_per_token,kv_write_mb_per_token,"
       "activations_mb_per_token,achieved_gbps,instructions_per_token,dram_mj_per_token,"
       "dram_pj_per_bit,note\n";
  for (const auto& r : t.rows) {
    o << csv_cell(r.model) << ',' << csv_cell(r.strategy) << ',' << csv_cell(r.label) << ','
      << r.context << ',' << r.ring_cap << ',' << r.sinks << ',' << r.tokens << ','
      << tokens_averaged(r.tokens) << ',' << status_name(r.state) << ',';
    if (r.state == decode_row::status::ok) {
      o << fixed(r.latency_ms, 6) << ',' << fixed(r.tokens_per_s, 4) << ',' << fixed(r.bound_ms, 6)
        << ',' << fixed(r.latency_over_bound, 6) << ',' << fixed(r.gemv_util_pct, 4) << ','
        << fixed(r.npu_util_pct, 4) << ',';
      for (const auto& cls : table_classes()) o << fixed(r.mb(cls), 6) << ',';
      o << fixed(r.achieved_gbps, 4) << ',' << fixed(r.instructions, 1) << ','
        << fixed(r.dram_mj(), 4) << ',' << fixed(r.dram_pj_per_bit, 3) << ',';
    } else {
      o << ",,,,,,,,,,,,,,";
    }
    o << csv_cell(r.note) << '\n';
  }
  return o.str();
}

nlohmann::ordered_json table_json(const decode_table& t) {
  const decode_sweep& s = t.sweep;
  nlohmann::ordered_json j;
  j["sweep"] = s.file;
  j["tokens"] = s.tokens;
  j["tokens_averaged"] = tokens_averaged(s.tokens);
  j["mode"] = "timing";
  j["config"] = {{"files", t.base.files}, {"sets", t.base.sets}};
  j["set"] = sets_json(s.set);
  j["models"] = nlohmann::ordered_json::array();
  for (const auto& m : s.models)
    j["models"].push_back({{"name", m.name}, {"file", m.file}, {"path", m.path}});
  j["contexts"] = s.contexts;
  j["strategies"] = nlohmann::ordered_json::array();
  for (const auto& st : s.strategies)
    j["strategies"].push_back({{"name", st.name},
                               {"label", st.label},
                               {"set", sets_json(st.set)},
                               {"ring_cap", st.ring_cap},
                               {"sinks", st.sinks}});
  j["rows"] = nlohmann::ordered_json::array();
  for (const auto& r : t.rows) {
    nlohmann::ordered_json row = {{"model", r.model},
                                  {"strategy", r.strategy},
                                  {"label", r.label},
                                  {"context", r.context},
                                  {"ring_cap", r.ring_cap},
                                  {"sinks", r.sinks},
                                  {"tokens", r.tokens},
                                  {"tokens_averaged", tokens_averaged(r.tokens)},
                                  {"status", status_name(r.state)},
                                  {"note", r.note},
                                  {"cell", r.cell}};
    if (r.state == decode_row::status::ok) {
      row["latency_ms"] = r.latency_ms;
      row["latency_ms_per_token"] = r.latency_ms_per_token;
      row["tokens_per_s"] = r.tokens_per_s;
      row["bound_ms"] = r.bound_ms;
      row["bound_ms_per_token"] = r.bound_ms_per_token;
      row["latency_over_bound"] = r.latency_over_bound;
      row["memory_bound"] = r.memory_bound;
      row["gemv_mac_util_pct"] = r.gemv_util_pct;
      row["npu_mac_util_pct"] = r.npu_util_pct;
      nlohmann::ordered_json mb = nlohmann::ordered_json::object();
      for (const auto& [cls, v] : r.mb_per_token) mb[cls] = v;
      row["ddr_mb_per_token"] = std::move(mb);
      row["achieved_gbps"] = r.achieved_gbps;
      row["instructions_per_token"] = r.instructions;
      nlohmann::ordered_json mj = nlohmann::ordered_json::object();
      for (const auto& [cls, v] : r.mj_per_token) mj[cls] = v;
      row["dram_mj_per_token"] = std::move(mj);
      row["dram_pj_per_bit"] = r.dram_pj_per_bit;
    }
    j["rows"].push_back(std::move(row));
  }
  return j;
}

}  // namespace pccx::workload
