// Speed of the command path: the static decoder alone, and the whole
// platform (firmware CPU -> MMIO -> CMD_IN -> command processor) issuing
// MEMSETs. Rates are wall-clock; the platform benchmark also reports how
// much simulated time one wall second covers.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <random>

#include "infra/log/logger.h"
#include "models/npu/isa/instruction.h"
#include "pccx_isa_encode.h"
#include "platform/vp/top/simulation.h"
#include "uCA_v1_api.h"

namespace {

void BM_Decode(benchmark::State& state) {
  std::mt19937_64 rng(1);
  std::vector<uint64_t> words(4096);
  for (auto& w : words) {  // random bits under a defined opcode (0x0..0x4)
    const uint64_t bits = rng();
    const uint32_t op = static_cast<uint32_t>(rng() % 5);
    w = (bits & ~pccx_encode_opcode(0xF)) | pccx_encode_opcode(op);
  }
  const pccx::isa::decode_limits limits;
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(pccx::isa::decode(words[i++ & 4095], limits));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Decode);

constexpr int kMemsets = 200000;

int issue_many_memsets(void) {
  for (int i = 0; i < kMemsets; ++i)
    uca_memset(static_cast<uint8_t>(i & 1), static_cast<uint8_t>(i & 63), 1, 2, 3);
  return uca_sync(1000000) == 0 ? 0 : 1;
}

void BM_PlatformMemsetIssue(benchmark::State& state) {
  pccx::vp::firmware_image fw;
  fw.name = "issue_many_memsets";
  fw.entry = &issue_many_memsets;
  pccx::vp::run_result r;
  for (auto _ : state) {
    r = pccx::vp::run_simulation(pccx::config::platform_config{}, fw, nullptr);
  }
  if (r.exit_code != 0) state.SkipWithError(r.message.c_str());
  state.counters["instructions_per_wall_s"] =
      benchmark::Counter(static_cast<double>(r.instructions_retired) / r.wall_time_s);
  state.counters["sim_ns_per_wall_s"] = benchmark::Counter(r.sim_time_ns / r.wall_time_s);
  state.counters["mmio_accesses_per_wall_s"] =
      benchmark::Counter((2.0 * kMemsets + 1) / r.wall_time_s);
}
BENCHMARK(BM_PlatformMemsetIssue)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
