// The MEMCPY unit inside an NPU, with the ACP channels and the fake DDR:
// each route moves the right bytes, lengths come from the shape slot, async
// semantics hold, a starved MEMCPY leaves the NPU busy, KV append quantizes in
// line (refused without formats),
// and big transfers run at the DDR rate through the small ACP FIFOs.
#include <gtest/gtest.h>

#include <cmath>

#include "dma_bench.h"
#include "kv_section.h"
#include "models/kv/kv_codec.h"
#include "models/npu/units/bf16.h"
#include "uCA_v1_hal.h"

using namespace pccx;
using namespace pccx::test;

namespace {

constexpr uint64_t kBase = 0x10000000;

bench_options with_npu() {
  bench_options o;
  o.with_npu = true;
  return o;
}

std::vector<uint8_t> l2_bytes(mem::l2_memory& l2, uint32_t first, uint32_t words) {
  std::vector<uint8_t> v(static_cast<size_t>(words) * 16);
  l2.debug_read(first, words, v.data());
  return v;
}

void l2_fill(mem::l2_memory& l2, uint32_t first, uint32_t words, uint8_t seed) {
  std::vector<uint8_t> v(static_cast<size_t>(words) * 16);
  for (size_t i = 0; i < v.size(); ++i) v[i] = pattern(i, seed);
  l2.debug_write(first, words, v.data());
}

bool is_pattern(const std::vector<uint8_t>& v, uint8_t seed) {
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] != pattern(i, seed)) return false;
  return true;
}

uint64_t dma_busy_cycles(dma_bench& b) {
  return b.npu->counters().value(PCCX_PERF_DMA_BUSY);
}

}  // namespace

TEST(MemcpyUnit, HostToL2MovesTheDescriptorBytesToDest) {
  dma_bench b(with_npu());
  const uint64_t src = kBase + 0x4000;
  b.ddr->fill_pattern(src, 1024, 70);
  l2_fill(*b.l2, 0x240, 1, 71);  // the word after the destination
  uint32_t status = 0, dma_status = 0;
  b.run([&](bus_master& m) {
    m.issue(memset_word(0, 1, 1, 1, 512));  // 512 BF16 = 64 words
    m.submit(PCCX_DMA_ACP_FMAP, src, 1024, 1);
    m.issue(memcpy_word(true, false, 0x200, 0, 1, false));
    status = m.wait_not_busy();
    dma_status = m.wait_status(PCCX_DMA_ACP_FMAP);
  });
  EXPECT_EQ(status & PCCX_STAT_ERROR, 0u);
  EXPECT_EQ(PCCX_DMA_STS_ERR(dma_status), 0u);
  EXPECT_TRUE(is_pattern(l2_bytes(*b.l2, 0x200, 64), 70));
  EXPECT_TRUE(is_pattern(l2_bytes(*b.l2, 0x240, 1), 71)) << "wrote past the destination";
  EXPECT_EQ(b.fifo(PCCX_DMA_ACP_FMAP).level(), 0u);
  EXPECT_EQ(b.memcpy->statistics().words_host_to_l2, 64u);
  EXPECT_EQ(b.l2->statistics(0).words_written, 64u);
  EXPECT_EQ(b.npu->cmd().retired(), 2u);
}

TEST(MemcpyUnit, L2ToHostLandsInDdrThroughAcpResult) {
  dma_bench b(with_npu());
  const uint64_t dst = kBase + 0x8000;
  l2_fill(*b.l2, 0x300, 64, 72);
  uint32_t status = 0, dma_status = 0;
  b.run([&](bus_master& m) {
    m.issue(memset_word(0, 2, 1, 1, 512));
    m.submit(PCCX_DMA_ACP_RESULT, dst, 1024, 4);
    m.issue(memcpy_word(false, true, 0, 0x300, 2, false));
    status = m.wait_not_busy();
    dma_status = m.wait_status(PCCX_DMA_ACP_RESULT);
  });
  EXPECT_EQ(status & PCCX_STAT_ERROR, 0u);
  EXPECT_EQ(PCCX_DMA_STS_TAG(dma_status), 4u);
  EXPECT_EQ(PCCX_DMA_STS_ERR(dma_status), 0u);
  for (uint64_t i = 0; i < 1024; ++i) ASSERT_EQ(*b.ddr->at(dst + i), pattern(i, 72)) << i;
  EXPECT_EQ(b.memcpy->statistics().words_l2_to_host, 64u);
  EXPECT_EQ(b.l2->statistics(0).words_read, 64u);
  for (const auto& r : b.ddr->log) {
    EXPECT_EQ(r.port, mem::ddr_port::acp);
    EXPECT_EQ(r.cls, mem::traffic_class::activations);
  }
}

TEST(MemcpyUnit, L2ToL2CopiesAtOneWordPerClock) {
  dma_bench b(with_npu());
  l2_fill(*b.l2, 0x1000, 1024, 73);
  uint32_t status = 0;
  b.run([&](bus_master& m) {
    m.issue(memset_word(0, 3, 1, 8, 1024));  // 8192 BF16 = 1024 words
    m.issue(memcpy_word(false, false, 0x4000, 0x1000, 3, false));
    status = m.wait_not_busy();
  });
  EXPECT_EQ(status & PCCX_STAT_ERROR, 0u);
  EXPECT_TRUE(is_pattern(l2_bytes(*b.l2, 0x4000, 1024), 73));
  // 1024 clocks plus the URAM read latency, pipelined: not 2 x 1024.
  EXPECT_GE(dma_busy_cycles(b), 1024u);
  EXPECT_LE(dma_busy_cycles(b), 1040u);
  EXPECT_EQ(b.l2->statistics(1).words_read, 1024u);
  EXPECT_EQ(b.l2->statistics(0).words_written, 1024u);
}

TEST(MemcpyUnit, TheLengthComesFromTheShapeSlot) {
  dma_bench b(with_npu());
  const uint64_t src = kBase + 0x100;
  b.ddr->fill_pattern(src, 32, 74);
  l2_fill(*b.l2, 0x502, 1, 75);
  b.run([&](bus_master& m) {
    m.issue(memset_word(0, 7, 1, 1, 9));  // (1, 1, 9): ceil(9 / 8) = 2 words
    m.submit(PCCX_DMA_ACP_FMAP, src, 32, 0);
    m.issue(memcpy_word(true, false, 0x500, 0, 7, false));
    m.wait_not_busy();
  });
  EXPECT_TRUE(is_pattern(l2_bytes(*b.l2, 0x500, 2), 74));
  EXPECT_TRUE(is_pattern(l2_bytes(*b.l2, 0x502, 1), 75));
  EXPECT_EQ(b.memcpy->statistics().words_host_to_l2, 2u);
  EXPECT_EQ(b.fifo(PCCX_DMA_ACP_FMAP).level(), 0u);
}

TEST(MemcpyUnit, ASynchronousMemcpyHoldsIssueUntilItRetires) {
  dma_bench b(with_npu());
  bool slot_written_early = true;
  uint32_t early_status = 0;
  b.run([&](bus_master& m) {
    m.issue(memset_word(0, 1, 1, 1, 64));
    m.issue(memcpy_word(true, false, 0x100, 0, 1, false));  // async = 0: no data yet
    m.issue(memset_word(0, 9, 1, 1, 1));
    sc_core::wait(us(5));
    slot_written_early = b.npu->cache().read(0, 9).has_value();
    early_status = m.read32(UCA_REG_STATUS);
    m.submit(PCCX_DMA_ACP_FMAP, kBase, 128, 0);
    m.wait_not_busy();
  });
  EXPECT_FALSE(slot_written_early) << "the MEMSET overtook a synchronous MEMCPY";
  EXPECT_TRUE(early_status & UCA_STAT_BUSY);
  EXPECT_TRUE(b.npu->cache().read(0, 9).has_value());
}

TEST(MemcpyUnit, AnAsynchronousMemcpyLetsIssueContinue) {
  dma_bench b(with_npu());
  bool slot_written_early = false;
  b.run([&](bus_master& m) {
    m.issue(memset_word(0, 1, 1, 1, 64));
    m.issue(memcpy_word(true, false, 0x100, 0, 1, true));  // async = 1
    m.issue(memset_word(0, 9, 1, 1, 1));
    sc_core::wait(us(5));
    slot_written_early = b.npu->cache().read(0, 9).has_value();
    m.submit(PCCX_DMA_ACP_FMAP, kBase, 128, 0);
    m.wait_not_busy();
  });
  EXPECT_TRUE(slot_written_early);
  EXPECT_EQ(b.memcpy->statistics().words_host_to_l2, 8u);
}

TEST(MemcpyUnit, AMemcpyWhoseSourceNeverGetsDataLeavesTheNpuBusy) {
  dma_bench b(with_npu());
  uint32_t status = 0;
  const sc_time end = b.run(
      [&](bus_master& m) {
        m.issue(memset_word(0, 1, 1, 1, 64));
        m.issue(memcpy_word(true, false, 0x100, 0, 1, true));
        sc_core::wait(us(50));
        status = m.read32(UCA_REG_STATUS);
      },
      us(100));
  EXPECT_TRUE(b.master->finished);
  EXPECT_LT(end, us(100));
  EXPECT_TRUE(status & UCA_STAT_BUSY);
  EXPECT_FALSE(status & PCCX_STAT_ERROR);
  EXPECT_FALSE(status & UCA_STAT_DONE);
  EXPECT_EQ(b.memcpy->statistics().words_host_to_l2, 0u);
  EXPECT_EQ(b.npu->cmd().in_flight(), 1u);
}

namespace {
kv::kv_format kv64(kv::kv_kind kind, uint32_t group, uint32_t bits = 4) {
  kv::kv_format f;
  f.kind = kind, f.head_dim = 64, f.group = group, f.bits = bits;
  return f;
}
}  // namespace

// from_device=1, to_device=1: two 64-element vectors at src are quantized
// in line (dest 0: the key format, 1: the value format) and their records
// land at the ACP_RESULT descriptor's address, byte for byte what the host
// codec makes of the same BF16 values.
TEST(MemcpyUnit, KvAppendQuantizesIntoTheRingSlot) {
  bench_options o = with_npu();
  const kv::kv_format kf = kv64(kv::kv_kind::int4, 32), vf = kv64(kv::kv_kind::rotated, 0, 3);
  o.memcpy.kv = kv_section(kf, vf);
  dma_bench b(o);
  std::vector<uint8_t> x(16 * 16);  // 128 BF16: two vectors
  for (size_t i = 0; i < 128; ++i) {
    const float v = std::sin(0.37f * i) * (i == 5 ? 9.0f : 1.5f);
    const uint16_t h = npu::bf16::from_float(v);
    x[2 * i] = uint8_t(h & 0xFF), x[2 * i + 1] = uint8_t(h >> 8);
  }
  b.l2->debug_write(0x100, 16, x.data());
  const kv::kv_codec key(kf), value(vf);
  const uint32_t kb = key.format().record_bytes(), vb = value.format().record_bytes();
  const uint64_t kdst = kBase + 0xA000, vdst = kBase + 0xB000;
  uint32_t status = 0, ks = 0, vs = 0;
  b.run([&](bus_master& m) {
    m.issue(memset_word(0, 1, 1, 2, 64));  // 128 elements
    m.submit(PCCX_DMA_ACP_RESULT, kdst, 2 * kb, 1);
    m.issue(memcpy_word(true, true, 0, 0x100, 1, false));
    ks = m.wait_status(PCCX_DMA_ACP_RESULT);
    m.submit(PCCX_DMA_ACP_RESULT, vdst, 2 * vb, 2);
    m.issue(memcpy_word(true, true, 1, 0x100, 1, false));
    status = m.wait_not_busy();
    vs = m.wait_status(PCCX_DMA_ACP_RESULT);
  });
  EXPECT_EQ(status & PCCX_STAT_ERROR, 0u);
  EXPECT_EQ(PCCX_DMA_STS_ERR(ks), 0u);
  EXPECT_EQ(PCCX_DMA_STS_ERR(vs), 0u);
  for (uint32_t v = 0; v < 2; ++v) {
    float in[64];
    for (uint32_t i = 0; i < 64; ++i)
      in[i] = npu::bf16::to_float(uint16_t(x[2 * (v * 64 + i)] | x[2 * (v * 64 + i) + 1] << 8));
    std::vector<uint8_t> want_k(kb), want_v(vb);
    key.encode(in, want_k.data());
    value.encode(in, want_v.data());
    for (uint32_t i = 0; i < kb; ++i)
      ASSERT_EQ(*b.ddr->at(kdst + v * kb + i), want_k[i]) << v << ":" << i;
    for (uint32_t i = 0; i < vb; ++i)
      ASSERT_EQ(*b.ddr->at(vdst + v * vb + i), want_v[i]) << v << ":" << i;
  }
  EXPECT_EQ(b.memcpy->statistics().kv_records, 4u);
  EXPECT_EQ(b.memcpy->statistics().kv_record_bytes, 2u * (kb + vb));
}

TEST(MemcpyUnit, KvAppendChecksItsOperands) {
  bench_options o = with_npu();
  o.memcpy.kv = kv_section(kv64(kv::kv_kind::fp16, 0), kv64(kv::kv_kind::fp16, 0));
  dma_bench b(o);
  uint32_t code_dest = 0, code_len = 0;
  b.run([&](bus_master& m) {
    m.issue(memset_word(0, 1, 1, 1, 64));
    m.issue(memset_word(0, 2, 1, 1, 96));                  // not a whole number of vectors
    m.issue(memcpy_word(true, true, 2, 0x100, 1, false));  // dest 2 names no stream
    m.wait_not_busy();
    code_dest = m.read32(PCCX_REG_ERR_CODE);
    m.write32(UCA_REG_STATUS, PCCX_STAT_ERROR);  // write 1 to clear
    m.issue(memcpy_word(true, true, 0, 0x100, 2, false));
    m.wait_not_busy();
    code_len = m.read32(PCCX_REG_ERR_CODE);
  });
  EXPECT_EQ(code_dest, uint32_t(PCCX_ERR_UNIT_FAULT));
  EXPECT_EQ(code_len, uint32_t(PCCX_ERR_UNIT_FAULT));
}

TEST(MemcpyUnit, AnL2RangeErrorBecomesAnNpuError) {
  bench_options o = with_npu();
  o.l2.section.words = 1024;  // an L2 smaller than the decoder's limit
  dma_bench b(o);
  uint32_t code = 0;
  b.run([&](bus_master& m) {
    m.issue(memset_word(0, 1, 1, 1, 64));
    m.issue(memcpy_word(false, false, 0x2000, 0x100, 1, false));
    m.wait_not_busy();
    code = m.read32(PCCX_REG_ERR_CODE);
  });
  EXPECT_EQ(code, static_cast<uint32_t>(PCCX_ERR_L2_RANGE));
}

TEST(MemcpyUnit, BigHostToL2TransfersRunAtTheDdrRate) {
  dma_bench b(with_npu());
  constexpr uint32_t kBytes = 65536;  // 4096 words through a 512-byte FIFO
  b.ddr->fill_pattern(kBase, kBytes, 76);
  b.run([&](bus_master& m) {
    m.issue(memset_word(0, 1, 1, 8, 4096));
    m.submit(PCCX_DMA_ACP_FMAP, kBase, kBytes, 0);
    m.issue(memcpy_word(true, false, 0x8000, 0, 1, false));
    m.wait_not_busy();
  });
  EXPECT_TRUE(is_pattern(l2_bytes(*b.l2, 0x8000, 4096), 76));
  // 64 KiB at 4 GB/s = 16.4 us = 6554 cycles; the 512-byte FIFO keeps four
  // 128-byte reads in flight, which nearly hides the 100 ns latency.
  EXPECT_GE(dma_busy_cycles(b), 6554u);
  EXPECT_LE(dma_busy_cycles(b), 7400u);
}

TEST(MemcpyUnit, BigL2ToHostTransfersRunAtTheDdrRate) {
  dma_bench b(with_npu());
  constexpr uint32_t kBytes = 65536;
  const uint64_t dst = kBase + 0x100000;
  l2_fill(*b.l2, 0x8000, 4096, 77);
  sc_time retired, landed;
  b.run([&](bus_master& m) {
    m.issue(memset_word(0, 1, 1, 8, 4096));
    m.submit(PCCX_DMA_ACP_RESULT, dst, kBytes, 0);
    m.issue(memcpy_word(false, true, 0, 0x8000, 1, false));
    m.wait_not_busy();
    retired = sc_core::sc_time_stamp();
    EXPECT_EQ(PCCX_DMA_STS_ERR(m.wait_status(PCCX_DMA_ACP_RESULT)), 0u);
    landed = sc_core::sc_time_stamp();
  });
  for (uint64_t i = 0; i < kBytes; ++i) ASSERT_EQ(*b.ddr->at(dst + i), pattern(i, 77)) << i;
  // The unit retires when the last word is in the FIFO: the DDR rate minus
  // what the FIFO holds.
  EXPECT_GE(dma_busy_cycles(b), 6300u);
  EXPECT_LE(dma_busy_cycles(b), 7400u);
  EXPECT_GE(landed, retired);
  EXPECT_GT(b.memcpy->statistics().stall, us(5)) << "the FIFO should hold the unit back";
}

TEST(MemcpyUnit, TimingModeMovesNoBytes) {
  bench_options o = with_npu();
  o.functional = false;
  dma_bench b(o);
  b.run([&](bus_master& m) {
    m.issue(memset_word(0, 1, 1, 1, 64));
    m.submit(PCCX_DMA_ACP_FMAP, kBase, 128, 0);
    m.issue(memcpy_word(true, false, 0x100, 0, 1, false));
    m.issue(memcpy_word(false, false, 0x200, 0x100, 1, false));
    m.wait_not_busy();
  });
  EXPECT_FALSE(b.l2->functional());
  EXPECT_EQ(b.memcpy->statistics().words_host_to_l2, 8u);
  EXPECT_EQ(b.memcpy->statistics().words_l2_to_l2, 8u);
  EXPECT_EQ(b.npu->cmd().retired(), 3u);
}
