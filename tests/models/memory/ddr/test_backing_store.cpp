// The backing store: functional runs keep bytes (through timed and debug
// accesses), unwritten memory reads as zeros without allocating, and timing
// runs allocate nothing however much they move. DMI is never granted.
#include <gtest/gtest.h>

#include <numeric>

#include "ddr_test_bench.h"

namespace pccx::test {
namespace {

using mem::ddr_port;

constexpr uint64_t kMiB = 1024 * 1024;

unsigned debug_access(mem::ddr_controller& ddr, bool write, uint64_t address, uint8_t* data,
                      unsigned length) {
  tlm::tlm_generic_payload tr;
  tr.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  tr.set_address(address);
  tr.set_data_ptr(data);
  tr.set_data_length(length);
  return ddr.port(ddr_port::cpu).get_base_export()->transport_dbg(tr);
}

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 13);
  return v;
}

TEST(DdrStore, FunctionalRoundTripThroughTimedAndDebugAccess) {
  ddr_system sys({"memory_map.ddr_base=0x40000000"});
  const uint64_t at = 0x40000000 + 4096 - 100;  // crosses a page boundary
  auto data = pattern(6000, 3);
  ASSERT_EQ(access(*sys.ddr, ddr_port::hp0, true, at, data.data(), 6000), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(sys.ddr->store().allocated_pages(), 3u);

  std::vector<uint8_t> back(6000, 0xEE);
  ASSERT_EQ(access(*sys.ddr, ddr_port::hp3, false, at, back.data(), 6000), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(back, data);

  std::vector<uint8_t> dbg(6000);
  EXPECT_EQ(debug_access(*sys.ddr, false, at, dbg.data(), 6000), 6000u);
  EXPECT_EQ(dbg, data);

  // A loader writes through debug; a timed read sees it. Debug costs no time.
  auto loaded = pattern(256, 99);
  EXPECT_EQ(debug_access(*sys.ddr, true, 0x40100000, loaded.data(), 256), 256u);
  std::vector<uint8_t> seen(256);
  ASSERT_EQ(access(*sys.ddr, ddr_port::acp, false, 0x40100000, seen.data(), 256),
            tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(seen, loaded);
  EXPECT_EQ(sys.ddr->recorder().total().transactions, 3u);                   // debug is not counted
  EXPECT_EQ(debug_access(*sys.ddr, false, 0x3FFFFFF0, dbg.data(), 64), 0u);  // out of range
}

TEST(DdrStore, ByteEnablesMaskWrites) {
  ddr_system sys;
  std::vector<uint8_t> ones(8, 0x11), be{0xFF, 0x00};
  tlm::tlm_generic_payload tr;
  tr.set_extension(new mem::ddr_traffic(ddr_port::cpu, mem::traffic_class::host));
  tr.set_command(tlm::TLM_WRITE_COMMAND);
  tr.set_address(0x100);
  tr.set_data_ptr(ones.data());
  tr.set_data_length(8);
  tr.set_streaming_width(8);
  tr.set_byte_enable_ptr(be.data());
  tr.set_byte_enable_length(2);
  sc_time delay;
  sys.ddr->port(ddr_port::cpu).get_base_export()->b_transport(tr, delay);
  ASSERT_TRUE(tr.is_response_ok());
  std::vector<uint8_t> back(8);
  debug_access(*sys.ddr, false, 0x100, back.data(), 8);
  EXPECT_EQ(back, (std::vector<uint8_t>{0x11, 0, 0x11, 0, 0x11, 0, 0x11, 0}));
}

TEST(DdrStore, UnwrittenMemoryReadsZeroWithoutAllocating) {
  ddr_system sys;
  std::vector<uint8_t> buf(1 * kMiB, 0xAB);
  ASSERT_EQ(access(*sys.ddr, ddr_port::hp2, false, 0x80000000, buf.data(), 1 * kMiB),
            tlm::TLM_OK_RESPONSE);
  EXPECT_TRUE(std::all_of(buf.begin(), buf.end(), [](uint8_t b) { return b == 0; }));
  std::fill(buf.begin(), buf.end(), 0xAB);
  EXPECT_EQ(debug_access(*sys.ddr, false, 0xFFFFF000, buf.data(), 4096), 4096u);
  EXPECT_TRUE(std::all_of(buf.begin(), buf.begin() + 4096, [](uint8_t b) { return b == 0; }));
  EXPECT_EQ(sys.ddr->store().allocated_pages(), 0u);
  EXPECT_EQ(sys.ddr->store().allocated_bytes(), 0u);
}

TEST(DdrStore, TimingModeAllocatesNothingAfterOneGiB) {
  ddr_system sys({"simulation.mode=timing"});
  stream_job job;
  job.bytes = 256 * kMiB;
  job.block_bytes = 1 * kMiB;
  sys.add_ports({ddr_port::hp0, ddr_port::hp1}, job);
  job.write = true;
  job.address = 512 * kMiB;
  sys.add_ports({ddr_port::hp2, ddr_port::hp3}, job);
  run_all();
  uint64_t moved = 0;
  for (const auto& s : sys.streams) {
    ASSERT_FALSE(s->failed);
    moved += s->bytes_done;
  }
  EXPECT_EQ(moved, 1024 * kMiB);
  EXPECT_EQ(sys.ddr->recorder().total().bytes, 1024 * kMiB);
  EXPECT_EQ(sys.ddr->store().allocated_pages(), 0u);
  EXPECT_EQ(sys.ddr->store().allocated_bytes(), 0u);
  // The timeline keeps only what lies ahead of the kernel's time.
  EXPECT_LT(sys.ddr->scheduler().timeline().breakpoints(), 16u);
  // Debug access keeps no data in timing mode either.
  uint8_t b[16] = {};
  EXPECT_EQ(debug_access(*sys.ddr, true, 0, b, 16), 0u);
  EXPECT_EQ(sys.ddr->store().allocated_pages(), 0u);
}

TEST(DdrStore, DmiIsNotGranted) {
  ddr_system sys;
  tlm::tlm_generic_payload tr;
  tr.set_address(0);
  tlm::tlm_dmi dmi;
  EXPECT_FALSE(sys.ddr->port(ddr_port::hp0).get_base_export()->get_direct_mem_ptr(tr, dmi));
}

}  // namespace
}  // namespace pccx::test
