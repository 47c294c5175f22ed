// The memory system inside the whole platform: firmware programs DMA
// channels through their MMIO pages, the channels stream from the DDR
// controller, MEMCPY moves data through L2, and the run summary reports
// the traffic.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "firmware_test_io.h"
#include "pccx_dma.h"
#include "pccx_host_mem.h"
#include "platform_test_util.h"
#include "uCA_v1_api.h"

using namespace pccx;
using namespace pccx::test;

namespace {

constexpr uint32_t kStreamBytes = 4u << 20;  // per HP channel

// Streams 4 MiB through each HP channel and waits for the four statuses.
int stream_four_hp_channels(void) {
  for (unsigned ch = PCCX_DMA_HP0; ch <= PCCX_DMA_HP3; ++ch)
    if (pccx_dma_submit(ch, 0x10000000ull + ch * 0x1000000ull, kStreamBytes, ch) != PCCX_DMA_OK)
      return 2;
  for (unsigned ch = PCCX_DMA_HP0; ch <= PCCX_DMA_HP3; ++ch) {
    pccx_dma_status st;
    if (pccx_dma_wait_status(ch, &st, 100000) != PCCX_DMA_OK || st.tag != ch) return 3;
  }
  return 0;
}

int bad_descriptor(void) {
  pccx_dma_submit(PCCX_DMA_HP2, 0x10000008ull, 4096, 5);  // misaligned address
  pccx_dma_status st;
  const int rc = pccx_dma_wait_status(PCCX_DMA_HP2, &st, 1000);
  if (rc != PCCX_DMA_E_FAILED || st.tag != 5 || !(st.errors & PCCX_DMA_ERR_ALIGN_ADDR)) return 2;
  return pccx_dma_error(PCCX_DMA_HP2) & PCCX_DMA_ERR_ALIGN_ADDR ? 0 : 3;
}

// Stands in for the compute engines: drains each weight FIFO as fast as
// bytes arrive, so the channels run at the speed of the DDR.
class fifo_drain : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(fifo_drain);
  fifo_drain(sc_core::sc_module_name name, mem::stream_fifo& fifo)
      : sc_core::sc_module(name), fifo_(fifo) {
    SC_THREAD(run);
  }

 private:
  void run() {
    for (;;) fifo_.pop(4096, nullptr);
  }
  mem::stream_fifo& fifo_;
};

// Runs stream_four_hp_channels with a drain on each HP FIFO.
vp::run_result stream_into_drains(const config::platform_config& cfg) {
  std::vector<std::unique_ptr<fifo_drain>> drains;
  return vp::run_simulation(
      cfg, test_firmware(&stream_four_hp_channels, "stream"), nullptr, [&](vp::platform_top& top) {
        for (unsigned ch = PCCX_DMA_HP0; ch <= PCCX_DMA_HP3; ++ch)
          drains.push_back(
              std::make_unique<fifo_drain>(("drain" + std::to_string(ch)).c_str(), top.fifo(ch)));
      });
}

}  // namespace

TEST(MemorySystem, FourHpChannelsReachTheEffectiveDdrBandwidth) {
  config::platform_config cfg;
  cfg.simulation.mode = pccx::config::sim_mode::timing;
  cfg.output.dir = temp_path("four_hp");
  auto r = stream_into_drains(cfg);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  const auto& ddr = r.memory["ddr"];
  const double effective = ddr["capacity"]["effective_gbps"].get<double>();
  const auto& weights = ddr["bandwidth"]["classes"]["weights"];
  EXPECT_EQ(weights["bytes"].get<uint64_t>(), 4ull * kStreamBytes);
  EXPECT_NEAR(weights["avg_gbps"].get<double>(), effective, 0.02 * effective);
  // The NPU's own counter sees the same bytes.
  EXPECT_EQ(counter(r, "ddr_read_bytes"), 4ull * kStreamBytes);
  // The CSV time series adds up to the bytes moved.
  std::ifstream csv(cfg.output.dir + "/ddr_bandwidth.csv");
  ASSERT_TRUE(csv) << "no ddr_bandwidth.csv in " << cfg.output.dir;
  std::string line;
  std::getline(csv, line);
  uint64_t class_bytes = 0;
  while (std::getline(csv, line))
    if (line.find(",class,weights,") != std::string::npos) {
      size_t pos = 0;
      for (int i = 0; i < 4; ++i) pos = line.find(',', pos) + 1;
      class_bytes += std::stoull(line.substr(pos));
    }
  EXPECT_EQ(class_bytes, 4ull * kStreamBytes);
}

TEST(MemorySystem, DmaRoundTripThroughL2IsByteExact) {
  auto r =
      vp::run_simulation(config::platform_config{}, vp::load_firmware("dma_roundtrip"), nullptr);
  ASSERT_EQ(r.state, vp::run_control::state::finished) << r.message;
  EXPECT_EQ(r.exit_code, 0) << "failed step " << r.exit_code;
  EXPECT_EQ(r.memory["memcpy"]["words_host_to_l2"], 256);
  EXPECT_EQ(r.memory["memcpy"]["words_l2_to_l2"], 256);
  EXPECT_EQ(r.memory["memcpy"]["words_l2_to_host"], 256);
  EXPECT_EQ(r.memory["dma"]["acp_result"]["bytes_done"], 4096);
}

TEST(MemorySystem, DescriptorErrorsReachTheFirmware) {
  config::platform_config cfg;
  cfg.simulation.end_check = pccx::config::end_check_policy::warn;  // the firmware leaves ERR set
  auto r = vp::run_simulation(cfg, test_firmware(&bad_descriptor, "bad"), nullptr);
  EXPECT_EQ(r.exit_code, 0) << "failed check " << r.exit_code << ": " << r.message;
  EXPECT_EQ(r.memory["dma"]["hp2"]["descriptor_errors"], 1);
}

TEST(MemorySystem, StrictModeEndsTheRunOnADescriptorError) {
  config::platform_config cfg;
  cfg.simulation.strict = true;
  auto r = vp::run_simulation(cfg, test_firmware(&bad_descriptor, "bad"), nullptr);
  EXPECT_EQ(r.state, vp::run_control::state::failed);
  EXPECT_NE(r.message.find("hp2"), std::string::npos) << r.message;
}

TEST(MemorySystem, TimingOnlyModeStoresNoDdrData) {
  config::platform_config cfg;
  cfg.simulation.mode = pccx::config::sim_mode::timing;
  auto r = stream_into_drains(cfg);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  EXPECT_EQ(r.memory["ddr"]["store"]["allocated_pages"], 0) << r.memory["ddr"]["store"].dump();
}

namespace {

// A BF16 vector through the whole platform: DDR -> L2 -> SFU EXP -> DDR.
constexpr unsigned kElems = 64;
uint16_t g_in[kElems], g_out[kElems];

int exp_through_the_sfu(void) {
  for (unsigned i = 0; i < kElems; ++i) g_in[i] = to_bf16(-4.0f + 0.125f * i);
  pccx_host_write(0x20000000ull, g_in, sizeof g_in);
  set_vector_shape(1, kElems);  // 64 BF16 elements = 8 words
  ddr_to_l2(0x20000000ull, sizeof g_in, 0x100, 1, 1);
  uca_cvo(UCA_CVO_EXP, 0x100, 0x200, kElems, 0, 0);
  l2_to_ddr(0x200, 1, 0x28000000ull, sizeof g_out, 2);
  return read_result(100000, 0x28000000ull, g_out, sizeof g_out);
}

}  // namespace

TEST(MemorySystem, FirmwareRunsExpOnTheSfuThroughL2) {
  auto r = vp::run_simulation(config::platform_config{}, test_firmware(&exp_through_the_sfu, "exp"),
                              nullptr);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  for (unsigned i = 0; i < kElems; ++i) {
    const double x = from_bf16(g_in[i]);
    const double want = std::exp(x), got = from_bf16(g_out[i]);
    EXPECT_NEAR(got, want, want * (1.0 / 128)) << "element " << i << " exp(" << x << ")";
  }
  EXPECT_EQ(counter(r, "sfu_elements"), kElems);
}

namespace {

// A 16 x 64 INT4 GEMV from firmware: weights stream from DDR through HP2 and
// HP3 (even rows on HP2, odd rows on HP3, as the engine takes them),
// activations come through ACP into L2, the result goes back to DDR.
constexpr unsigned kN = 16, kK = 64;
int8_t g_w[kN][kK];
int16_t g_x[kK];
uint16_t g_y[kN];

int gemv_from_firmware(void) {
  const auto rows = gemv_weight_streams(g_w, kN, kK);
  uint16_t act[kK];
  for (unsigned k = 0; k < kK; ++k) act[k] = to_bf16(static_cast<float>(g_x[k]));
  write_ddr(0x30000000ull, rows[0]);
  write_ddr(0x30010000ull, rows[1]);
  pccx_host_write(0x30020000ull, act, sizeof act);

  set_vector_shape(2, kK);         // activations: 64 elements
  set_weight_shape(3, 1, kN, kK);  // weights: M=1, N=16, K=64
  set_vector_shape(4, kN);         // results: 16 elements
  ddr_to_l2(0x30020000ull, sizeof act, 0x40, 2, 1);
  pccx_dma_submit(PCCX_DMA_HP2, 0x30000000ull, rows[0].size(), 2);
  pccx_dma_submit(PCCX_DMA_HP3, 0x30010000ull, rows[1].size(), 3);
  uca_gemv(0x80, 0x40, 0, 2, 3, 0);  // size: fmap slot 2, shape: weight slot 3
  l2_to_ddr(0x80, 4, 0x30030000ull, sizeof g_y, 4);
  return read_result(100000, 0x30030000ull, g_y, sizeof g_y);
}

}  // namespace

TEST(MemorySystem, FirmwareRunsAnInt4GemvFromDdr) {
  // Integer activations with max |x| = 127 quantise exactly (scale 1), so
  // the result is the integer dot product rounded once to BF16.
  for (unsigned k = 0; k < kK; ++k) g_x[k] = static_cast<int16_t>((k * 37) % 255) - 127;
  g_x[5] = 127;
  for (unsigned n = 0; n < kN; ++n)
    for (unsigned k = 0; k < kK; ++k) g_w[n][k] = static_cast<int8_t>((n * 7 + k * 3) % 16) - 8;
  auto r = vp::run_simulation(config::platform_config{}, test_firmware(&gemv_from_firmware, "gemv"),
                              nullptr);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  for (unsigned n = 0; n < kN; ++n) {
    int32_t acc = 0;
    for (unsigned k = 0; k < kK; ++k) acc += g_w[n][k] * g_x[k];
    EXPECT_EQ(g_y[n], to_bf16(static_cast<float>(acc))) << "row " << n << ": " << acc;
  }
  EXPECT_EQ(counter(r, "macs"), uint64_t{kN} * kK);
  EXPECT_EQ(r.memory["ddr"]["bandwidth"]["classes"]["weights"]["bytes"], kN * kK / 2);
}

namespace {

// One 32 x 64 GEMM weight tile from firmware: the 64 rows' records as the
// GEMV stores them (16 bytes each: 32 INT4, even k in the low nibble), the
// even rows through HP0 and the odd through HP1 with a 2-D descriptor each,
// two activation rows through ACP, results back to DDR.
constexpr unsigned kGm = 2, kGn = 64, kGk = 32;
int8_t g_gw[kGk][kGn];
int16_t g_gx[kGm][kGk];
uint16_t g_gy[kGm * kGn];

int gemm_from_firmware(void) {
  uint8_t records[kGn][kGk / 2];
  for (unsigned n = 0; n < kGn; ++n)
    for (unsigned k = 0; k < kGk; k += 2) records[n][k / 2] = pack_int4(g_gw[k][n], g_gw[k + 1][n]);
  uint16_t act[kGm * kGk];
  for (unsigned m = 0; m < kGm; ++m)
    for (unsigned k = 0; k < kGk; ++k) act[m * kGk + k] = to_bf16(g_gx[m][k]);
  pccx_host_write(0x40000000ull, records, sizeof records);
  pccx_host_write(0x40020000ull, act, sizeof act);

  set_vector_shape(2, kGm * kGk);      // activations: 2 rows of 32
  set_weight_shape(3, kGm, kGn, kGk);  // weights: M=2, N=64, K=32
  set_vector_shape(4, kGm * kGn);      // results: 128 elements
  ddr_to_l2(0x40020000ull, sizeof act, 0x40, 2, 1);
  pccx_dma_submit_2d(PCCX_DMA_HP0, 0x40000000ull, 16, kGn / 2, 32, 2);
  pccx_dma_submit_2d(PCCX_DMA_HP1, 0x40000000ull + 16, 16, kGn / 2, 32, 3);
  uca_gemm(0x100, 0x40, 0, 2, 3, 0);
  l2_to_ddr(0x100, 4, 0x40030000ull, sizeof g_gy, 4);
  return read_result(100000, 0x40030000ull, g_gy, sizeof g_gy);
}

}  // namespace

TEST(MemorySystem, FirmwareRunsAGemmTileFromDdr) {
  // Rows whose max |x| is 127 quantise with scale 1: results are the exact
  // integer products rounded once to BF16.
  for (unsigned m = 0; m < kGm; ++m)
    for (unsigned k = 0; k < kGk; ++k)
      g_gx[m][k] = static_cast<int16_t>(((m + 1) * 29 + k * 13) % 255) - 127;
  g_gx[0][3] = 127;
  g_gx[1][7] = -127;
  for (unsigned k = 0; k < kGk; ++k)
    for (unsigned n = 0; n < kGn; ++n) g_gw[k][n] = static_cast<int8_t>((k * 5 + n * 3) % 16) - 8;
  auto r = vp::run_simulation(config::platform_config{}, test_firmware(&gemm_from_firmware, "gemm"),
                              nullptr);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  for (unsigned m = 0; m < kGm; ++m)
    for (unsigned n = 0; n < kGn; ++n) {
      int32_t acc = 0;
      for (unsigned k = 0; k < kGk; ++k) acc += g_gw[k][n] * g_gx[m][k];
      EXPECT_EQ(g_gy[m * kGn + n], to_bf16(static_cast<float>(acc))) << m << "," << n;
    }
  EXPECT_EQ(counter(r, "gemm_macs"), uint64_t{kGm} * kGn * kGk);
}

namespace {

// A K-split GEMM from the DDR plan's layout: a 70 x 96 matrix of scaled row
// records (scale 1.0, 2 + 48 bytes padded to 64) in two parts, row n in
// part n mod 2, and a GEMM over inputs 32..95 of all 70 columns for three
// activation rows, its weights cut by pccx_dma_submit_gemm_weights.
constexpr unsigned kRn = 70, kRk = 96, kRk0 = 32, kRkp = 64, kRm = 3, kRb = 64;
int8_t g_rw[kRn][kRk];
int16_t g_rx[kRm][kRkp];
uint16_t g_ry[kRm * kRn + 6];  // 27 result words
int g_pushed = 0;

int gemm_from_records(void) {
  uint8_t parts[2][kRn / 2][kRb] = {};
  for (unsigned n = 0; n < kRn; ++n) {
    uint8_t* rec = parts[n % 2][n / 2];
    rec[0] = 0x80, rec[1] = 0x3F;  // BF16 1.0
    for (unsigned k = 0; k < kRk; k += 2) rec[2 + k / 2] = pack_int4(g_rw[n][k], g_rw[n][k + 1]);
  }
  uint16_t act[kRm * kRkp];
  for (unsigned m = 0; m < kRm; ++m)
    for (unsigned k = 0; k < kRkp; ++k) act[m * kRkp + k] = to_bf16(g_rx[m][k]);
  const pccx_dma_records r = {{0x40000000ull, 0x40100000ull, 0, 0}, 2, kRb, 1};
  pccx_host_write(r.part[0], parts[0], sizeof parts[0]);
  pccx_host_write(r.part[1], parts[1], sizeof parts[1]);
  pccx_host_write(0x40200000ull, act, sizeof act);

  set_vector_shape(2, kRm * kRkp);
  set_weight_shape(3, kRm, kRn, kRkp);
  set_vector_shape(4, kRm * kRn);
  ddr_to_l2(0x40200000ull, sizeof act, 0x40, 2, 1);
  g_pushed = pccx_dma_submit_gemm_weights(&r, 0, kRn, kRk0, kRkp, 2);
  uca_gemm(0x100, 0x40, UCA_FLAG_W_SCALE, 2, 3, 0);
  l2_to_ddr(0x100, 4, 0x40300000ull, sizeof g_ry, 4);
  return read_result(100000, 0x40300000ull, g_ry, sizeof g_ry);
}

}  // namespace

TEST(MemorySystem, FirmwareRunsAKSplitGemmFromTheRowRecords) {
  for (unsigned n = 0; n < kRn; ++n)
    for (unsigned k = 0; k < kRk; ++k) g_rw[n][k] = static_cast<int8_t>((n * 7 + k * 5) % 16) - 8;
  for (unsigned m = 0; m < kRm; ++m)
    for (unsigned k = 0; k < kRkp; ++k)
      g_rx[m][k] = static_cast<int16_t>(((m + 3) * 31 + k * 11) % 255) - 127;
  for (unsigned m = 0; m < kRm; ++m) g_rx[m][m + 1] = 127;  // every row's scale is 1
  auto r = vp::run_simulation(config::platform_config{},
                              test_firmware(&gemm_from_records, "gemm_records"), nullptr);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  EXPECT_EQ(g_pushed, 2);  // per channel: the scale beats and the chunks
  for (unsigned m = 0; m < kRm; ++m)
    for (unsigned n = 0; n < kRn; ++n) {
      int32_t acc = 0;
      for (unsigned k = 0; k < kRkp; ++k) acc += g_rw[n][kRk0 + k] * g_rx[m][k];
      EXPECT_EQ(g_ry[m * kRn + n], to_bf16(static_cast<float>(acc))) << m << "," << n;
    }
  // Per channel 35 columns x (16-byte beat + pad16(2 + 32) = 48-byte chunk).
  EXPECT_EQ(r.memory["ddr"]["bandwidth"]["classes"]["weights"]["bytes"], 2u * 35 * (16 + 48));
}
