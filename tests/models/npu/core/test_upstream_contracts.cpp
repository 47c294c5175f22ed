// The memory dispatcher contracts of the pccx-v002 RTL, stated against our
// command processor: which MEMCPY routes move which L2 words, a load's
// first and last word for a shape, and what a zero-element shape does.
// The facts are the testbenches' (LLM/tb/tb_mem_dispatcher_route_contract.sv,
// tb_mem_dispatcher_shape_lookup.sv): a shape (X, Y, Z) in fmap_shape moves
// ceil(X*Y*Z / 8) words from the instruction's base address; the checks are
// ours, on the L2 ranges each dispatched instruction carries. The RTL's
// GEMM/GEMV loads read fmap_shape[shape_ptr], which is the platform's
// upstream reading of those instructions (WARN_SHAPE_UPSTREAM).
#include <gtest/gtest.h>

#include "npu_bench.h"
#include "pccx_isa_encode.h"
#include "pccx_npu_regs.h"

using namespace pccx;
using namespace pccx::test;

namespace {

struct dispatcher_bench {
  npu_bench b;
  fake_unit& dma = b.add_unit(npu::unit_kind::dma, 10);
  fake_unit& gemm = b.add_unit(npu::unit_kind::gemm, 10);
  fake_unit& gemv = b.add_unit(npu::unit_kind::gemv, 10);
};

// [first, end) of the range, as the RTL's descriptor {base, end} gives it.
std::pair<uint32_t, uint32_t> span(const isa::l2_range& r) {
  return {r.first, r.first + r.words};
}
using words = std::pair<uint32_t, uint32_t>;

}  // namespace

// tb_mem_dispatcher_route_contract: fmap_shape[3] = (5, 2, 1), 10 elements,
// 2 words. host->L2 dest 20 writes [20, 22); L2->host src 31 reads
// [31, 33); the GEMM and GEMV loads from 44 and 55 read [44, 46) and
// [55, 57). A zero-element shape enqueues nothing in the RTL; the platform
// refuses it (ERR_ZERO_LENGTH) and moves nothing either.
TEST(UpstreamDispatcher, RouteContract) {
  dispatcher_bench h;
  uint32_t err = 0;
  h.b.run([&](mmio_master& m) {
    m.issue(memset_word(0, 3, 5, 2, 1));
    m.issue(memcpy_word(true, false, 20, 0, 3, false));  // host->L2
    m.issue(memcpy_word(false, true, 0, 31, 3, false));  // L2->host
    m.issue(gemv_word(0x1000, 44, 0, 3, 0, 0, true));    // GEMM: the RTL's load
    m.issue(gemv_word(0x2000, 55, 1, 3));                // GEMV: size_ptr 1 result
    m.wait_not_busy();
    m.issue(memset_word(0, 4, 0, 8, 1));
    m.issue(memcpy_word(true, false, 70, 0, 4, false));
    m.wait_not_busy();
    err = m.read32(PCCX_REG_ERR_CODE);
  });
  ASSERT_EQ(h.dma.runs.size(), 2u);
  EXPECT_EQ(span(h.dma.runs[0].d.writes.at(0)), words(20, 22));
  EXPECT_TRUE(h.dma.runs[0].d.reads.empty());
  EXPECT_EQ(span(h.dma.runs[1].d.reads.at(0)), words(31, 33));
  EXPECT_TRUE(h.dma.runs[1].d.writes.empty());  // the words leave for the host
  ASSERT_EQ(h.gemm.runs.size(), 1u);
  EXPECT_EQ(span(h.gemm.runs[0].d.reads.at(0)), words(44, 46));
  ASSERT_EQ(h.gemv.runs.size(), 1u);
  EXPECT_EQ(span(h.gemv.runs[0].d.reads.at(0)), words(55, 57));
  EXPECT_EQ(err, uint32_t{PCCX_ERR_ZERO_LENGTH});  // and no third MEMCPY ran
}

// tb_mem_dispatcher_shape_lookup: (3, 5, 5) -> 10 words, (4, 4, 4) -> 8,
// and (1, 1, 9) -> 2 after slot 3 is written again: host->L2 ptr 3 at 100,
// L2->host ptr 9 at 200, GEMM ptr 3 at 300, GEMV ptr 9 at 400.
TEST(UpstreamDispatcher, ShapeLookup) {
  dispatcher_bench h;
  h.b.run([&](mmio_master& m) {
    m.issue(memset_word(0, 3, 3, 5, 5));
    m.issue(memset_word(0, 9, 4, 4, 4));
    m.issue(memcpy_word(true, false, 100, 0, 3, false));
    m.issue(memcpy_word(false, true, 0, 200, 9, false));
    m.issue(memset_word(0, 3, 1, 1, 9));
    m.issue(gemv_word(0x1000, 300, 0, 3, 0, 0, true));
    m.issue(gemv_word(0x2000, 400, 2, 9));
    m.wait_not_busy();
  });
  ASSERT_EQ(h.dma.runs.size(), 2u);
  EXPECT_EQ(span(h.dma.runs[0].d.writes.at(0)), words(100, 110));
  EXPECT_EQ(span(h.dma.runs[1].d.reads.at(0)), words(200, 208));
  ASSERT_EQ(h.gemm.runs.size(), 1u);
  EXPECT_EQ(span(h.gemm.runs[0].d.reads.at(0)), words(300, 302));
  ASSERT_EQ(h.gemv.runs.size(), 1u);
  EXPECT_EQ(span(h.gemv.runs[0].d.reads.at(0)), words(400, 408));
  // The upstream readings' extents: (M, N, K) = (1, 32, 9) and (1, 2, 64).
  EXPECT_EQ(h.gemm.runs[0].d.shape, (std::array<uint16_t, 3>{1, 32, 9}));
  EXPECT_EQ(h.gemv.runs[0].d.shape, (std::array<uint16_t, 3>{1, 2, 64}));
}

// Strict mode reads the slots the platform's way only: the same GEMM is
// refused, its weight_shape slot never written.
TEST(UpstreamDispatcher, StrictReadingRefusesTheRtlSlots) {
  npu::npu_params p;
  p.strict = true;
  npu_bench b(p);
  fake_unit& gemm = b.add_unit(npu::unit_kind::gemm, 10);
  uint32_t err = 0;
  b.run([&](mmio_master& m) {
    m.issue(memset_word(0, 3, 1, 1, 9));
    m.issue(gemv_word(0x1000, 300, 0, 3, 0, 0, true));
    m.wait_not_busy();
    err = m.read32(PCCX_REG_ERR_CODE);
  });
  EXPECT_TRUE(gemm.runs.empty());
  EXPECT_EQ(err, uint32_t{PCCX_ERR_UNWRITTEN_SLOT});
}
