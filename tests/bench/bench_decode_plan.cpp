// The host's planning of a decode (DDR plan, parameter block, limits, L2
// layout: what --validate-only runs) against the layer count. Planning is
// linear in the layers; a per-layer search of the whole plan once made it
// quadratic (16,384 layers took 29 s). Models past the decode program's 256
// layers are refused at the end of the check, so the whole path is timed.
#include <benchmark/benchmark.h>

#include <stdexcept>

#include "platform/config/platform_loader.h"
#include "platform/workload/decode_runner.h"
#include "platform/workload/llm/model_config.h"

namespace {

void BM_DecodePlanning(benchmark::State& state) {
  const auto layers = static_cast<uint32_t>(state.range(0));
  pccx::llm::model_config m =
      pccx::llm::load_model(std::string(PCCX_SOURCE_DIR) + "/configs/models/tiny.json");
  m.layers = layers;
  m.attention.kv_shared_from = layers;  // every layer stores its own KV
  const pccx::config::platform_config cfg = pccx::config::load({{}, {"simulation.mode=timing"}});
  pccx::workload::decode_options o;
  o.context = 16;
  o.tokens = 1;
  for (auto _ : state) {
    try {
      pccx::workload::check_decode(cfg, m, o);
    } catch (const std::exception& e) {
      benchmark::DoNotOptimize(e.what());
    }
  }
  state.SetComplexityN(layers);
  state.counters["layers"] = layers;
}
BENCHMARK(BM_DecodePlanning)
    ->RangeMultiplier(4)
    ->Range(256, 16384)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

}  // namespace
