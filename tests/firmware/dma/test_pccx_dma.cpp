// The firmware DMA helpers (firmware/dma/pccx_dma.c) and the uCA driver,
// run against the models through a HAL that forwards to the bench's bus
// master: the documented host->L2 and L2->host examples, status and error
// handling, and argument checks that never touch the hardware.
#include <gtest/gtest.h>

#include "dma_bench.h"
#include "pccx_dma.h"
#include "uCA_v1_api.h"
#include "uCA_v1_hal.h"

using namespace pccx;
using namespace pccx::test;

// The HAL of this test executable: each access is a bus-master transaction
// from the script thread (200 ns reads, 40 ns writes through the router).
extern "C" {
int uca_hal_init(void) {
  return uca_hal_read_status() == 0xFFFFFFFFu ? -1 : 0;
}
void uca_hal_deinit(void) {}
void uca_hal_write32(uint32_t offset, uint32_t val) {
  bus_master::current->write32(offset, val);
}
uint32_t uca_hal_read32(uint32_t offset) {
  return bus_master::current->read32(offset);
}
void uca_hal_issue_instr(uint64_t instr) {
  bus_master::current->issue(instr);
}
uint32_t uca_hal_read_status(void) {
  return uca_hal_read32(UCA_REG_STATUS);
}
int uca_hal_wait_idle(uint32_t timeout_us) {
  const sc_time deadline = sc_core::sc_time_stamp() + us(timeout_us);
  while (sc_core::sc_time_stamp() < deadline) {
    const uint32_t s = uca_hal_read_status();
    if (s & PCCX_STAT_ERROR) return -2;
    if (!(s & UCA_STAT_BUSY)) return 0;
  }
  return -1;
}
}

namespace {
constexpr uint64_t kBase = 0x10000000;
}

TEST(FirmwareDma, TheDocumentedHostToL2AndBackExample) {
  bench_options o;
  o.with_npu = true;
  dma_bench b(o);
  const uint64_t in = kBase + 0x10000, out = kBase + 0x20000;
  b.ddr->fill_pattern(in, 128, 80);
  int init = -1, sync_in = -1, sync_out = -1, sts_in = -1, sts_out = -1;
  pccx_dma_status s_in{}, s_out{};
  b.run([&](bus_master&) {
    init = uca_init();
    uca_memset(0, 1, 1, 1, 64);  // fmap_shape[1] = (1, 1, 64): 8 words, 128 bytes
    // DDR -> L2: a descriptor on ACP_FMAP, then MEMCPY host->L2.
    pccx_dma_submit(PCCX_DMA_ACP_FMAP, in, 128, 1);
    uca_memcpy(UCA_ROUTE_HOST_TO_L2, 0x100, 0, 1, 0);
    sync_in = uca_sync(1000);
    sts_in = pccx_dma_wait_status(PCCX_DMA_ACP_FMAP, &s_in, 100);
    // L2 -> DDR: a descriptor on ACP_RESULT, then MEMCPY L2->host.
    pccx_dma_submit(PCCX_DMA_ACP_RESULT, out, 128, 2);
    uca_memcpy(UCA_ROUTE_L2_TO_HOST, 0, 0x100, 1, 0);
    sync_out = uca_sync(1000);
    sts_out = pccx_dma_wait_status(PCCX_DMA_ACP_RESULT, &s_out, 100);
  });
  EXPECT_EQ(init, 0);
  EXPECT_EQ(sync_in, 0);
  EXPECT_EQ(sts_in, PCCX_DMA_OK);
  EXPECT_EQ(s_in.tag, 1u);
  EXPECT_EQ(sync_out, 0);
  EXPECT_EQ(sts_out, PCCX_DMA_OK);
  EXPECT_EQ(s_out.tag, 2u);
  for (uint64_t i = 0; i < 128; ++i) ASSERT_EQ(*b.ddr->at(out + i), pattern(i, 80)) << i;
}

TEST(FirmwareDma, StatusErrorsAndCounters) {
  dma_bench b;
  drain_record got;
  b.spawn(drainer(b.fifo(PCCX_DMA_HP0), 4096, 4096, got));
  int submit_ok = -9, submit_bad = -9, first = -9, second = -9, empty = -9, set_class = -9;
  pccx_dma_status s1{}, s2{};
  uint32_t err = 0, err_cleared = 1, flags = 0, pending = 1;
  uint64_t done = 0;
  b.run([&](bus_master&) {
    set_class = pccx_dma_set_class(PCCX_DMA_HP0, PCCX_DMA_CLASS_KV_READ);
    submit_ok = pccx_dma_submit(PCCX_DMA_HP0, kBase, 4096, 3);
    submit_bad = pccx_dma_submit(PCCX_DMA_HP0, kBase + 4, 4096, 4);  // misaligned
    first = pccx_dma_wait_status(PCCX_DMA_HP0, &s1, 1000);
    second = pccx_dma_wait_status(PCCX_DMA_HP0, &s2, 1000);
    empty = pccx_dma_pop_status(PCCX_DMA_HP0, nullptr);
    err = pccx_dma_error(PCCX_DMA_HP0);
    flags = pccx_dma_flags(PCCX_DMA_HP0);
    pccx_dma_clear_error(PCCX_DMA_HP0);
    err_cleared = pccx_dma_error(PCCX_DMA_HP0);
    pending = pccx_dma_pending(PCCX_DMA_HP0);
    done = pccx_dma_bytes_done(PCCX_DMA_HP0);
  });
  EXPECT_EQ(set_class, PCCX_DMA_OK);
  EXPECT_EQ(submit_ok, PCCX_DMA_OK);
  EXPECT_EQ(submit_bad, PCCX_DMA_OK) << "descriptor errors are the channel's to find";
  EXPECT_EQ(first, PCCX_DMA_OK);
  EXPECT_EQ(s1.tag, 3u);
  EXPECT_EQ(s1.errors, 0u);
  EXPECT_EQ(second, PCCX_DMA_E_FAILED);
  EXPECT_EQ(s2.tag, 4u);
  EXPECT_EQ(s2.errors, PCCX_DMA_ERR_ALIGN_ADDR);
  EXPECT_EQ(empty, PCCX_DMA_E_EMPTY);
  EXPECT_EQ(err, PCCX_DMA_ERR_ALIGN_ADDR);
  EXPECT_TRUE(flags & PCCX_DMA_FLAG_ERROR);
  EXPECT_EQ(err_cleared, 0u);
  EXPECT_EQ(pending, 0u);
  EXPECT_EQ(done, 4096u);
  ASSERT_EQ(b.ddr->log.size(), 1u);
  EXPECT_EQ(b.ddr->log[0].cls, mem::traffic_class::kv_read);
}

// Columns of a strided matrix: 3 rows of 32 bytes every 64, through ACP_FMAP
// into L2 as 6 consecutive words.
TEST(FirmwareDma, ATwoDimensionalSubmitGathersStridedRows) {
  bench_options o;
  o.with_npu = true;
  dma_bench b(o);
  const uint64_t in = kBase + 0x10000, out = kBase + 0x20000;
  b.ddr->fill_pattern(in, 192, 90);
  int rc = -1, st = -1;
  b.run([&](bus_master&) {
    uca_init();
    uca_memset(0, 1, 1, 1, 48);  // 6 words
    rc = pccx_dma_submit_2d(PCCX_DMA_ACP_FMAP, in, 32, 3, 64, 4);
    uca_memcpy(UCA_ROUTE_HOST_TO_L2, 0x100, 0, 1, 0);
    pccx_dma_submit(PCCX_DMA_ACP_RESULT, out, 96, 5);
    uca_memcpy(UCA_ROUTE_L2_TO_HOST, 0, 0x100, 1, 0);
    uca_sync(1000);
    st = pccx_dma_wait_status(PCCX_DMA_ACP_FMAP, nullptr, 100);
  });
  EXPECT_EQ(rc, PCCX_DMA_OK);
  EXPECT_EQ(st, PCCX_DMA_OK);
  for (uint64_t r = 0; r < 3; ++r)
    for (uint64_t i = 0; i < 32; ++i)
      ASSERT_EQ(*b.ddr->at(out + r * 32 + i), pattern(r * 64 + i, 90)) << r << " " << i;
}

TEST(FirmwareDma, BadArgumentsNeverTouchTheHardware) {
  dma_bench b;
  uint64_t before = 0, after = 0;
  std::vector<int> results;
  uint32_t err = 1;
  uint64_t bytes = 1;
  b.run([&](bus_master& m) {
    before = m.accesses;
    results.push_back(pccx_dma_submit(PCCX_DMA_CHANNELS, kBase, 16, 0));
    results.push_back(pccx_dma_submit(PCCX_DMA_HP0, kBase, 16, 16));
    results.push_back(pccx_dma_submit_2d(PCCX_DMA_CHANNELS, kBase, 16, 2, 32, 0));
    results.push_back(pccx_dma_submit_2d(PCCX_DMA_HP0, kBase, 16, 2, 32, 16));
    const pccx_dma_records four = {{kBase, kBase, kBase, kBase}, 4, 64, 1};
    const pccx_dma_records two = {{kBase, kBase + 4096, 0, 0}, 2, 64, 1};
    results.push_back(pccx_dma_submit_gemm_weights(&four, 0, 64, 0, 32, 0));
    results.push_back(pccx_dma_submit_gemm_weights(&two, 1, 64, 0, 32, 0));   // odd n0
    results.push_back(pccx_dma_submit_gemm_weights(&two, 0, 64, 16, 32, 0));  // k0 off the beat
    results.push_back(pccx_dma_submit_gemm_weights(&two, 0, 0, 0, 32, 0));
    results.push_back(pccx_dma_submit_gemm_weights(&two, 0, 64, 0, 32, 16));
    results.push_back(pccx_dma_set_class(PCCX_DMA_HP0, PCCX_DMA_CLASS_LAST + 1));
    results.push_back(pccx_dma_set_class(7, 0));
    results.push_back(pccx_dma_pop_status(9, nullptr));
    results.push_back(pccx_dma_wait_status(9, nullptr, 5));
    err = pccx_dma_error(6);
    bytes = pccx_dma_bytes_done(6);
    pccx_dma_clear_error(6);
    after = m.accesses;
    // A wait with no descriptor gives up after its polls.
    results.push_back(pccx_dma_wait_status(PCCX_DMA_HP1, nullptr, 3));
  });
  EXPECT_EQ(after, before);
  const std::vector<int> expected = {PCCX_DMA_E_CHANNEL, PCCX_DMA_E_TAG,     PCCX_DMA_E_CHANNEL,
                                     PCCX_DMA_E_TAG,     PCCX_DMA_E_LAYOUT,  PCCX_DMA_E_LAYOUT,
                                     PCCX_DMA_E_LAYOUT,  PCCX_DMA_E_LAYOUT,  PCCX_DMA_E_TAG,
                                     PCCX_DMA_E_CLASS,   PCCX_DMA_E_CHANNEL, PCCX_DMA_E_CHANNEL,
                                     PCCX_DMA_E_CHANNEL, PCCX_DMA_E_TIMEOUT};
  EXPECT_EQ(results, expected);
  EXPECT_EQ(err, 0u);
  EXPECT_EQ(bytes, 0u);
}
