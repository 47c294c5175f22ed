// DMA coalescing (dma.coalesce_blocks) is a speed optimisation: a reading
// channel carries up to 8 blocks in one DDR transaction and times each block
// as it would have moved on its own. These tests decode one Gemma 3n E4B
// token in timing mode with coalescing (the default) and without it
// (dma.coalesce_blocks = 1), and require the same token latency within
// 0.5 %, the same DDR bytes per class, and far fewer DDR transactions (so a
// change that silently stopped coalescing fails too).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "e2e_util.h"

namespace e2e {
namespace {

struct cell {
  const char* name;
  int context;
  bool int4;
};

void PrintTo(const cell& c, std::ostream* os) {
  *os << c.name;
}

struct decoded {
  double latency_ns = 0;
  json ddr_bytes;
  double transactions = 0;
};

class Coalescing : public E2E, public ::testing::WithParamInterface<cell> {
 protected:
  decoded decode(const std::string& tag, const std::vector<std::string>& extra) {
    const cell& c = GetParam();
    std::vector<std::string> args = {
        "decode",
        "--model",
        std::string(PCCX_SOURCE_DIR) + "/configs/models/gemma3n-e4b.json",
        "--context",
        std::to_string(c.context),
        "--tokens",
        "1",
        "--set",
        "simulation.mode=timing",
        "--json",
        path(tag + ".json"),
        "--out",
        path(tag)};
    if (c.int4)
      for (const char* s : {"npu.kv.key.kind=int4", "npu.kv.key.group=0", "npu.kv.value.kind=int4",
                            "npu.kv.value.group=32"})
        args.insert(args.end(), {"--set", s});
    args.insert(args.end(), extra.begin(), extra.end());
    const proc_result r = vp(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    decoded d;
    const json doc = json::parse(read_file(path(tag + ".json")));
    d.latency_ns = doc.at("latency_ns").at(0).get<double>();
    d.ddr_bytes = doc.at("ddr_bytes");
    d.transactions =
        json::parse(read_file(path(tag) + "/speed.json")).at("ddr_transactions").get<double>();
    return d;
  }
};

TEST_P(Coalescing, LeavesTheTokenLatencyUnchanged) {
  const decoded fine = decode("fine", {"--set", "dma.coalesce_blocks=1"});
  const decoded coarse = decode("coalesced", {});
  ASSERT_GT(fine.latency_ns, 0.0);
  const double change = std::fabs(coarse.latency_ns - fine.latency_ns) / fine.latency_ns;
  EXPECT_LT(change, 0.005) << "one block per transaction: " << fine.latency_ns
                           << " ns, coalesced: " << coarse.latency_ns << " ns";
  EXPECT_EQ(coarse.ddr_bytes, fine.ddr_bytes);
  EXPECT_LT(coarse.transactions, fine.transactions / 2);
  RecordProperty("latency_change_ppm", std::to_string(change * 1e6));
  RecordProperty("transactions",
                 std::to_string(fine.transactions) + " -> " + std::to_string(coarse.transactions));
}

INSTANTIATE_TEST_SUITE_P(GemmaToken, Coalescing,
                         ::testing::Values(cell{"fp16_1k", 1024, false},
                                           cell{"fp16_32k", 32768, false},
                                           cell{"int4_8k", 8192, true}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace e2e
