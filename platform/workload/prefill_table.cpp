#include "platform/workload/prefill_table.h"

#include <sstream>

#include "models/memory/ddr/ddr_capacity.h"
#include "platform/workload/decode_runner.h"
#include "platform/workload/llm/ddr_plan.h"
#include "platform/workload/llm/model_config.h"
#include "platform/workload/llm/prefill_plan.h"
#include "platform/workload/table_format.h"

namespace pccx::workload {

namespace {

const char* status_text(decode_row::status s) {
  switch (s) {
    case decode_row::status::ok: return "ok";
    case decode_row::status::does_not_fit: return "does_not_fit";
    case decode_row::status::failed: break;
  }
  return "failed";
}

uint32_t ring_cap_of(const decode_strategy& st, uint32_t prompt) {
  return st.ring_cap != 0 ? st.ring_cap : prompt;
}

// A sample's figures from its document's "prefill" object.
prefill_measure measure_of(const nlohmann::json& doc) {
  const auto& f = doc.at("prefill");
  prefill_measure m;
  m.ns = f.at("ttft_ns").get<double>();
  const auto& e = f.at("exit");
  m.exit_ns = e.at("ns").get<double>();
  for (const char* k : {"gemm_macs", "macs", "cycles"}) {
    m.q[k] = f.at(k).get<double>();
    m.exit_q[k] = e.at(k).get<double>();
  }
  for (const auto& [cls, v] : f.at("ddr_bytes").items()) m.q["ddr." + cls] = v.get<double>();
  for (const auto& [cls, v] : e.at("ddr_bytes").items()) m.exit_q["ddr." + cls] = v.get<double>();
  return m;
}

// The strategy's platform for the model, as its cells run it.
config::platform_config platform_of(const decode_sweep& s, const config::config_layers& base,
                                    const prefill_cell& c, const llm::model_config& m) {
  config::platform_config cfg =
      config::load({base.files, cell_sets(s, s.strategies[c.strategy], base.sets)});
  cfg.npu.kv.head_dim = m.attention.head_dim;
  return cfg;
}

// The whole prompt's roofline bound on that platform.
llm::roofline prompt_bound(const decode_sweep& s, const prefill_cell& c,
                           const llm::model_config& m, const config::platform_config& cfg) {
  const decode_strategy& st = s.strategies[c.strategy];
  llm::prefill_options po;
  po.prompt = c.prompt;
  po.chunk = c.chunk;
  po.ring_cap = ring_cap_of(st, c.prompt);
  po.sinks = st.sinks;
  po.evict = true;
  const llm::prefill_plan plan =
      llm::plan_prefill(m, llm::kv_formats_of(m, cfg), po, cfg.npu.gemm);
  llm::roofline_inputs in;
  in.ddr_bytes_per_second = mem::derive_capacity(cfg.ddr).effective_bytes_per_s;
  in.macs_per_second = llm::gemm_peak_macs_per_second(cfg.clocks.core_mhz * 1e6);
  return llm::prefill_roofline(plan, in);
}

}  // namespace

std::string prefill_cell::sample_id(std::size_t i) const {
  return id + "-at" + std::to_string(samples.at(i).p0);
}

std::vector<prefill_cell> prefill_cells(const decode_sweep& s, const config::config_layers& base) {
  std::vector<prefill_cell> out;
  for (std::size_t m : s.prefill.models) {
    const llm::model_config model = llm::load_model(s.models[m].path);
    for (std::size_t st = 0; st < s.strategies.size(); ++st)
      for (uint32_t p : s.prefill.prompts) {
        prefill_cell c;
        c.model = m;
        c.strategy = st;
        c.prompt = p;
        c.window = model.attention.sliding_window;
        c.chunk = s.prefill.chunk;
        if (c.chunk == 0) {
          decode_options o;
          o.context = 0;
          o.prompt_tokens = p;
          o.tokens = 0;
          o.ring_cap = ring_cap_of(s.strategies[st], p);
          o.sinks = s.strategies[st].sinks;
          try {
            c.chunk = std::min(prefill_chunk_limit(platform_of(s, base, c, model), model, o), p);
          } catch (const std::exception&) {
            c.chunk = 1;  // the samples' runs say why (the DDR plan, say)
          }
        }
        c.samples = prefill_samples(p, c.chunk, c.window);
        c.id = cell_file_name(s.models[m].name) + "-" + s.strategies[st].name + "-prompt" +
               std::to_string(p);
        out.push_back(std::move(c));
      }
  }
  return out;
}

std::vector<std::string> prefill_args(const decode_sweep& s, const prefill_cell& c,
                                      std::size_t sample, const config::config_layers& base,
                                      const std::string& json_path) {
  const decode_strategy& st = s.strategies[c.strategy];
  const prefill_point& at = c.samples.at(sample);
  std::vector<std::string> a = {"decode",
                                "--model",
                                s.models[c.model].path,
                                "--context",
                                std::to_string(at.p0),
                                "--prompt-tokens",
                                std::to_string(at.rows),
                                "--chunk",
                                std::to_string(c.chunk),
                                "--tokens",
                                "0",
                                "--ring-cap",
                                std::to_string(ring_cap_of(st, c.prompt)),
                                "--sinks",
                                std::to_string(st.sinks),
                                "--json",
                                json_path};
  for (const auto& f : base.files) a.insert(a.end(), {"--config", f});
  for (const auto& set : cell_sets(s, st, base.sets)) a.insert(a.end(), {"--set", set});
  return a;
}

double prefill_row::gb_of(const std::string& cls) const {
  for (const auto& [c, v] : gb)
    if (c == cls) return v;
  return 0;
}

prefill_row prefill_cell_row(const decode_sweep& s, const config::config_layers& base,
                             const prefill_cell& c, const std::vector<nlohmann::json>& docs) {
  const decode_strategy& st = s.strategies[c.strategy];
  prefill_row r;
  r.model = s.models[c.model].name;
  r.strategy = st.name;
  r.label = st.label;
  r.prompt = c.prompt;
  r.chunk = c.chunk;
  r.ring_cap = ring_cap_of(st, c.prompt);
  r.sinks = st.sinks;
  for (const auto& p : c.samples) r.sampled_p0.push_back(p.p0);
  std::vector<prefill_measure> measures;
  try {
    for (std::size_t i = 0; i < docs.size(); ++i) {
      const std::string status = docs[i].at("status").get<std::string>();
      if (status == "does_not_fit") {
        r.state = decode_row::status::does_not_fit;
        r.note = short_plan_error(docs[i].value("error", std::string()));
        return r;
      }
      if (status != "ok") {
        r.note = "failed: sample " + c.sample_id(i) + ": " + docs[i].value("error", status);
        return r;
      }
      measures.push_back(measure_of(docs[i]));
    }
    const prefill_totals t = estimate_prefill(c.prompt, c.chunk, c.samples, measures);
    const llm::model_config m = llm::load_model(s.models[c.model].path);
    const config::platform_config cfg = platform_of(s, base, c, m);
    const llm::roofline b = prompt_bound(s, c, m, cfg);
    r.ttft_ms = t.ttft_ns / 1e6;
    r.tokens_per_s = t.ttft_ns > 0 ? c.prompt / (t.ttft_ns * 1e-9) : 0;
    // Peaks per clock as the decode report takes them.
    const double cycles = t.q.at("cycles"), gemm_peak = 32.0 * 32.0 * 2.0;
    const double gemv_peak = double(cfg.npu.gemv_cores) * cfg.npu.gemv.macs_per_core_per_cycle;
    if (cycles > 0) {
      r.gemm_util_pct = 100 * t.q.at("gemm_macs") / (gemm_peak * cycles);
      r.npu_util_pct = 100 * t.q.at("macs") / ((gemv_peak + gemm_peak) * cycles);
    }
    for (const auto& cls : table_classes()) {
      const auto it = t.q.find("ddr." + cls);
      r.gb.emplace_back(cls, it != t.q.end() ? it->second / 1e9 : 0);
    }
    r.bound_ms = b.bound_seconds * 1e3;
    r.memory_bound = b.memory_bound;
    r.ttft_over_bound = r.bound_ms > 0 ? r.ttft_ms / r.bound_ms : 0;
    r.state = decode_row::status::ok;
  } catch (const std::exception& e) {
    r.state = decode_row::status::failed;
    r.note = std::string("failed: ") + e.what();
  }
  return r;
}

std::string prefill_markdown(const prefill_table& t) {
  const decode_sweep& s = t.sweep;
  std::ostringstream o;
  o << "# Prefill table\n\n"
    << "The decode program's chunked prefill (docs/models/prefill.md) of every prompt length P "
       "for every KV strategy: time to first token (TTFT) from the prompt's first chunk to its "
       "last token's logits, in chunks of C rows (the sweep's chunk, or 0: the most the "
       "program takes at the prompt's ring), estimated from sampled chunks (each one run after a cache of p0 tokens written "
       "directly; the others interpolated linearly in p0; the exit counted once).\n\n";
  o << "- sweep: `" << s.file << "`; platform as in the decode table, simulation.mode=timing\n";
  o << "- bound: the roofline lower bound of the whole prompt (llm::prefill_roofline: its "
       "bytes at the DDR's effective bandwidth against its MACs at the GEMM array's peak)\n";
  o << "- GB = 10^9 bytes of DDR traffic of the prompt by class; MAC utilisation over the "
       "prompt's clocks\n";
  for (std::size_t m : s.prefill.models) {
    o << "\n## " << s.models[m].name << "\n\n";
    o << "| Strategy | P | C | Ring cap | Sampled p0 | TTFT ms | Prompt tokens/s | Bound ms | TTFT / "
         "bound | Bound kind | GEMM MAC util % | NPU MAC util % | Weights GB | KV read GB | KV "
         "write GB | Activations GB | Note |\n"
         "|---|--:|--:|--:|---|--:|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|---|\n";
    for (const auto& r : t.rows) {
      if (r.model != s.models[m].name) continue;
      std::string p0;
      for (uint32_t v : r.sampled_p0) p0 += (p0.empty() ? "" : ", ") + std::to_string(v);
      o << "| " << md_cell(r.label) << " | " << r.prompt << " | " << r.chunk << " | "
        << r.ring_cap << " | " << p0
        << " | ";
      if (r.state == decode_row::status::ok) {
        o << fixed(r.ttft_ms, 1) << " | " << fixed(r.tokens_per_s, 2) << " | "
          << fixed(r.bound_ms, 1) << " | " << fixed(r.ttft_over_bound, 2) << " | "
          << (r.memory_bound ? "memory" : "compute") << " | " << fixed(r.gemm_util_pct, 2)
          << " | " << fixed(r.npu_util_pct, 2) << " | ";
        for (const auto& cls : table_classes()) o << fixed(r.gb_of(cls), 3) << " | ";
      } else {
        for (int i = 0; i < 11; ++i) o << "- | ";
      }
      o << md_cell(r.note) << " |\n";
    }
  }
  return o.str();
}

std::string prefill_csv(const prefill_table& t) {
  std::ostringstream o;
  o << "model,strategy,label,prompt,chunk,ring_cap,sinks,sampled_p0,status,ttft_ms,"
       "prompt_tokens_per_s,bound_ms,ttft_over_bound,memory_bound,gemm_mac_util_pct,"
       "npu_mac_util_pct,weights_gb,kv_read_gb,kv_write_gb,activations_gb,note\n";
  for (const auto& r : t.rows) {
    std::string p0;
    for (uint32_t v : r.sampled_p0) p0 += (p0.empty() ? "" : " ") + std::to_string(v);
    o << csv_cell(r.model) << ',' << csv_cell(r.strategy) << ',' << csv_cell(r.label) << ','
      << r.prompt << ',' << r.chunk << ',' << r.ring_cap << ',' << r.sinks << ',' << p0 << ','
      << status_text(r.state) << ',';
    if (r.state == decode_row::status::ok) {
      o << fixed(r.ttft_ms, 6) << ',' << fixed(r.tokens_per_s, 4) << ',' << fixed(r.bound_ms, 6)
        << ',' << fixed(r.ttft_over_bound, 6) << ',' << (r.memory_bound ? "true" : "false") << ','
        << fixed(r.gemm_util_pct, 4) << ',' << fixed(r.npu_util_pct, 4) << ',';
      for (const auto& cls : table_classes()) o << fixed(r.gb_of(cls), 6) << ',';
    } else {
      o << ",,,,,,,,,,,";
    }
    o << csv_cell(r.note) << '\n';
  }
  return o.str();
}

nlohmann::ordered_json prefill_json(const prefill_table& t) {
  const decode_sweep& s = t.sweep;
  nlohmann::ordered_json j;
  j["sweep"] = s.file;
  j["chunk"] = s.prefill.chunk;
  j["prompts"] = s.prefill.prompts;
  j["mode"] = "timing";
  j["config"] = {{"files", t.base.files}, {"sets", t.base.sets}};
  j["rows"] = nlohmann::ordered_json::array();
  for (const auto& r : t.rows) {
    nlohmann::ordered_json row = {{"model", r.model},       {"strategy", r.strategy},
                                  {"label", r.label},       {"prompt", r.prompt},
                                  {"chunk", r.chunk},       {"ring_cap", r.ring_cap},
                                  {"sinks", r.sinks},       {"sampled_p0", r.sampled_p0},
                                  {"status", status_text(r.state)}, {"note", r.note}};
    if (r.state == decode_row::status::ok) {
      row["ttft_ms"] = r.ttft_ms;
      row["prompt_tokens_per_s"] = r.tokens_per_s;
      row["bound_ms"] = r.bound_ms;
      row["ttft_over_bound"] = r.ttft_over_bound;
      row["memory_bound"] = r.memory_bound;
      row["gemm_mac_util_pct"] = r.gemm_util_pct;
      row["npu_mac_util_pct"] = r.npu_util_pct;
      nlohmann::ordered_json gb = nlohmann::ordered_json::object();
      for (const auto& [cls, v] : r.gb) gb[cls] = v;
      row["ddr_gb"] = gb;
    }
    j["rows"].push_back(std::move(row));
  }
  return j;
}

}  // namespace pccx::workload
