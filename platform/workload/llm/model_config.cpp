#include "platform/workload/llm/model_config.h"

#include <algorithm>
#include <string>

namespace pccx::llm {

namespace {

std::string num(uint64_t v) {
  return std::to_string(v);
}

// Vectors of these widths live in the L2 as whole 128-bit words (8 BF16).
void check_word_multiple(config::validator& check, const std::string& field, uint32_t value) {
  if (value % 8 != 0)
    check.fail(field, "expected a multiple of 8 (8 BF16 values fill one 128-bit L2 word), found " +
                          num(value));
}

}  // namespace

bool model_config::is_global(uint32_t layer) const {
  const auto& a = attention;
  if (a.global_every != 0 && layer % a.global_every == a.global_offset) return true;
  return std::find(a.global_layers.begin(), a.global_layers.end(), layer) != a.global_layers.end();
}

uint32_t model_config::storing_layers() const {
  return attention.kv_shared_from == 0 ? layers : std::min(attention.kv_shared_from, layers);
}

uint32_t model_config::kv_source(uint32_t layer) const {
  const uint32_t storing = storing_layers();
  if (layer < storing) return layer;
  const bool global = is_global(layer);
  for (uint32_t j = storing; j-- > 0;)
    if (is_global(j) == global) return j;
  return layers;
}

uint64_t model_config::attention_span(uint32_t layer, uint64_t context) const {
  if (is_global(layer) || attention.sliding_window == 0) return context;
  return std::min<uint64_t>(context, attention.sliding_window);
}

void model_config::validate(config::validator& check) const {
  if (name.empty()) check.fail("name", "expected a non-empty model name, found \"\"");
  check_word_multiple(check, "hidden", hidden);
  check_word_multiple(check, "ffn", ffn);
  if (!ffn_per_layer.empty() && ffn_per_layer.size() != layers)
    check.fail({"ffn_per_layer", "layers"}, "expected no entries or one per layer (" + num(layers) +
                                                "), found " + num(ffn_per_layer.size()));
  for (std::size_t i = 0; i < ffn_per_layer.size(); ++i)
    check_word_multiple(check, "ffn_per_layer/" + num(i), ffn_per_layer[i]);

  const auto& a = attention;
  if (a.heads % a.kv_heads != 0)
    check.fail({"attention/heads", "attention/kv_heads"},
               "expected heads to be a multiple of kv_heads (" + num(a.kv_heads) + "), found " +
                   num(a.heads));
  check_word_multiple(check, "attention/head_dim", a.head_dim);
  if (a.global_every != 0 && a.global_offset >= a.global_every)
    check.fail({"attention/global_offset", "attention/global_every"},
               "expected global_offset below global_every (" + num(a.global_every) + "), found " +
                   num(a.global_offset));
  if (a.global_every == 0 && a.global_offset != 0)
    check.fail(
        "attention/global_offset",
        "expected 0 when global_every is 0 (no periodic pattern), found " + num(a.global_offset));
  for (std::size_t i = 0; i < a.global_layers.size(); ++i) {
    const std::string field = "attention/global_layers/" + num(i);
    if (a.global_layers[i] >= layers)
      check.fail(field, "expected a layer index below layers (" + num(layers) + "), found " +
                            num(a.global_layers[i]));
    for (std::size_t j = 0; j < i; ++j)
      if (a.global_layers[j] == a.global_layers[i])
        check.fail(field, "layer " + num(a.global_layers[i]) + " is listed twice");
  }
  if (a.kv_shared_from > layers) {
    check.fail({"attention/kv_shared_from", "layers"},
               "expected a layer index up to layers (" + num(layers) + "; 0 = no sharing), found " +
                   num(a.kv_shared_from));
  } else {
    for (uint32_t i = storing_layers(); i < layers; ++i) {
      if (kv_source(i) < layers) continue;
      const char* kind = is_global(i) ? "global" : "local";
      check.fail({"attention/kv_shared_from", "attention/global_every", "attention/global_offset"},
                 "layer " + num(i) + " (" + kind + ") shares a KV cache but no layer below " +
                     num(storing_layers()) + " is " + kind +
                     "; expected an earlier storing layer of the same kind, found none");
      break;
    }
  }

  const auto& p = per_layer_input;
  if (p.dim != 0) {
    check_word_multiple(check, "per_layer_input/dim", p.dim);
    if (p.vocab == 0)
      check.fail({"per_layer_input/vocab", "per_layer_input/dim"},
                 "expected at least 1 table row when dim is " + num(p.dim) + ", found 0");
  }
  if (altup.active_stream >= altup.streams)
    check.fail({"altup/active_stream", "altup/streams"}, "expected a stream below streams (" +
                                                             num(altup.streams) + "), found " +
                                                             num(altup.active_stream));
  if (laurel_rank != 0) check_word_multiple(check, "laurel_rank", laurel_rank);
  if (sparse_ffn_layers > layers)
    check.fail({"sparse_ffn_layers", "layers"},
               "expected at most layers (" + num(layers) + "), found " + num(sparse_ffn_layers));
}

model_config load_model(const std::string& path, const std::vector<std::string>& sets) {
  return load_model(config::config_layers{{path}, sets});
}

model_config load_model(const config::config_layers& layers) {
  return config::load_as<model_config>(layers);
}

}  // namespace pccx::llm
