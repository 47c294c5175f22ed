// DMA channels over the fake DDR (4 GB/s per port, 100 ns latency): data and
// timing of descriptors, tags and status order, descriptor errors, a full
// descriptor or status queue, ACP_RESULT draining to DDR, traffic classes,
// register access rules.
#include <gtest/gtest.h>

#include <sstream>

#include "dma_bench.h"
#include "infra/log/logger.h"

using namespace pccx;
using namespace pccx::test;
using sc_core::SC_ZERO_TIME;

namespace {

constexpr uint64_t kBase = 0x10000000;

// Captures log lines for the duration of a test.
struct log_capture {
  std::ostringstream os;
  log_capture() { log::log_config::instance().set_stream(&os); }
  ~log_capture() { log::log_config::instance().reset(); }
};

uint64_t read_bytes_done(bus_master& m, unsigned ch) {
  const uint64_t lo = m.dma_read(ch, PCCX_DMA_REG_BYTES_DONE_LO);
  return lo | (static_cast<uint64_t>(m.dma_read(ch, PCCX_DMA_REG_BYTES_DONE_HI)) << 32);
}

void expect_pattern(const std::vector<uint8_t>& got, uint64_t offset, uint64_t n, uint8_t seed) {
  ASSERT_GE(got.size(), offset + n);
  for (uint64_t i = 0; i < n; ++i)
    ASSERT_EQ(got[offset + i], pattern(i, seed)) << "byte " << i << " of the block at " << offset;
}

}  // namespace

// ---------------------------------------------------------------- timing

struct timing_case {
  const char* name;
  uint32_t block_bytes;
  uint32_t outstanding;
  uint32_t coalesce_blocks;
  double expected_ns;  // from the PUSH to the last byte in the FIFO
  uint64_t transactions;
};

void PrintTo(const timing_case& c, std::ostream* os) {
  *os << c.name;
}

class DmaTiming : public ::testing::TestWithParam<timing_case> {};

TEST_P(DmaTiming, OneDescriptorArrivesInOrderAtTheDdrRate) {
  const timing_case& c = GetParam();
  bench_options o;
  o.dma.section.block_bytes = c.block_bytes;
  o.dma.section.outstanding = c.outstanding;
  o.dma.section.coalesce_blocks = c.coalesce_blocks;
  dma_bench b(o);
  constexpr uint64_t kN = 65536, kAddr = kBase + 0x20000;
  b.ddr->fill_pattern(kAddr, kN, 1);
  drain_record got;
  b.spawn(drainer(b.fifo(PCCX_DMA_HP0), kN, 4096, got));
  sc_time pushed;
  uint32_t status = 0;
  uint64_t bytes_done = 0;
  b.run([&](bus_master& m) {
    m.submit(PCCX_DMA_HP0, kAddr, kN, 5);
    pushed = sc_core::sc_time_stamp();  // the PUSH write's arrival time
    status = m.wait_status(PCCX_DMA_HP0);
    bytes_done = read_bytes_done(m, PCCX_DMA_HP0);
  });
  ASSERT_EQ(got.data.size(), kN);
  expect_pattern(got.data, 0, kN, 1);
  EXPECT_NEAR((got.times.back() - pushed).to_seconds() * 1e9, c.expected_ns, 1.0);
  EXPECT_EQ(PCCX_DMA_STS_TAG(status), 5u);
  EXPECT_EQ(PCCX_DMA_STS_ERR(status), 0u);
  EXPECT_EQ(bytes_done, kN);
  auto& st = b.channel(PCCX_DMA_HP0).statistics();
  EXPECT_EQ(st.transactions, c.transactions);
  EXPECT_EQ(st.descriptors_done, 1u);
  EXPECT_EQ(st.bytes_done, kN);
  EXPECT_NEAR(st.busy.to_seconds() * 1e9, c.expected_ns, 1.0);
  for (const auto& r : b.ddr->log) {
    EXPECT_EQ(r.cmd, tlm::TLM_READ_COMMAND);
    EXPECT_EQ(r.port, mem::ddr_port::hp0);
    EXPECT_EQ(r.cls, mem::traffic_class::weights);
    EXPECT_LE(r.bytes, uint64_t{c.block_bytes} * c.coalesce_blocks);
  }
  // Every block reaches the FIFO at its own time, coalesced or not: one
  // chunk per block, 1,024 ns apart (4 KiB at 4 GB/s) once they stream.
  if (c.block_bytes == 4096 && c.outstanding == 4) {
    for (size_t i = 1; i < got.times.size(); ++i)
      EXPECT_NEAR((got.times[i] - got.times[i - 1]).to_seconds() * 1e9, 1024.0, 1.0) << i;
  }
}

// 64 KiB at 4 GB/s = 16,384 ns. With enough blocks in flight the 100 ns
// latency is paid once; with one it is paid per block. Coalescing (up to 8
// blocks per transaction, after a first block alone) changes the number of
// transactions, never the times; with one block in flight the channel does
// not coalesce, since each block waits for the previous one's latency.
INSTANTIATE_TEST_SUITE_P(
    Blocks, DmaTiming,
    ::testing::Values(timing_case{"block4k_out4", 4096, 4, 1, 16384 + 100, 16},
                      timing_case{"block4k_out1", 4096, 1, 1, 16 * (1024 + 100), 16},
                      timing_case{"block1k_out4", 1024, 4, 1, 16384 + 100, 64},
                      timing_case{"block1k_out1", 1024, 1, 1, 64 * (256 + 100), 64},
                      timing_case{"block4k_out4_coalesce8", 4096, 4, 8, 16384 + 100, 3},
                      timing_case{"block4k_out1_coalesce8", 4096, 1, 8, 16 * (1024 + 100), 16},
                      timing_case{"block1k_out4_coalesce8", 1024, 4, 8, 16384 + 100, 9},
                      timing_case{"block1k_out1_coalesce8", 1024, 1, 8, 64 * (256 + 100), 64}),
    [](const auto& info) { return std::string(info.param.name); });

// A coalesced transaction's blocks reach the FIFO at floor(span x moved /
// bytes) after its data starts, plus the latency, to the tick. At 3 GB/s a
// 4 KiB block is 1,365,333.3 ps, so the remainders carry now and then.
TEST(DmaChannel, CoalescedBlocksKeepTheirShareOfTheTransferToTheTick) {
  bench_options o;
  o.functional = false;
  o.ddr_gbps = 3.0;
  o.dma.section.block_bytes = 4096;
  o.dma.section.outstanding = 4;
  o.dma.section.coalesce_blocks = 8;
  dma_bench b(o);
  constexpr uint64_t kN = 65536;
  drain_record got;
  b.spawn(drainer(b.fifo(PCCX_DMA_HP0), kN, 4096, got));
  b.run([&](bus_master& m) {
    m.submit(PCCX_DMA_HP0, kBase, kN, 0);
    m.wait_status(PCCX_DMA_HP0);
  });
  std::vector<sc_time> want;
  bool coalesced = false, carried = false;
  for (const auto& r : b.ddr->log) {
    const uint64_t span = (r.transfer_end - r.transfer_start).value();
    const sc_time latency = r.completion - r.transfer_end;
    uint64_t before = 0;
    for (uint64_t moved = 4096; moved <= r.bytes; moved += 4096) {
      const uint64_t ticks = span * moved / r.bytes;
      carried |= moved > 4096 && ticks - before != span * 4096 / r.bytes;
      before = ticks;
      want.push_back(r.transfer_start + sc_time::from_value(ticks) + latency);
    }
    coalesced |= r.bytes > 4096;
  }
  ASSERT_TRUE(coalesced);
  ASSERT_TRUE(carried);
  ASSERT_EQ(got.times.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(got.times[i].value(), want[i].value()) << "block " << i;
}

TEST(DmaChannel, TimingModeMovesNoDataButTakesTheSameTime) {
  bench_options o;
  o.functional = false;
  dma_bench b(o);
  drain_record got;
  b.spawn(drainer(b.fifo(PCCX_DMA_HP3), 65536, 4096, got));
  sc_time pushed;
  b.run([&](bus_master& m) {
    m.submit(PCCX_DMA_HP3, kBase, 65536, 0);
    pushed = sc_core::sc_time_stamp();
    m.wait_status(PCCX_DMA_HP3);
  });
  EXPECT_NEAR((got.times.back() - pushed).to_seconds() * 1e9, 16484, 1.0);
  ASSERT_FALSE(b.ddr->log.empty());
  for (const auto& r : b.ddr->log) EXPECT_FALSE(r.has_data);
}

TEST(DmaChannel, BytesDoneCountsCompletedTransactionsOnly) {
  dma_bench b;
  drain_record got;
  b.spawn(drainer(b.fifo(PCCX_DMA_HP1), 65536, 4096, got));
  uint64_t mid = 0, end = 0;
  b.run([&](bus_master& m) {
    m.submit(PCCX_DMA_HP1, kBase, 65536, 0);
    sc_core::wait(us(5));
    mid = read_bytes_done(m, PCCX_DMA_HP1);
    m.wait_status(PCCX_DMA_HP1);
    end = read_bytes_done(m, PCCX_DMA_HP1);
  });
  EXPECT_GT(mid, 0u);
  EXPECT_LT(mid, 65536u);
  EXPECT_EQ(mid % 4096, 0u);
  EXPECT_EQ(end, 65536u);
}

// ---------------------------------------------------------------- order

TEST(DmaChannel, DescriptorsAndTheirStatusesStayInOrder) {
  dma_bench b;
  const uint64_t a0 = kBase + 0x1000, a1 = kBase + 0x80000, a2 = kBase + 0x4000;
  b.ddr->fill_pattern(a0, 4096, 10);
  b.ddr->fill_pattern(a1, 1024, 11);
  b.ddr->fill_pattern(a2, 8192, 12);
  drain_record got;
  b.spawn(drainer(b.fifo(PCCX_DMA_HP2), 4096 + 1024 + 8192, 512, got));
  uint32_t level = 0, flags_done = 0, flags_empty = 0;
  std::vector<uint32_t> statuses;
  b.run([&](bus_master& m) {
    m.submit(PCCX_DMA_HP2, a0, 4096, 1);
    m.submit(PCCX_DMA_HP2, a1, 1024, 2);
    m.submit(PCCX_DMA_HP2, a2, 8192, 3);
    sc_core::wait(us(20));
    level = m.dma_read(PCCX_DMA_HP2, PCCX_DMA_REG_STS_LVL);
    flags_done = m.dma_read(PCCX_DMA_HP2, PCCX_DMA_REG_FLAGS);
    for (int i = 0; i < 4; ++i) statuses.push_back(m.dma_read(PCCX_DMA_HP2, PCCX_DMA_REG_STS_POP));
    flags_empty = m.dma_read(PCCX_DMA_HP2, PCCX_DMA_REG_FLAGS);
  });
  expect_pattern(got.data, 0, 4096, 10);
  expect_pattern(got.data, 4096, 1024, 11);
  expect_pattern(got.data, 5120, 8192, 12);
  EXPECT_EQ(level, 3u);
  EXPECT_EQ(flags_done, PCCX_DMA_FLAG_CMD_EMPTY);
  ASSERT_EQ(statuses.size(), 4u);
  for (unsigned i = 0; i < 3; ++i) {
    EXPECT_TRUE(statuses[i] & PCCX_DMA_STS_VALID);
    EXPECT_EQ(PCCX_DMA_STS_TAG(statuses[i]), i + 1);
    EXPECT_EQ(PCCX_DMA_STS_ERR(statuses[i]), 0u);
  }
  EXPECT_EQ(statuses[3], PCCX_DMA_STS_EMPTY);
  EXPECT_EQ(flags_empty, PCCX_DMA_FLAG_CMD_EMPTY | PCCX_DMA_FLAG_STS_EMPTY);
  EXPECT_EQ(b.channel(PCCX_DMA_HP2).statistics().descriptors_done, 3u);
}

TEST(DmaChannel, AStatusIsNotVisibleBeforeItsDescriptorCompletes) {
  dma_bench b;
  drain_record got;
  b.spawn(drainer(b.fifo(PCCX_DMA_HP0), 65536, 65536, got));
  uint32_t early_level = 1, early_pop = 1, early_flags = 0;
  b.run([&](bus_master& m) {
    m.submit(PCCX_DMA_HP0, kBase, 65536, 9);
    early_level = m.dma_read(PCCX_DMA_HP0, PCCX_DMA_REG_STS_LVL);
    early_pop = m.dma_read(PCCX_DMA_HP0, PCCX_DMA_REG_STS_POP);
    early_flags = m.dma_read(PCCX_DMA_HP0, PCCX_DMA_REG_FLAGS);
    m.wait_status(PCCX_DMA_HP0);
  });
  EXPECT_EQ(early_level, 0u);
  EXPECT_EQ(early_pop, PCCX_DMA_STS_EMPTY);
  EXPECT_TRUE(early_flags & PCCX_DMA_FLAG_BUSY);
  EXPECT_TRUE(early_flags & PCCX_DMA_FLAG_STS_EMPTY);
}

// ---------------------------------------------------------------- errors

struct error_case {
  const char* name;
  uint64_t addr;
  uint32_t bytes;
  uint32_t err;
  const char* reason;  // part of the warning
};

void PrintTo(const error_case& c, std::ostream* os) {
  *os << c.name;
}

class DmaDescriptorError : public ::testing::TestWithParam<error_case> {};

TEST_P(DmaDescriptorError, SetsErrReportsAndServesTheNextDescriptor) {
  const error_case& c = GetParam();
  log_capture logs;
  dma_bench b;
  std::vector<mem::dma_fault> faults;
  b.channel(PCCX_DMA_HP0).faults.subscribe([&](const mem::dma_fault& f) { faults.push_back(f); });
  b.ddr->fill_pattern(kBase + 0x100, 4096, 20);
  drain_record got;
  b.spawn(drainer(b.fifo(PCCX_DMA_HP0), 4096, 4096, got));
  uint32_t bad = 0, good = 0, err = 0, flags = 0, err_after = 0, flags_after = 0;
  b.run([&](bus_master& m) {
    m.submit(PCCX_DMA_HP0, c.addr, c.bytes, 7);
    m.submit(PCCX_DMA_HP0, kBase + 0x100, 4096, 8);
    bad = m.wait_status(PCCX_DMA_HP0);
    good = m.wait_status(PCCX_DMA_HP0);
    err = m.dma_read(PCCX_DMA_HP0, PCCX_DMA_REG_ERR);
    flags = m.dma_read(PCCX_DMA_HP0, PCCX_DMA_REG_FLAGS);
    m.dma_write(PCCX_DMA_HP0, PCCX_DMA_REG_ERR, c.err);  // write 1 to clear
    err_after = m.dma_read(PCCX_DMA_HP0, PCCX_DMA_REG_ERR);
    flags_after = m.dma_read(PCCX_DMA_HP0, PCCX_DMA_REG_FLAGS);
  });
  EXPECT_EQ(PCCX_DMA_STS_TAG(bad), 7u);
  EXPECT_EQ(PCCX_DMA_STS_ERR(bad), c.err);
  EXPECT_EQ(PCCX_DMA_STS_TAG(good), 8u);
  EXPECT_EQ(PCCX_DMA_STS_ERR(good), 0u);
  EXPECT_EQ(err, c.err);
  EXPECT_TRUE(flags & PCCX_DMA_FLAG_ERROR);
  EXPECT_EQ(err_after, 0u);
  EXPECT_FALSE(flags_after & PCCX_DMA_FLAG_ERROR);
  expect_pattern(got.data, 0, 4096, 20);
  // Nothing of the bad descriptor reached DDR.
  for (const auto& r : b.ddr->log) EXPECT_EQ(r.addr >> 12, (kBase + 0x100) >> 12);
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].seq, 0u);
  EXPECT_EQ(faults[0].tag, 7u);
  EXPECT_EQ(faults[0].errors, c.err);
  const std::string text = logs.os.str();
  EXPECT_NE(text.find("dma_hp0: descriptor #0 (tag 7"), std::string::npos) << text;
  EXPECT_NE(text.find(c.reason), std::string::npos) << text;
  EXPECT_NE(text.find("[W "), std::string::npos) << text;
  EXPECT_EQ(b.channel(PCCX_DMA_HP0).statistics().errors, 1u);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, DmaDescriptorError,
    ::testing::Values(error_case{"beyond_ddr_end", kBase + 0x01000000 - 2048, 4096,
                                 PCCX_DMA_ERR_RANGE, "is not inside DDR"},
                      error_case{"below_ddr_base", 0x1000, 4096, PCCX_DMA_ERR_RANGE,
                                 "is not inside DDR"},
                      error_case{"zero_length", kBase, 0, PCCX_DMA_ERR_ZERO_LENGTH, "zero length"},
                      error_case{"misaligned_address", kBase + 8, 4096, PCCX_DMA_ERR_ALIGN_ADDR,
                                 "address 0x10000008 is not a multiple of 16"},
                      error_case{"misaligned_length", kBase, 4100, PCCX_DMA_ERR_ALIGN_LEN,
                                 "length 4100 is not a multiple of 16"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(DmaChannel, ADdrErrorFailsTheDescriptorAndTheChannelGoesOn) {
  bench_options o;
  o.ddr_size = 0x02000000;  // the channel accepts 32 MiB, the DDR answers for 16
  dma_bench b(o);
  log_capture logs;
  drain_record got;
  b.ddr->fill_pattern(kBase, 1024, 30);
  b.spawn(drainer(b.fifo(PCCX_DMA_HP0), 1024, 1024, got));
  uint32_t bad = 0, good = 0, err = 0;
  b.run([&](bus_master& m) {
    m.submit(PCCX_DMA_HP0, kBase + 0x01400000, 8192, 1);
    m.submit(PCCX_DMA_HP0, kBase, 1024, 2);
    bad = m.wait_status(PCCX_DMA_HP0);
    good = m.wait_status(PCCX_DMA_HP0);
    err = m.dma_read(PCCX_DMA_HP0, PCCX_DMA_REG_ERR);
  });
  EXPECT_EQ(PCCX_DMA_STS_ERR(bad), PCCX_DMA_ERR_BUS);
  EXPECT_EQ(PCCX_DMA_STS_ERR(good), 0u);
  EXPECT_EQ(err, PCCX_DMA_ERR_BUS);
  expect_pattern(got.data, 0, 1024, 30);
  EXPECT_EQ(b.fifo(PCCX_DMA_HP0).reserved(), 0u);
  EXPECT_NE(logs.os.str().find("DDR answered"), std::string::npos);
}

// ---------------------------------------------------------------- queues

TEST(DmaChannel, APushIntoAFullDescriptorQueueIsHeldUntilASlotFrees) {
  bench_options o;
  o.dma.section.descriptor_depth = 2;
  o.weight_fifo_bytes = 8192;  // one descriptor fills it
  dma_bench b(o);
  b.ddr->fill_pattern(kBase, 5 * 8192, 40);
  drain_record got;
  b.spawn(drainer(b.fifo(PCCX_DMA_HP0), 5 * 8192, 2048, got, us(20)));
  uint32_t flags = 0, level = 0;
  sc_time fifth_push;
  std::vector<uint32_t> statuses;
  b.run([&](bus_master& m) {
    for (unsigned i = 0; i < 4; ++i) m.submit(PCCX_DMA_HP0, kBase + i * 8192, 8192, i);
    // #0 fills the FIFO, #1 waits for space, #2 and #3 fill the queue.
    flags = m.dma_read(PCCX_DMA_HP0, PCCX_DMA_REG_FLAGS);
    level = m.dma_read(PCCX_DMA_HP0, PCCX_DMA_REG_CMD_LVL);
    m.submit(PCCX_DMA_HP0, kBase + 4 * 8192, 8192, 4);
    fifth_push = sc_core::sc_time_stamp();
    for (int i = 0; i < 5; ++i) statuses.push_back(m.wait_status(PCCX_DMA_HP0));
  });
  EXPECT_TRUE(flags & PCCX_DMA_FLAG_CMD_FULL);
  EXPECT_TRUE(flags & PCCX_DMA_FLAG_BUSY);
  EXPECT_EQ(level, 2u);
  EXPECT_GE(fifth_push, us(20)) << "the held PUSH completed before the consumer made room";
  ASSERT_EQ(statuses.size(), 5u);
  for (unsigned i = 0; i < 5; ++i) EXPECT_EQ(PCCX_DMA_STS_TAG(statuses[i]), i);
  expect_pattern(got.data, 0, 5 * 8192, 40);
  EXPECT_GT(b.channel(PCCX_DMA_HP0).statistics().stall, us(15));
  EXPECT_GT(b.fifo(PCCX_DMA_HP0).statistics().producer_stall, us(15));
}

TEST(DmaChannel, AFullStatusQueueHoldsTheChannelUntilFirmwarePops) {
  bench_options o;
  o.dma.section.status_depth = 2;
  dma_bench b(o);
  drain_record got;
  b.spawn(drainer(b.fifo(PCCX_DMA_HP0), 3 * 1024, 1024, got));
  uint32_t level = 0, flags = 0;
  std::vector<uint32_t> statuses;
  b.run([&](bus_master& m) {
    for (unsigned i = 0; i < 3; ++i) m.submit(PCCX_DMA_HP0, kBase + i * 1024, 1024, i);
    sc_core::wait(us(10));
    level = m.dma_read(PCCX_DMA_HP0, PCCX_DMA_REG_STS_LVL);
    flags = m.dma_read(PCCX_DMA_HP0, PCCX_DMA_REG_FLAGS);
    for (int i = 0; i < 3; ++i) statuses.push_back(m.wait_status(PCCX_DMA_HP0));
  });
  EXPECT_EQ(level, 2u);
  EXPECT_TRUE(flags & PCCX_DMA_FLAG_STS_FULL);
  EXPECT_TRUE(flags & PCCX_DMA_FLAG_BUSY) << "the third status is still waiting";
  ASSERT_EQ(statuses.size(), 3u);
  for (unsigned i = 0; i < 3; ++i) EXPECT_EQ(PCCX_DMA_STS_TAG(statuses[i]), i);
  EXPECT_GT(b.channel(PCCX_DMA_HP0).statistics().stall, us(5));
}

TEST(DmaChannel, ASlowConsumerStallsTheChannel) {
  bench_options o;
  o.weight_fifo_bytes = 16384;
  dma_bench b(o);
  b.ddr->fill_pattern(kBase, 65536, 50);
  drain_record got;
  worker& consumer = b.spawn(drainer(b.fifo(PCCX_DMA_HP2), 65536, 4096, got, SC_ZERO_TIME, us(2)));
  b.run([&](bus_master& m) {
    m.submit(PCCX_DMA_HP2, kBase, 65536, 0);
    m.wait_status(PCCX_DMA_HP2);                      // the last bytes are in the FIFO...
    while (!consumer.finished) sc_core::wait(us(1));  // ...and then consumed
  });
  expect_pattern(got.data, 0, 65536, 50);
  // 16 pops 2 us apart: the stream is consumer-bound, not DDR-bound.
  EXPECT_GE(got.times.back(), us(30));
  EXPECT_GT(b.channel(PCCX_DMA_HP2).statistics().stall, us(10));
}

// ---------------------------------------------------------------- ACP_RESULT

TEST(DmaChannel, AcpResultDrainsItsFifoIntoDdr) {
  dma_bench b;
  constexpr uint64_t kN = 2048, kAddr = kBase + 0x300000;
  mem::stream_fifo& f = b.fifo(PCCX_DMA_ACP_RESULT);
  b.spawn([&] {
    uint8_t buf[256];
    for (uint64_t sent = 0; sent < kN; sent += 256) {
      for (uint64_t i = 0; i < 256; ++i) buf[i] = pattern(sent + i, 60);
      f.push(256, sc_core::sc_time_stamp(), buf);  // waits while the 512-byte FIFO is full
      sc_core::wait(ns(40));                       // 256 B at 6.4 GB/s
    }
  });
  uint32_t status = 0, info = 0;
  b.run([&](bus_master& m) {
    m.submit(PCCX_DMA_ACP_RESULT, kAddr, kN, 3);
    status = m.wait_status(PCCX_DMA_ACP_RESULT);
    info = m.dma_read(PCCX_DMA_ACP_RESULT, PCCX_DMA_REG_INFO);
  });
  EXPECT_EQ(PCCX_DMA_STS_TAG(status), 3u);
  EXPECT_EQ(PCCX_DMA_STS_ERR(status), 0u);
  for (uint64_t i = 0; i < kN; ++i) ASSERT_EQ(*b.ddr->at(kAddr + i), pattern(i, 60)) << i;
  ASSERT_FALSE(b.ddr->log.empty());
  for (const auto& r : b.ddr->log) {
    EXPECT_EQ(r.cmd, tlm::TLM_WRITE_COMMAND);
    EXPECT_EQ(r.port, mem::ddr_port::acp);
    EXPECT_EQ(r.cls, mem::traffic_class::activations);
    EXPECT_TRUE(r.has_data);
  }
  EXPECT_EQ(info, PCCX_DMA_INFO_TO_DDR | (4u << 8));
  EXPECT_EQ(b.channel(PCCX_DMA_ACP_RESULT).block_bytes(), 128u);  // 512-byte FIFO / 4 in flight
}

// ---------------------------------------------------------------- class

TEST(DmaChannel, TheClassRegisterTagsTheFollowingDescriptors) {
  log_capture logs;
  dma_bench b;
  drain_record got;
  b.spawn(drainer(b.fifo(PCCX_DMA_HP1), 3 * 1024, 1024, got));
  uint32_t class_after_bad = 0, err = 0, acp_class = 0;
  b.run([&](bus_master& m) {
    m.submit(PCCX_DMA_HP1, kBase + 0x0000, 1024, 0);  // default: weights
    m.dma_write(PCCX_DMA_HP1, PCCX_DMA_REG_CLASS, PCCX_DMA_CLASS_KV_READ);
    m.submit(PCCX_DMA_HP1, kBase + 0x1000, 1024, 1);
    m.dma_write(PCCX_DMA_HP1, PCCX_DMA_REG_CLASS, 9);  // no such class: ignored
    class_after_bad = m.dma_read(PCCX_DMA_HP1, PCCX_DMA_REG_CLASS);
    err = m.dma_read(PCCX_DMA_HP1, PCCX_DMA_REG_ERR);
    m.submit(PCCX_DMA_HP1, kBase + 0x2000, 1024, 2);
    for (int i = 0; i < 3; ++i) m.wait_status(PCCX_DMA_HP1);
    acp_class = m.dma_read(PCCX_DMA_ACP_FMAP, PCCX_DMA_REG_CLASS);
  });
  ASSERT_EQ(b.ddr->log.size(), 3u);
  for (const auto& r : b.ddr->log) {
    EXPECT_TRUE(r.has_traffic);
    EXPECT_EQ(r.port, mem::ddr_port::hp1);
    EXPECT_EQ(r.cls, r.addr == kBase ? mem::traffic_class::weights : mem::traffic_class::kv_read)
        << std::hex << r.addr;
  }
  EXPECT_EQ(class_after_bad, PCCX_DMA_CLASS_KV_READ);
  EXPECT_EQ(err, PCCX_DMA_ERR_CLASS);
  EXPECT_EQ(acp_class, PCCX_DMA_CLASS_ACTIVATIONS);
  EXPECT_NE(logs.os.str().find("CLASS write of 9 ignored"), std::string::npos);
}

// ---------------------------------------------------------------- registers

TEST(DmaChannel, RegisterAccessRules) {
  dma_bench b;
  drain_record got;
  b.spawn(drainer(b.fifo(PCCX_DMA_HP0), 16, 16, got));
  std::map<std::string, tlm::tlm_response_status> r;
  uint32_t depth = 0, info_hp2 = 0, peek = 0, popped = 0, again = 0, addr_lo = 0, addr_hi = 0,
           bytes = 0;
  b.run([&](bus_master& m) {
    uint32_t v = 0;
    r["unknown read"] = m.access(tlm::TLM_READ_COMMAND, PCCX_DMA_REG(0, 0x40), v);
    v = 1;
    r["unknown write"] = m.access(tlm::TLM_WRITE_COMMAND, PCCX_DMA_REG(0, 0xFFC), v);
    r["read PUSH"] = m.access(tlm::TLM_READ_COMMAND, PCCX_DMA_REG(0, PCCX_DMA_REG_PUSH), v);
    r["write FLAGS"] = m.access(tlm::TLM_WRITE_COMMAND, PCCX_DMA_REG(0, PCCX_DMA_REG_FLAGS), v);
    r["write STS_POP"] = m.access(tlm::TLM_WRITE_COMMAND, PCCX_DMA_REG(0, PCCX_DMA_REG_STS_POP), v);
    r["2-byte read"] = m.access(tlm::TLM_READ_COMMAND, PCCX_DMA_REG(0, PCCX_DMA_REG_ERR), v, 2);
    r["unaligned"] = m.access(tlm::TLM_READ_COMMAND, PCCX_DMA_REG(0, 0x22), v);
    depth = m.dma_read(0, PCCX_DMA_REG_DEPTH);
    info_hp2 = m.dma_read(PCCX_DMA_HP2, PCCX_DMA_REG_INFO);
    m.submit(0, kBase + 0x123450, 16, 6);
    addr_lo = m.dma_read(0, PCCX_DMA_REG_ADDR_LO);
    addr_hi = m.dma_read(0, PCCX_DMA_REG_ADDR_HI);
    bytes = m.dma_read(0, PCCX_DMA_REG_BYTES);
    sc_core::wait(us(2));
    m.access(tlm::TLM_READ_COMMAND, PCCX_DMA_REG(0, PCCX_DMA_REG_STS_POP), peek, 4, true);
    popped = m.dma_read(0, PCCX_DMA_REG_STS_POP);
    again = m.dma_read(0, PCCX_DMA_REG_STS_POP);
  });
  EXPECT_EQ(r["unknown read"], tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(r["unknown write"], tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(r["read PUSH"], tlm::TLM_COMMAND_ERROR_RESPONSE);
  EXPECT_EQ(r["write FLAGS"], tlm::TLM_COMMAND_ERROR_RESPONSE);
  EXPECT_EQ(r["write STS_POP"], tlm::TLM_COMMAND_ERROR_RESPONSE);
  EXPECT_EQ(r["2-byte read"], tlm::TLM_BURST_ERROR_RESPONSE);
  EXPECT_EQ(r["unaligned"], tlm::TLM_BURST_ERROR_RESPONSE);
  EXPECT_EQ(depth, 8u | (8u << 16));
  EXPECT_EQ(info_hp2, 2u << 8);
  EXPECT_EQ(addr_lo, static_cast<uint32_t>(kBase + 0x123450));
  EXPECT_EQ(addr_hi, 0u);
  EXPECT_EQ(bytes, 16u);
  EXPECT_EQ(peek, popped) << "a debug read must not pop";
  EXPECT_EQ(PCCX_DMA_STS_TAG(popped), 6u);
  EXPECT_EQ(again, PCCX_DMA_STS_EMPTY);
  EXPECT_EQ(mem::dma_channel::register_name(PCCX_DMA_REG_STS_POP), "STS_POP");
  EXPECT_EQ(mem::dma_channel::register_name(0x40), "");
}

TEST(DmaChannel, PageDefaults) {
  for (unsigned n = 0; n < 4; ++n) {
    auto p = mem::dma_channel_params::for_page(n);
    EXPECT_EQ(p.port, static_cast<mem::ddr_port>(n));
    EXPECT_EQ(p.direction, mem::dma_direction::ddr_to_stream);
    EXPECT_EQ(p.default_class, mem::traffic_class::weights);
  }
  auto fmap = mem::dma_channel_params::for_page(PCCX_DMA_ACP_FMAP);
  auto result = mem::dma_channel_params::for_page(PCCX_DMA_ACP_RESULT);
  EXPECT_EQ(fmap.port, mem::ddr_port::acp);
  EXPECT_EQ(fmap.direction, mem::dma_direction::ddr_to_stream);
  EXPECT_EQ(result.direction, mem::dma_direction::stream_to_ddr);
  EXPECT_EQ(result.default_class, mem::traffic_class::activations);
  EXPECT_THROW(mem::dma_channel_params::for_page(6), std::invalid_argument);
}

// ---------------------------------------------------------------- 2-D

namespace {
void submit_2d(bus_master& m, unsigned ch, uint64_t addr, uint32_t row_bytes, uint32_t rows,
               uint32_t stride, unsigned tag) {
  m.dma_write(ch, PCCX_DMA_REG_ROWS, rows);
  m.dma_write(ch, PCCX_DMA_REG_STRIDE, stride);
  m.dma_write(ch, PCCX_DMA_REG_ADDR_LO, static_cast<uint32_t>(addr));
  m.dma_write(ch, PCCX_DMA_REG_ADDR_HI, static_cast<uint32_t>(addr >> 32));
  m.dma_write(ch, PCCX_DMA_REG_BYTES, row_bytes);
  m.dma_write(ch, PCCX_DMA_REG_PUSH, tag | PCCX_DMA_PUSH_2D);
}
}  // namespace

// Rows of 48 bytes every 160: the FIFO gets the rows one after another, the
// gaps stay in DDR, and one status covers the whole.
TEST(DmaChannel, ATwoDimensionalDescriptorStreamsItsRowsInOrder) {
  dma_bench b;
  constexpr uint32_t kRows = 5, kRowBytes = 48, kStride = 160;
  for (uint32_t r = 0; r < kRows; ++r)
    b.ddr->fill_pattern(kBase + r * kStride, kStride, static_cast<uint8_t>(40 + r));
  drain_record got;
  b.spawn(drainer(b.fifo(PCCX_DMA_HP0), kRows * kRowBytes, kRowBytes, got));
  uint32_t st = 0, lvl = 0;
  uint64_t done = 0;
  b.run([&](bus_master& m) {
    submit_2d(m, PCCX_DMA_HP0, kBase, kRowBytes, kRows, kStride, 3);
    st = m.wait_status(PCCX_DMA_HP0);
    lvl = m.dma_read(PCCX_DMA_HP0, PCCX_DMA_REG_STS_LVL);
    done = read_bytes_done(m, PCCX_DMA_HP0);
  });
  EXPECT_EQ(PCCX_DMA_STS_TAG(st), 3u);
  EXPECT_EQ(PCCX_DMA_STS_ERR(st), 0u);
  EXPECT_EQ(lvl, 0u) << "one status for the whole descriptor";
  EXPECT_EQ(done, uint64_t{kRows} * kRowBytes);
  ASSERT_EQ(got.data.size(), size_t{kRows} * kRowBytes);
  for (uint32_t r = 0; r < kRows; ++r)
    expect_pattern(got.data, r * kRowBytes, kRowBytes, static_cast<uint8_t>(40 + r));
  for (const auto& rec : b.ddr->log)
    EXPECT_LT((rec.addr - kBase) % kStride, kRowBytes) << "no byte of a gap is read";
}

// A plain PUSH is one row whatever ROWS holds, so firmware that never uses
// 2-D descriptors is unaffected by one that does.
TEST(DmaChannel, APlainPushIgnoresRows) {
  dma_bench b;
  b.ddr->fill_pattern(kBase, 256, 50);
  drain_record got;
  b.spawn(drainer(b.fifo(PCCX_DMA_HP1), 64, 64, got));
  b.run([&](bus_master& m) {
    m.dma_write(PCCX_DMA_HP1, PCCX_DMA_REG_ROWS, 4);
    m.dma_write(PCCX_DMA_HP1, PCCX_DMA_REG_STRIDE, 128);
    m.submit(PCCX_DMA_HP1, kBase, 64, 0);
    m.wait_status(PCCX_DMA_HP1);
    EXPECT_EQ(m.dma_read(PCCX_DMA_HP1, PCCX_DMA_REG_ROWS), 4u);
    EXPECT_EQ(m.dma_read(PCCX_DMA_HP1, PCCX_DMA_REG_STRIDE), 128u);
  });
  EXPECT_EQ(b.channel(PCCX_DMA_HP1).statistics().bytes_done, 64u);
  expect_pattern(got.data, 0, 64, 50);
}

// The checks cover the whole extent: a last row past the DDR end, or a
// stride off the alignment, drops the descriptor before any row moves.
TEST(DmaChannel, TwoDimensionalChecksCoverEveryRow) {
  log_capture logs;
  dma_bench b;
  uint32_t past_end = 0, odd_stride = 0;
  b.run([&](bus_master& m) {
    submit_2d(m, PCCX_DMA_HP2, kBase + 0x01000000 - 4096, 1024, 3, 2048, 1);
    past_end = m.wait_status(PCCX_DMA_HP2);
    submit_2d(m, PCCX_DMA_HP2, kBase, 1024, 3, 1032, 2);
    odd_stride = m.wait_status(PCCX_DMA_HP2);
  });
  EXPECT_EQ(PCCX_DMA_STS_ERR(past_end), PCCX_DMA_ERR_RANGE);
  EXPECT_EQ(PCCX_DMA_STS_ERR(odd_stride), PCCX_DMA_ERR_ALIGN_ADDR);
  EXPECT_TRUE(b.ddr->log.empty());
  const std::string text = logs.os.str();
  EXPECT_NE(text.find("1024 bytes x 3 rows) dropped"), std::string::npos) << text;
  EXPECT_NE(text.find("[0x10fff000, 0x11000400) is not inside DDR"), std::string::npos) << text;
  EXPECT_NE(text.find("row stride 1032 is not a multiple of 16"), std::string::npos) << text;
}

// Rows that follow each other (stride = bytes) move as one run, in blocks
// as a plain descriptor of the whole: at most ceil(33,280 / 4,096) = 9 DDR
// transactions (fewer when the channel coalesces), and blocks that cross
// the 1,040-byte rows' boundaries.
TEST(DmaChannel, ContiguousRowsMoveAsOneRun) {
  dma_bench b;
  b.ddr->fill_pattern(kBase, 32 * 1040, 60);
  drain_record got;
  b.spawn(drainer(b.fifo(PCCX_DMA_HP0), 32 * 1040, 1040, got));
  b.run([&](bus_master& m) {
    submit_2d(m, PCCX_DMA_HP0, kBase, 1040, 32, 1040, 1);
    m.wait_status(PCCX_DMA_HP0);
  });
  expect_pattern(got.data, 0, 32 * 1040, 60);
  EXPECT_LE(b.ddr->log.size(), 9u);
  bool crosses = false;
  for (const auto& r : b.ddr->log)
    crosses |= (r.addr - kBase) / 1040 != (r.addr - kBase + r.bytes - 1) / 1040;
  EXPECT_TRUE(crosses);
}
