// The direct GEMV -> SFU path from firmware: a GEMV streams its weights from
// DDR, a GELU over its result follows. Chained, the SFU consumes each result
// word as the GEMV produces it and retires right after the GEMV; unchained
// (npu.sfu.gemv_chaining = false) it starts only when the GEMV retires. Both
// match the same reference.
#include <gtest/gtest.h>

#include <cstring>

#include "firmware_test_io.h"
#include "models/npu/units/bf16.h"
#include "pccx_dma.h"
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
  const auto rows = gemv_weight_streams(g_w, kN, kK);
  uint16_t act[kK];
  for (unsigned k = 0; k < kK; ++k) act[k] = to_bf16(static_cast<float>(g_x[k]));
  write_ddr(0x50000000ull, rows[0]);
  write_ddr(0x50100000ull, rows[1]);
  pccx_host_write(0x50200000ull, act, sizeof act);

  set_vector_shape(2, kK);         // activations
  set_weight_shape(3, 1, kN, kK);  // weights: M=1, N, K
  set_vector_shape(4, kN);         // results
  ddr_to_l2(0x50200000ull, sizeof act, kAct, 2, 1);
  pccx_dma_submit(PCCX_DMA_HP2, 0x50000000ull, rows[0].size(), 2);
  pccx_dma_submit(PCCX_DMA_HP3, 0x50100000ull, rows[1].size(), 3);
  uca_gemv(kGate, kAct, 0, 2, 3, 0);
  uca_cvo(UCA_CVO_GELU, kGate, kOut, kN, 0, 1);
  l2_to_ddr(kOut, 4, 0x50300000ull, sizeof g_y, 4);
  return read_result(1000000, 0x50300000ull, g_y, sizeof g_y);
}

struct chain_run {
  vp::run_result result;
  std::vector<uint16_t> y;
  double gemv_retire_ns = 0, sfu_start_ns = 0, sfu_retire_ns = 0;
};

chain_run run(bool chaining) {
  config::platform_config cfg;
  cfg.npu.sfu.gemv_chaining = chaining;
  // The GEMV on the global quantum: with its own 10 us one it runs this whole
  // 8 us instruction before the SFU does and reserves every result write on
  // the shared L2 port first, so the SFU's writes queue behind them (11
  // clocks later here; docs/models/gemv.md).
  cfg.simulation.gemv_quantum_ns = 0;
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

}  // namespace

// GELU of the GEMV's BF16 results: the GEMV result is the integer dot
// product rounded once to BF16; GELU is within 1 BF16 ulp (docs/models/sfu.md).
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
