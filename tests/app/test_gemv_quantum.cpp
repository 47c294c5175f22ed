// The GEMV's own quantum (simulation.gemv_quantum_ns, 10 us) is a speed
// setting: the GEMV syncs with the kernel ten times less often than the
// other threads. Its thread frees weight-FIFO space when it pops, so the
// quantum moves when the DMA channels see that space, by up to a quantum
// (docs/results/performance.md). These tests run one Gemma 3n E4B decode
// token and one sampled prefill chunk in timing mode with the GEMV on the
// global quantum (gemv_quantum_ns = 0) and on its own, and require the same
// token latency (time to first token) within 0.5 %, and the same DDR bytes
// per class; the 32K token must move at all, or the setting never reached
// the GEMV.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "e2e_util.h"

namespace e2e {
namespace {

struct cell {
  const char* name;
  std::vector<std::string> args;  // besides the model, the mode and the outputs
  const char* latency;            // the JSON key: latency_ns (its first token) or ttft_ns
  bool moves = false;             // the quantum is known to move this cell's latency
};

void PrintTo(const cell& c, std::ostream* os) {
  *os << c.name;
}

struct timed {
  double latency_ns = 0;
  json ddr_bytes;
};

class GemvQuantum : public E2E, public ::testing::WithParamInterface<cell> {
 protected:
  timed run(const std::string& tag, const std::string& quantum_ns) {
    const cell& c = GetParam();
    std::vector<std::string> args = {
        "decode",
        "--model",
        std::string(PCCX_SOURCE_DIR) + "/configs/models/gemma3n-e4b.json",
        "--set",
        "simulation.mode=timing",
        "--set",
        "simulation.gemv_quantum_ns=" + quantum_ns,
        "--json",
        path(tag + ".json")};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const proc_result r = vp(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const json doc = json::parse(read_file(path(tag + ".json")));
    const json& v = doc.at(c.latency);
    timed t;
    t.latency_ns = v.is_array() ? v.at(0).get<double>() : v.get<double>();
    t.ddr_bytes = doc.at("ddr_bytes");
    return t;
  }
};

TEST_P(GemvQuantum, LeavesTheLatencyWithinHalfAPercent) {
  const timed global = run("global", "0");
  const timed own = run("own", "10000");
  ASSERT_GT(global.latency_ns, 0.0);
  const double change = std::fabs(own.latency_ns - global.latency_ns) / global.latency_ns;
  EXPECT_LT(change, 0.005) << "GEMV on the global quantum: " << global.latency_ns
                           << " ns, on its own 10 us: " << own.latency_ns << " ns";
  EXPECT_EQ(own.ddr_bytes, global.ddr_bytes);
  // The setting reaches the GEMV: where the FIFOs run empty, its quantum
  // shows in the time (-0.017 % for the 32K token).
  if (GetParam().moves) {
    EXPECT_NE(own.latency_ns, global.latency_ns);
  }
  RecordProperty("latency_change_ppm", std::to_string(change * 1e6));
}

INSTANTIATE_TEST_SUITE_P(
    Gemma, GemvQuantum,
    ::testing::Values(
        cell{"decode_fp16_32k", {"--context", "32768", "--tokens", "1"}, "latency_ns", true},
        cell{"decode_int4_8k",
             {"--context", "8192", "--tokens", "1", "--set", "npu.kv.key.kind=int4", "--set",
              "npu.kv.key.group=0", "--set", "npu.kv.value.kind=int4", "--set",
              "npu.kv.value.group=32"},
             "latency_ns"},
        cell{"prefill_chunk_1k",
             {"--context", "1005", "--prompt-tokens", "15", "--chunk", "15", "--tokens", "0",
              "--ring-cap", "1024"},
             "ttft_ns"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace e2e
