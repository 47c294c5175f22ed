// Loading the configuration: compiled-in defaults, then each --config file
// (later wins, objects deep-merged), then each --set override, then binding
// into typed structs with all checks. Every problem found is reported in one
// config_error.
//
// The *_as templates work for any root struct with a visit() method, so a
// subsystem with its own file (say a model description under
// configs/models/) reuses the same layering, checks and messages:
//   auto model = pccx::config::load_as<model_config>({{path}, {}});
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "infra/config/config_error.h"
#include "infra/config/config_schema.h"
#include "infra/config/config_visitors.h"
#include "infra/config/layered_json.h"

namespace pccx::config {

struct config_layers {
  std::vector<std::string> files;  // --config FILE, in command-line order
  std::vector<std::string> sets;   // --set a.b.c=value, applied after all files
};

// ---- generic building blocks ------------------------------------------------

// Binds an assembled document to Root: types, ranges, unknown keys, then
// each struct's validate(). Throws config_error with every problem found.
template <class Root>
Root bind_as(const layered_json& doc, const Root& start = Root{}) {
  diagnostics diag(doc.locator());
  Root out = start;
  decode_struct(doc.doc(), out, "", diag);
  diag.throw_if_any();
  return out;
}

// defaults -> files -> sets -> bind. A default that violates its own range
// is reported against "built-in defaults", which makes a default that is out
// of range (e.g. 0 with range(1, ...)) act as a required key.
template <class Root>
Root load_as(const config_layers& layers, const Root& defaults = Root{}) {
  layered_json doc(encode_struct<nlohmann::json>(defaults));
  diagnostics diag(doc.locator());
  for (const auto& file : layers.files) doc.merge_file(file, diag);
  for (const auto& set : layers.sets) doc.apply_set(set, diag);
  // A layer that could not be read would make later checks misleading.
  diag.throw_if_any();
  return bind_as<Root>(doc, defaults);
}

template <class Root>
nlohmann::json to_json_as(const Root& root) {
  return encode_struct<nlohmann::json>(root);
}

// Pretty JSON in declaration order, ending in a newline.
template <class Root>
std::string dump_text_as(const Root& root) {
  return encode_struct<nlohmann::ordered_json>(root).dump(
             2, ' ', false, nlohmann::json::error_handler_t::replace) +
         "\n";
}

template <class Root>
void dump_as(const Root& root, const std::string& path) {
  write_text_file(dump_text_as(root), path);
}

template <class Root>
std::vector<key_info> describe_keys_as() {
  return describe_struct<Root>();
}

// Markdown table of key_info rows (the reference in docs/reference/configuration.md).
std::string key_table_markdown(const std::vector<key_info>& keys);

// Numeric keys (numbers and arrays of numbers) that lack a lower or an upper
// bound or the reason for them, as "POINTER: what is missing" lines; the
// schema's own check that every range means something.
std::vector<std::string> unexplained_ranges(const std::vector<key_info>& keys);

}  // namespace pccx::config
