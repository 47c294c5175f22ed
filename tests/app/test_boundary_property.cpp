// The boundary between the host's checks and what runs, as a property: a
// seeded generator of model files (the tiny model with its dimensions
// drawn from small ranges around and beyond the decode program's limits)
// and platform settings (in-range values of keys a what-if study turns);
// every case is either refused by the host (exit code 2) or decodes one
// token to the end (exit code 0). Any other outcome fails with the case's
// reproducer. The suite runs it for PCCX_PROPERTY_SECONDS (default 20);
// scripts/fuzz.sh runs it longer.
#include <chrono>
#include <random>
#include <regex>
#include <set>

#include "e2e_util.h"

namespace e2e {
namespace {

using BoundaryProperty = E2E;

struct generated_case {
  json model;
  std::vector<std::string> sets;
};

generated_case generate(std::mt19937_64& rng, const json& base) {
  auto pick = [&](std::initializer_list<int64_t> values) {
    std::vector<int64_t> v(values);
    return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
  };
  auto coin = [&](double p) { return std::bernoulli_distribution(p)(rng); };
  generated_case c;
  c.model = base;
  json& m = c.model;
  if (coin(0.5)) m["layers"] = pick({1, 2, 5, 10, 11});
  if (coin(0.5)) m["hidden"] = pick({8, 16, 24, 64, 96, 128});
  if (coin(0.5)) m["ffn"] = pick({8, 32, 100, 128, 256});
  if (coin(0.5)) m["vocab"] = pick({16, 100, 512, 1000});
  if (coin(0.4)) m["attention"]["heads"] = pick({1, 2, 3, 4, 8});
  if (coin(0.4)) m["attention"]["kv_heads"] = pick({1, 2, 3});
  if (coin(0.4)) m["attention"]["head_dim"] = pick({8, 16, 24, 32, 48, 64});
  if (coin(0.3)) m["attention"]["sliding_window"] = pick({0, 1, 4, 8, 64});
  if (coin(0.3)) m["attention"]["kv_shared_from"] = pick({0, 1, 5, 10});
  if (coin(0.3)) m["per_layer_input"]["dim"] = pick({0, 8, 12, 16, 32});
  if (coin(0.3)) m["altup"]["streams"] = pick({1, 2, 4, 8});
  if (coin(0.2)) m["altup"]["active_stream"] = pick({0, 1, 3});
  if (coin(0.3)) m["laurel_rank"] = pick({0, 8, 16});
  if (coin(0.3)) m["sparse_ffn_layers"] = pick({0, 1, 3});
  if (coin(0.2)) m["weights"]["scale_group"] = pick({0, 16, 32});
  if (coin(0.3)) c.sets.push_back("npu.gemv.weight_fifos=" + std::string(coin(0.5) ? "[0,1,2,3]" : "[2]"));
  if (coin(0.3)) c.sets.push_back("npu.gemv_cores=" + std::to_string(pick({1, 2, 4})));
  if (coin(0.2)) c.sets.push_back("npu.sfu.max_length=" + std::to_string(pick({64, 512, 2048})));
  if (coin(0.2)) c.sets.push_back("dma.block_bytes=" + std::to_string(pick({64, 256, 4096})));
  if (coin(0.2)) c.sets.push_back("clocks.core_mhz=" + std::to_string(pick({100, 400, 1000})));
  if (coin(0.2)) c.sets.push_back("npu.l2.words=" + std::to_string(pick({4096, 16384, 114688})));
  return c;
}

// A refusal's first line (its first two after "invalid configuration:")
// with the numbers and paths masked: one kind of refusal.
std::string refusal_kind(const std::string& err) {
  std::size_t end = err.find('\n');
  if (err.compare(0, end, "pccx-vp: invalid configuration:") == 0 && end != std::string::npos)
    end = err.find('\n', end + 1);
  std::string line = err.substr(0, end);
  static const std::regex path("/[^ :]*model-[0-9]+\\.json");
  line = std::regex_replace(line, path, "MODEL");
  static const std::regex number("[0-9][0-9,.]*");
  return std::regex_replace(line, number, "N");
}

TEST_F(BoundaryProperty, EveryCaseIsRefusedOrRuns) {
  const json base = json::parse(read_file(std::string(PCCX_SOURCE_DIR) + "/configs/models/tiny.json"));
  const char* env = std::getenv("PCCX_PROPERTY_SECONDS");
  const double budget_s = env ? std::atof(env) : 20.0;
  std::mt19937_64 rng(20261206);
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t cases = 0, ran = 0;
  std::set<std::string> refusals;
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < budget_s) {
    const generated_case c = generate(rng, base);
    const std::string model = path("model-" + std::to_string(cases) + ".json");
    write_file(model, c.model.dump(2));
    std::vector<std::string> args = {"decode", "--model", model, "--context", "8", "--tokens",
                                     "1", "--set", "simulation.mode=timing"};
    for (const auto& s : c.sets) args.insert(args.end(), {"--set", s});
    const auto r = vp(args);
    ++cases;
    if (r.exit_code == 2) {
      refusals.insert(refusal_kind(r.err));
      fs::remove(model);
      continue;
    }
    if (r.exit_code != 0) {
      std::string repro = "pccx-vp";
      for (const auto& a : args) repro += " " + a;
      ADD_FAILURE() << "case " << cases << " neither refused nor run:\n  " << repro
                    << "\n(model kept at " << model << ")\n" << describe(r);
      break;
    }
    ++ran;
    fs::remove(model);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("boundary property: %zu cases in %.1f s (%.1f per second), %zu ran, %zu refused, "
              "%zu distinct refusals\n",
              cases, s, cases / s, ran, cases - ran, refusals.size());
  for (const auto& k : refusals) std::printf("  refusal: %s\n", k.c_str());
  EXPECT_GT(ran, 0u);
  EXPECT_GT(cases - ran, 0u);
}

}  // namespace
}  // namespace e2e
