// The direct GEMV -> SFU path from firmware: a GEMV streams its weights from
// DDR, a GELU over its result follows. Chained, the SFU consumes each result
// word as the GEMV produces it and retires right after the GEMV; unchained
// (npu.sfu.gemv_chaining = false) it starts only when the GEMV retires. Both
// match the same reference.
#include <gtest/gtest.h>

#include <cstring>

#include "npu/units/bf16.h"
#include "pccx_dma.h"
#include "pccx_host_mem.h"
#include "platform_test_util.h"
#include "sfu_reference.h"
#include "uCA_v1_api.h"

using namespace pccx;
using namespace pccx::test;

namespace {

constexpr unsigned kN = 512, kK = 256;
constexpr double kClockNs = 2.5;
constexpr uint32_t kAct = 0x40, kGate = 0x1000, kOut = 0x2000;  // L2 words
uint16_t g_y[kN];
int g_x[kK];      // activations: integers with max |x| = 127 quantise exactly
int g_w[kN][kK];  // INT4 weights

void make_problem() {
  for (unsigned k = 0; k < kK; ++k) g_x[k] = static_cast<int>((k * 29) % 33) - 16;
  g_x[7] = 127;
  for (unsigned n = 0; n < kN; ++n)
    for (unsigned k = 0; k < kK; ++k) {
      const unsigned v = k % 2 ? (n * 11 + (k - 1) * 7 + 3) % 16 : (n * 5 + k * 3) % 16;
      g_w[n][k] = v >= 8 ? static_cast<int>(v) - 16 : static_cast<int>(v);
    }
}

int gemv_then_gelu(void) {
  static uint8_t rows[2][kN / 2][kK / 2];
  for (unsigned n = 0; n < kN; ++n)
    for (unsigned k = 0; k < kK; k += 2)
      rows[n % 2][n / 2][k / 2] =
          static_cast<uint8_t>((g_w[n][k] & 0xF) | ((g_w[n][k + 1] & 0xF) << 4));
  uint16_t act[kK];
  for (unsigned k = 0; k < kK; ++k) act[k] = npu::bf16::from_float(static_cast<float>(g_x[k]));
  pccx_host_write(0x50000000ull, rows[0], sizeof rows[0]);
  pccx_host_write(0x50100000ull, rows[1], sizeof rows[1]);
  pccx_host_write(0x50200000ull, act, sizeof act);

  uca_memset(0, 2, 1, 1, kK);   // activations
  uca_memset(1, 3, 1, kN, kK);  // weights: M=1, N, K
  uca_memset(0, 4, 1, 1, kN);   // results
  pccx_dma_submit(PCCX_DMA_ACP_FMAP, 0x50200000ull, sizeof act, 1);
  uca_memcpy(UCA_ROUTE_HOST_TO_L2, kAct, 0, 2, 0);
  pccx_dma_submit(PCCX_DMA_HP2, 0x50000000ull, sizeof rows[0], 2);
  pccx_dma_submit(PCCX_DMA_HP3, 0x50100000ull, sizeof rows[1], 3);
  uca_gemv(kGate, kAct, 0, 2, 3, 0);
  uca_cvo(UCA_CVO_GELU, kGate, kOut, kN, 0, 1);
  pccx_dma_submit(PCCX_DMA_ACP_RESULT, 0x50300000ull, sizeof g_y, 4);
  uca_memcpy(UCA_ROUTE_L2_TO_HOST, 0, kOut, 4, 0);
  if (uca_sync(1000000) != 0) return 2;
  pccx_dma_status st;
  if (pccx_dma_wait_status(PCCX_DMA_ACP_RESULT, &st, 1000) != PCCX_DMA_OK) return 3;
  pccx_host_read(0x50300000ull, g_y, sizeof g_y);
  return 0;
}

struct chain_run {
  vp::run_result result;
  std::vector<uint16_t> y;
  double gemv_retire_ns = 0, sfu_start_ns = 0, sfu_retire_ns = 0;
};

chain_run run(bool chaining) {
  config::platform_config cfg;
  cfg.npu.sfu.gemv_chaining = chaining;
  cfg.trace.instructions = temp_path(chaining ? "chain_on.jsonl" : "chain_off.jsonl");
  std::memset(g_y, 0, sizeof g_y);
  chain_run c;
  c.result = vp::run_simulation(cfg, test_firmware(&gemv_then_gelu, "chain"), nullptr);
  c.y.assign(g_y, g_y + kN);
  for (const auto& rec : read_jsonl(cfg.trace.instructions)) {
    if (rec.value("unit", "") == "gemv") c.gemv_retire_ns = rec["retire_ns"].get<double>();
    if (rec.value("unit", "") == "sfu") {
      c.sfu_start_ns = rec["start_ns"].get<double>();
      c.sfu_retire_ns = rec["retire_ns"].get<double>();
    }
  }
  return c;
}

uint64_t counter(const vp::run_result& r, const std::string& name) {
  for (const auto& [n, v] : r.counters)
    if (n == name) return v;
  ADD_FAILURE() << "no counter " << name;
  return 0;
}

}  // namespace

// GELU of the GEMV's BF16 results: the GEMV result is the integer dot
// product rounded once to BF16; GELU is within 1 BF16 ulp (docs/sfu.md).
void expect_gelu_of_gemv(const std::vector<uint16_t>& y) {
  unsigned positive = 0;
  for (unsigned n = 0; n < kN; ++n) {
    int64_t acc = 0;
    for (unsigned k = 0; k < kK; ++k) acc += int64_t{g_w[n][k]} * g_x[k];
    const double gate = npu::bf16::to_float(npu::bf16::from_float(static_cast<float>(acc)));
    EXPECT_TRUE(within_ulp(y[n], sfu_ref(UCA_CVO_GELU, gate), 1))
        << "row " << n << " gate " << gate;
    positive += acc > 0;
  }
  EXPECT_GT(positive, kN / 8) << "the problem exercises both GELU branches";
}

TEST(GemvSfuChain, ChainedGeluFinishesWithTheGemv) {
  make_problem();
  const chain_run on = run(true);
  ASSERT_EQ(on.result.exit_code, 0) << on.result.message;
  expect_gelu_of_gemv(on.y);
  EXPECT_EQ(counter(on.result, "sfu_chained_instructions"), 1u);
  // The SFU starts while the GEMV runs and ends within its own pipeline
  // depth (GELU 12 + output register + hop + write) of the GEMV.
  EXPECT_LT(on.sfu_start_ns, on.gemv_retire_ns);
  EXPECT_LT(on.sfu_retire_ns - on.gemv_retire_ns, 32 * kClockNs);
  EXPECT_EQ(counter(on.result, "sfu_hazard_stall_cycles"), 0u);
}

TEST(GemvSfuChain, UnchainedGeluWaitsForTheGemv) {
  make_problem();
  const chain_run off = run(false);
  ASSERT_EQ(off.result.exit_code, 0) << off.result.message;
  expect_gelu_of_gemv(off.y);
  EXPECT_EQ(counter(off.result, "sfu_chained_instructions"), 0u);
  // The SFU waits for the GEMV (a RAW hazard), then streams all N elements.
  EXPECT_GE(off.sfu_start_ns, off.gemv_retire_ns);
  EXPECT_GE(off.sfu_retire_ns - off.gemv_retire_ns, kN * kClockNs);
  EXPECT_GT(counter(off.result, "sfu_hazard_stall_cycles"), 0u);
}
