// CVO through an NPU: instruction words via MMIO (isa::encode), results in
// the L2, retire counts, async=0 holding issue, errors latched by the NPU,
// and the SFU element counter readable over MMIO.
#include <gtest/gtest.h>

#include "pccx_npu_regs.h"
#include "sfu_bench.h"
#include "sfu_reference.h"

using namespace pccx;
using namespace pccx::test;

namespace {
constexpr uint32_t kSrc = 0x800, kDst = 0x8000;

sfu_bench_options with_npu() {
  sfu_bench_options o;
  o.with_npu = true;
  return o;
}

uint64_t memset_word(uint8_t slot) {
  return isa::encode({isa::opcode::memset, 0, isa::memset_instr{0, slot, 1, 1, 8}});
}
}  // namespace

TEST(SfuNpu, CvoInstructionsRunAndRetire) {
  sfu_bench b(with_npu());
  b.put(kSrc, {0x0000, 0x3F80, 0x4000, 0xBF80, 0x4080, 0x4110, 0x0000, 0x3F80, 0x4000});
  b.put(kSrc + 10, {0x4000, 0x4040, 0x4080});  // SCALE: scalar 2, vector 3, 4
  b.put(kSrc + 11, {0x4040, 0x4080});
  uint32_t status = 0;
  uint64_t elements = 0, retired = 0;
  b.run_npu([&](mmio_master& m) {
    m.issue(cvo_word(cvo(UCA_CVO_EXP, kSrc, kDst, 9)));
    m.issue(cvo_word(cvo(UCA_CVO_REDUCE_SUM, kSrc, kDst + 4, 9)));
    m.issue(cvo_word(cvo(UCA_CVO_SCALE, kSrc + 10, kDst + 8, 2)));
    m.issue(cvo_word(cvo(UCA_CVO_SQRT, kSrc, kDst + 12, 9, 0, true)));
    status = m.wait_not_busy();
    elements = m.read64(PCCX_REG_PERF_LO(PCCX_PERF_SFU_ELEMENTS));
    retired = m.read64(PCCX_REG_RETIRED_LO);
  });
  EXPECT_EQ(status & PCCX_STAT_ERROR, 0u);
  EXPECT_EQ(retired, 4u);
  EXPECT_EQ(elements, 9u + 9 + 2 + 9);
  const auto e = b.get(kDst, 9);
  EXPECT_EQ(e[0], 0x3F80);
  EXPECT_TRUE(within_ulp(e[1], std::exp(1.0), 1));
  EXPECT_TRUE(within_ulp(e[5], std::exp(9.0), 1));
  EXPECT_EQ(b.get(kDst + 4, 1)[0], 0x4190);  // 0+1+2-1+4+9+0+1+2 = 18
  const auto s = b.get(kDst + 8, 2);
  EXPECT_EQ(s[0], 0x40C0);  // 6
  EXPECT_EQ(s[1], 0x4100);  // 8
  const auto q = b.get(kDst + 12, 9);
  EXPECT_EQ(q[2], 0x3FB5);  // sqrt(2) = 1.4142 -> 0x3FB5
  EXPECT_TRUE(bf16::is_nan(q[3]));
  EXPECT_GT(b.perf().value(PCCX_PERF_SFU_BUSY), 0u);
}

TEST(SfuNpu, SynchronousCvoHoldsIssue) {
  sfu_bench b(with_npu());
  uint64_t retired_during = 99;
  b.run_npu([&](mmio_master& m) {
    m.issue(cvo_word(cvo(UCA_CVO_EXP, kSrc, kDst, 2048, 0, false)));  // ~5.1 us
    m.issue(memset_word(1));                                          // another unit, no L2 overlap
    wait(sc_time(2, sc_core::SC_US));
    retired_during = m.read64(PCCX_REG_RETIRED_LO);
    m.wait_not_busy();
  });
  EXPECT_EQ(retired_during, 0u) << "MEMSET issued past a synchronous CVO";
  EXPECT_EQ(b.npu->cmd().retired(), 2u);
}

TEST(SfuNpu, AsynchronousCvoLetsIssueContinue) {
  sfu_bench b(with_npu());
  uint64_t retired_during = 99;
  b.run_npu([&](mmio_master& m) {
    m.issue(cvo_word(cvo(UCA_CVO_EXP, kSrc, kDst, 2048, 0, true)));
    m.issue(memset_word(1));
    wait(sc_time(2, sc_core::SC_US));
    retired_during = m.read64(PCCX_REG_RETIRED_LO);
    m.wait_not_busy();
  });
  EXPECT_EQ(retired_during, 1u) << "the MEMSET should retire while the CVO runs";
  EXPECT_EQ(b.npu->cmd().retired(), 2u);
}

TEST(SfuNpu, ReadAfterWriteWaitsForTheSfu) {
  sfu_bench b(with_npu());
  b.put(kSrc, std::vector<uint16_t>(16, 0x4080));  // 4
  b.run_npu([&](mmio_master& m) {
    m.issue(cvo_word(cvo(UCA_CVO_SQRT, kSrc, kDst, 16, 0, true)));        // 2
    m.issue(cvo_word(cvo(UCA_CVO_RECIP, kDst, kDst + 16, 16, 0, true)));  // 0.5
    m.wait_not_busy();
  });
  for (uint16_t v : b.get(kDst + 16, 16)) EXPECT_EQ(v, 0x3F00);
}

TEST(SfuNpu, ScaleVectorPastTheEndLatchesL2Range) {
  sfu_bench_options o = with_npu();
  o.npu.section.l2.words = 1024;
  o.l2.section.words = 1024;
  sfu_bench b(o);
  uint32_t status = 0, code = 0;
  b.run_npu([&](mmio_master& m) {
    m.issue(cvo_word(cvo(UCA_CVO_SCALE, 1022, 0, 16)));  // decodes; the scalar word makes 3
    status = m.wait_not_busy();
    code = m.read32(PCCX_REG_ERR_CODE);
  });
  EXPECT_NE(status & PCCX_STAT_ERROR, 0u);
  EXPECT_EQ(code, unsigned{PCCX_ERR_L2_RANGE});
}
