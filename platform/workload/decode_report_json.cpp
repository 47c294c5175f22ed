#include "platform/workload/decode_report_json.h"

namespace pccx::workload {

nlohmann::json to_json(const llm::roofline& r) {
  return {{"weight_bytes", r.weight_bytes},
          {"kv_read_bytes", r.kv_read_bytes},
          {"kv_write_bytes", r.kv_write_bytes},
          {"bytes", r.bytes()},
          {"macs", r.macs},
          {"memory_seconds", r.memory_seconds},
          {"compute_seconds", r.compute_seconds},
          {"bound_seconds", r.bound_seconds},
          {"memory_bound", r.memory_bound},
          {"max_mac_utilisation", r.max_mac_utilisation}};
}

nlohmann::json to_json(const engine_time& e) {
  return {{"busy", e.busy}, {"stall", e.stall}, {"idle", e.idle}};
}

namespace {

const char* outcome(vp::run_control::state s) {
  switch (s) {
    case vp::run_control::state::finished: return "finished";
    case vp::run_control::state::running: return "running";
    case vp::run_control::state::failed: return "failed";
  }
  return "failed";
}

}  // namespace

nlohmann::json run_json(const vp::run_result& r) {
  nlohmann::json j = {{"outcome", outcome(r.state)},
                      {"exit_code", r.exit_code},
                      {"message", r.message},
                      {"sim_time_ns", r.sim_time_ns},
                      {"instructions_retired", r.instructions_retired}};
  nlohmann::json counters = nlohmann::json::object();
  for (const auto& [name, value] : r.counters) counters[name] = value;
  j["counters"] = std::move(counters);
  if (r.exit_code != 0) j["printed"] = r.printed;
  return j;
}

nlohmann::json to_json(const decode_report& r) {
  nlohmann::json j;
  j["model"] = r.model;
  j["context"] = r.context;
  j["tokens"] = r.tokens;
  j["ring_cap"] = r.ring_cap;
  j["latency_ns"] = r.latency_ns;
  j["instructions"] = r.instructions;
  if (!r.cpu_instructions.empty())
    j["cpu"] = {{"kind", "AArch64 ELF"},
                {"instructions_per_token", r.cpu_instructions},
                {"busy_ns_per_token", r.cpu_busy_ns}};
  j["gemv_macs"] = r.gemv_macs;
  j["macs"] = r.macs;
  j["cycles"] = r.cycles;
  j["gemv_utilisation"] = r.gemv_utilisation;
  j["npu_utilisation"] = r.npu_utilisation;
  j["engines"] = nlohmann::json::object();
  for (const auto& [name, e] : r.engines) j["engines"][name] = to_json(e);
  j["ddr_bytes"] = r.ddr_bytes;
  j["ddr_bytes_per_token"] = r.ddr_bytes_per_token;
  j["achieved_gbps"] = r.achieved_gbps;
  j["dram_mj_per_token"] = r.dram_mj_per_token;
  j["dram_pj_per_bit"] = r.dram_pj_per_bit;
  j["bound"] = nlohmann::json::array();
  for (const auto& b : r.bound) j["bound"].push_back(to_json(b));
  j["bound_ratio"] = r.bound_ratio;
  j["parts"] = nlohmann::json::array();
  for (const auto& p : r.parts)
    j["parts"].push_back({{"name", p.name}, {"instructions", p.instructions}, {"ns", p.ns}});
  if (r.ttft_ns > 0) {
    j["ttft_ns"] = r.ttft_ns;
    const prefill_report& f = r.prefill;
    j["prefill"] = {{"prompt", f.prompt},
                    {"chunk", f.chunk},
                    {"ttft_ns", f.ttft_ns},
                    {"tokens_per_s", f.tokens_per_s},
                    {"gemm_macs", f.gemm_macs},
                    {"macs", f.macs},
                    {"cycles", f.cycles},
                    {"instructions", f.instructions},
                    {"gemm_utilisation", f.gemm_utilisation},
                    {"npu_utilisation", f.npu_utilisation},
                    {"ddr_bytes", f.ddr_bytes},
                    {"bound", to_json(f.bound)},
                    {"bound_ratio", f.bound_ratio},
                    {"exit",
                     {{"ns", f.exit.ns},
                      {"gemm_macs", f.exit.gemm_macs},
                      {"macs", f.exit.macs},
                      {"cycles", f.exit.cycles},
                      {"ddr_bytes", f.exit.ddr_bytes}}}};
  }
  if (r.prompt_cosine != 0) {
    j["prompt_cosine"] = r.prompt_cosine;
    j["prompt_cosine_exact"] = r.prompt_cosine_exact;
  }
  j["reference_cosine"] = r.reference_cosine;
  if (r.kv_records_compared != 0) {
    j["kv_records_compared"] = r.kv_records_compared;
    j["kv_record_min_cosine"] = r.kv_record_min_cosine;
  }
  j["reference_cosine_exact"] = r.reference_cosine_exact;
  j["run"] = run_json(r.run);
  return j;
}

nlohmann::json to_json(const decode_options& o) {
  return {{"context", o.context},     {"tokens", o.tokens},
          {"ring_cap", o.ring_cap},   {"sinks", o.sinks},
          {"lm_tile", o.lm_tile},     {"token_ids", o.token_ids},
          {"per_layer", o.per_layer}, {"reference_seed", o.reference_seed},
          {"prompt_tokens", o.prompt_tokens}, {"chunk", o.chunk}};
}

nlohmann::json decode_document(const std::string& model_file, const decode_options& o,
                               const decode_report* report, const std::string& status,
                               const std::string& error) {
  nlohmann::json j = report ? to_json(*report) : nlohmann::json::object();
  j["status"] = status;
  if (!error.empty()) j["error"] = error;
  j["options"] = to_json(o);
  j["options"]["model_file"] = model_file;
  return j;
}

}  // namespace pccx::workload
