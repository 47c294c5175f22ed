#include "platform/app/kv_accuracy_command.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "infra/io/output_file.h"
#include "models/kv/kv_accuracy.h"
#include "platform/vp/top/simulation.h"

namespace pccx::app {

namespace {

void write_file(const std::string& dir, const std::string& name, const std::string& text) {
  io::write_output(dir + "/" + name, text);
}

nlohmann::ordered_json to_json(const kv::kv_accuracy_report& r) {
  nlohmann::ordered_json j;
  const auto& h = r.options.head;
  j["synthetic"] = {{"head_dim", h.head_dim},   {"tokens", h.tokens},
                    {"queries", h.queries},     {"heads", r.options.heads},
                    {"seed", h.seed},           {"rope_theta", h.rope_theta},
                    {"logit_std", h.logit_std}, {"outlier_channels", h.outlier_channels}};
  for (const auto& f : r.formats)
    j["formats"].push_back({{"strategy", f.strategy},
                            {"key_format", f.key_format},
                            {"value_format", f.value_format},
                            {"bytes_per_token_layer", f.bytes_per_token_layer},
                            {"key_bits", f.key_bits},
                            {"value_bits", f.value_bits},
                            {"key_rel_mse", f.key_rel_mse},
                            {"value_rel_mse", f.value_rel_mse},
                            {"logit_rmse", f.logit_rmse},
                            {"output_cosine", f.output_cosine},
                            {"output_min_cosine", f.output_min_cosine},
                            {"output_rel_error", f.output_rel_error}});
  for (const auto& c : r.rotated)
    j["rotated"].push_back({{"bits", c.bits},
                            {"sketch", c.sketch},
                            {"measured", c.measured},
                            {"reference", c.reference},
                            {"upper", c.upper}});
  for (const auto& w : r.windows)
    j["windows"].push_back({{"sinks", w.sink},
                            {"window", w.window},
                            {"tokens", w.tokens},
                            {"mass_kept", w.mass_kept},
                            {"min_mass_kept", w.min_mass_kept}});
  return j;
}

}  // namespace

int run_kv_accuracy(const cli_options& opts, std::ostream& out) {
  kv::kv_accuracy_options o;
  o.head.tokens = opts.kv_tokens;
  o.head.seed = opts.kv_seed;
  o.heads = opts.kv_heads;
  const kv::kv_accuracy_report r = kv::measure_kv_accuracy(o);
  const std::string md = kv::to_markdown(r);
  out << md;
  if (!opts.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(opts.out_dir, ec);
    if (ec) throw vp::input_error("cannot create " + opts.out_dir + " (--out): " + ec.message());
    write_file(opts.out_dir, "kv_accuracy.md", md);
    write_file(opts.out_dir, "kv_formats.csv", kv::formats_csv(r));
    write_file(opts.out_dir, "kv_rotated.csv", kv::rotated_csv(r));
    write_file(opts.out_dir, "kv_windows.csv", kv::windows_csv(r));
    write_file(opts.out_dir, "kv_accuracy.json", to_json(r).dump(2) + "\n");
  }
  return 0;
}

}  // namespace pccx::app
