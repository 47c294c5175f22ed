// docs/reference/model-config.md: the key table, the size tables, the DDR plan and
// the failure message are generated from the code, so the page cannot drift.
// To regenerate them after a change:
//   PCCX_UPDATE_DOCS=1 ctest --test-dir <build> -R LlmDocs
#include <cstdio>
#include <cstdlib>

#include "doc_block.h"
#include "llm_test_util.h"

using namespace pccx::llm;
using nlohmann::json;

namespace {

std::string code(const std::string& s) {
  return "`" + s + "`";
}

std::string mib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", double(bytes) / (1024.0 * 1024.0));
  return buf;
}

std::string cell_value(const json& doc, const std::string& pointer) {
  const json::json_pointer p(pointer);
  if (!doc.contains(p)) return "";
  const json& v = doc.at(p);
  if (v.is_object()) return "";
  return code(v.dump());
}

std::string key_table() {
  const json models[] = {pccx::config::to_json_as(llmtest::gemma()),
                         pccx::config::to_json_as(llmtest::gemma_doc()),
                         pccx::config::to_json_as(llmtest::tiny())};
  std::string t =
      "| Key | Type | Constraint | Meaning | Why this range | gemma3n-e4b | gemma3n-e4b-pccx-doc | "
      "tiny |\n"
      "|---|---|---|---|---|---|---|---|\n";
  for (const auto& k : pccx::config::describe_keys_as<model_config>()) {
    t += "| " + code(k.pointer) + " | " + k.type + " | " + k.constraint + " | " + k.doc + " | " +
         k.range_reason + " |";
    for (const json& m : models) t += " " + cell_value(m, k.pointer) + " |";
    t += "\n";
  }
  return t;
}

std::string matrix_table() {
  const model_config m = llmtest::gemma();
  std::string t =
      "| Matrix | N x K | INT4 bytes | Record bytes | Stored bytes (N records) |\n"
      "|---|---|---:|---:|---:|\n";
  auto add = [&](const matrix_shape& s, const std::string& label) {
    const weight_bytes b = matrix_bytes(m, s);
    t += "| " + label + " | " + grouped(s.rows) + " x " + grouped(s.cols) + " | " +
         grouped(b.int4) + " | " + grouped(weight_record_bytes(m.weights, s.cols)) + " | " +
         grouped(b.records) + " |\n";
  };
  for (const auto& s : layer_matrices(m, 0)) add(s, code(s.name));
  for (const auto& s : entry_matrices(m))
    if (s.name == "altup_proj.1" || s.name == "ple_model_proj")
      add(s, code(s.name == "altup_proj.1" ? "altup_proj.1..3" : s.name));
  for (const auto& s : exit_matrices(m))
    if (s.name == "altup_unproj.1" || s.name == "lm_head")
      add(s, code(s.name == "altup_unproj.1" ? "altup_unproj.1..3" : s.name));
  return t;
}

std::string totals_table() {
  const model_config m = llmtest::gemma();
  const weight_bytes storing = layer_weight_bytes(m, 0), shared = layer_weight_bytes(m, 20);
  weight_bytes layers;
  for (uint32_t l = 0; l < m.layers; ++l) layers += layer_weight_bytes(m, l);
  weight_bytes altup, ple_proj, lm;
  for (const auto& s : entry_matrices(m))
    (s.name == "ple_model_proj" ? ple_proj : altup) += matrix_bytes(m, s);
  for (const auto& s : exit_matrices(m)) (s.name == "lm_head" ? lm : altup) += matrix_bytes(m, s);
  const weight_bytes all = total_weight_bytes(m), token = weight_bytes_per_token(m);

  std::string t =
      "| Quantity | INT4 values, bytes | Stored records, bytes | pccx digest (INT4) |\n"
      "|---|---:|---:|---|\n";
  auto row = [&](const std::string& q, const std::string& i4, const std::string& rec,
                 const std::string& digest) {
    t += "| " + q + " | " + i4 + " | " + rec + " | " + digest + " |\n";
  };
  auto wb = [&](const std::string& q, const weight_bytes& b, const std::string& digest) {
    row(q, grouped(b.int4), grouped(b.records), digest);
  };
  wb("storing layer (0-19)", storing, "56,229,888 (no AltUp router)");
  wb("shared layer (20-34)", shared, "55,181,312 (no AltUp router)");
  wb("35 layers", layers, "1,952,317,440");
  wb("AltUp projections and unprojections (6)", altup, "12,582,912");
  wb("`ple_model_proj`", ple_proj, "9,175,040");
  wb("LM head = tied embedding", lm, "268,697,600");
  wb("all matrices", all, "");
  wb("read per token (+ embedding row, per-layer embedding row)", token,
     "\"2.243 GB\" (its rows add up to 2,242,778,496)");
  row("read per token, W_down skipped on layers 0-9 (expected)",
      grouped(uint64_t(int4_bytes_per_token_down_skipped(m) + 0.5)), "", "\"2.083 GB\"");
  row("per-layer embedding table (in DDR; one row read per token)", "",
      grouped(ple_table_bytes(m)) + " (" + grouped(m.per_layer_input.vocab) + " x " +
          grouped(ple_row_bytes(m)) + ")",
      "");
  row("BF16 parameters (norms, AltUp coefficients)", "", grouped(vector_param_bytes(m)),
      "excluded (\"scales and FP32 norms, ≈ 0.2 MB/layer\")");
  return t;
}

std::string macs_table() {
  const model_config rel = llmtest::gemma(), doc = llmtest::gemma_doc();
  std::string t =
      "| Quantity | MACs per token | pccx digest |\n"
      "|---|---:|---|\n";
  t += "| matrices, dense | " + grouped(weight_macs_per_token(rel)) + " | 4.486 G |\n";
  t += "| matrices, W_down skipped on layers 0-9 (expected) | " +
       grouped(uint64_t(weight_macs_per_token_down_skipped(rel) + 0.5)) + " | 4.167 G |\n";
  for (uint64_t L : {1024ull, 8192ull, 32768ull}) {
    t += "| attention at " + std::to_string(L / 1024) + "K, pccx-doc / as released | " +
         grouped(attention_macs_per_token(doc, L)) + " / " +
         grouped(attention_macs_per_token(rel, L)) + " | 35 x 4,096 x L |\n";
  }
  return t;
}

kv::kv_format format(kv::kv_kind kind, uint32_t group = 0, uint32_t bits = 4) {
  kv::kv_format f;
  f.kind = kind;
  f.head_dim = 256;
  f.group = group;
  f.bits = bits;
  return f;
}

std::string kv_table() {
  const model_config rel = llmtest::gemma(), doc = llmtest::gemma_doc();
  const kv::kv_format formats[] = {
      format(kv::kv_kind::fp16),         format(kv::kv_kind::int8, 256),
      format(kv::kv_kind::int8),         format(kv::kv_kind::int4, 32),
      format(kv::kv_kind::int4),         format(kv::kv_kind::rotated, 0, 4),
      format(kv::kv_kind::rotated, 0, 3)};
  std::string t =
      "| K and V format | B/token/layer | B/token (20 layers) | variant | read/token 1K | 8K | "
      "32K | held at 32K |\n"
      "|---|---:|---:|---|---:|---:|---:|---:|\n";
  for (const auto& f : formats) {
    const kv_formats kv{f, f};
    for (const model_config* m : {&doc, &rel}) {
      const bool first = m == &doc;
      t += "| " + (first ? code(f.name()) : "") + " | " +
           (first ? grouped(kv_bytes_per_token_per_layer(rel, kv)) : "") + " | " +
           (first ? grouped(kv_bytes_per_token(rel, kv)) : "") + " | " +
           (first ? "pccx-doc" : "as released") + " | ";
      for (uint64_t L : {1024ull, 8192ull, 32768ull})
        t += grouped(kv_read_bytes_per_token(*m, kv, L)) + " (" +
             mib(kv_read_bytes_per_token(*m, kv, L)) + " MiB) | ";
      t += grouped(kv_cache_bytes(*m, kv, 32768)) + " |\n";
    }
  }
  return t;
}

std::string plan_block() {
  const model_config rel = llmtest::gemma(), doc = llmtest::gemma_doc();
  std::string t = "As released, FP16 K and V, max_tokens 32,768, DDR 4 GiB at 0x0:\n\n";
  const ddr_plan p = plan_ddr(rel, kv_fp16(rel), 32768, 0, llmtest::kKv260Ddr);
  t += plan_summary_markdown(p);
  t += "\nThe regions of layer 0 and of the matrices outside the layers (same plan):\n\n";
  t += plan_regions_markdown(p, {-1, 0});
  t += "\npccx-doc variant, FP16, max_tokens 8,192:\n\n";
  t += plan_summary_markdown(plan_ddr(doc, kv_fp16(doc), 8192, 0, llmtest::kKv260Ddr));
  t += "\nLargest max_tokens that fits the 4 GiB (`largest_fitting_cap`):\n\n";
  t += "| K and V format | pccx-doc | as released |\n|---|---:|---:|\n";
  for (const auto& f : {format(kv::kv_kind::fp16), format(kv::kv_kind::int8, 256),
                        format(kv::kv_kind::int4, 32), format(kv::kv_kind::rotated, 0, 3)}) {
    const kv_formats kv{f, f};
    t += "| " + code(f.name()) + " | " +
         grouped(largest_fitting_cap(doc, kv, 0, llmtest::kKv260Ddr)) + " | " +
         grouped(largest_fitting_cap(rel, kv, 0, llmtest::kKv260Ddr)) + " |\n";
  }
  return t;
}

std::string error_block() {
  const model_config doc = llmtest::gemma_doc();
  std::string msg;
  try {
    plan_ddr(doc, kv_fp16(doc), 32768, 0, llmtest::kKv260Ddr);
  } catch (const ddr_plan_error& e) {
    msg = e.what();
  }
  return "```\n" + msg + "\n```\n";
}

std::string notes_block() {
  std::string t;
  for (const auto& n : shape_field_notes(llmtest::gemma())) t += "- " + n + "\n";
  return t;
}

void check_block(const std::string& name, const std::string& want) {
  pccx::test::check_doc_block(llmtest::source_path("docs/reference/model-config.md"), name,
                              "tests/platform/workload/llm/test_model_config_docs.cpp", "LlmDocs",
                              want);
}

}  // namespace

TEST(LlmDocs, EveryNumericKeyHasAReasonedRange) {
  for (const auto& line :
       pccx::config::unexplained_ranges(pccx::config::describe_keys_as<model_config>()))
    ADD_FAILURE() << line;
}

TEST(LlmDocs, KeyTable) {
  check_block("model-keys", key_table());
}
TEST(LlmDocs, MatrixTable) {
  check_block("model-matrices", matrix_table());
}
TEST(LlmDocs, TotalsTable) {
  check_block("model-totals", totals_table());
}
TEST(LlmDocs, MacsTable) {
  check_block("model-macs", macs_table());
}
TEST(LlmDocs, KvTable) {
  check_block("model-kv", kv_table());
}
TEST(LlmDocs, ShapeNotes) {
  check_block("model-shape-notes", notes_block());
}
TEST(LlmDocs, Plan) {
  check_block("model-plan", plan_block());
}
TEST(LlmDocs, PlanError) {
  check_block("model-plan-error", error_block());
}
