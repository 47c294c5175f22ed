// Error handling: every illegal encoding and every issue-time check latches
// its code, the word and its sequence number, drops the instruction and
// halts issue until the driver clears ERROR; then the NPU serves again.
#include <gtest/gtest.h>

#include "npu_bench.h"
#include "pccx_isa.h"
#include "pccx_isa_encode.h"
#include "uCA_v1_api.h"

using namespace pccx;
using namespace pccx::test;

namespace {

struct error_case {
  const char* name;
  uint64_t word;
  uint32_t code;
  bool shapes = true;  // write fmap/weight slot 0 first
  bool units = true;   // bind every unit
  npu::npu_params params = npu::npu_params{};
};

npu::npu_params without_kv_append() {
  npu::npu_params p;
  p.limits.kv_append = false;
  return p;
}
npu::npu_params without_scale_banks() {
  npu::npu_params p;
  p.limits.enabled_banks = 0x3;
  return p;
}
npu::npu_params without_cvo_extensions() {
  npu::npu_params p;
  p.limits.cvo_extensions = false;
  return p;
}

std::vector<error_case> cases() {
  return {
      {"unknown_opcode", 0x7000000000000000ull, PCCX_ERR_UNKNOWN_OPCODE},
      {"gemv_reserved", pccx_encode_matmul(UCA_OP_GEMV, 0, 0, 0, 0, 0, 0, 0x5),
       PCCX_ERR_RESERVED_BITS},
      {"gemv_reserved_flags", gemv_word(0, 0, 0, 0, 0x03), PCCX_ERR_RESERVED_BITS},
      {"memset_reserved", pccx_encode_memset(0, 0, 1, 1, 1, 0x8), PCCX_ERR_RESERVED_BITS},
      {"memcpy_aux_addr", pccx_encode_memcpy(1, 0, 0, 0, 1, 0, 1), PCCX_ERR_RESERVED_BITS},
      {"cvo_reserved_flags", cvo_word(0, 0, 8, 8, true, 0x1), PCCX_ERR_RESERVED_BITS},
      {"cvo_unknown_func", cvo_word(0xE, 0, 8, 8, true), PCCX_ERR_UNKNOWN_CVO_FUNC},
      {"cvo_extension_disabled", cvo_word(PCCX_CVO_TANH, 0, 8, 8, true), PCCX_ERR_UNKNOWN_CVO_FUNC,
       true, true, without_cvo_extensions()},
      {"cvo_zero_length", cvo_word(0, 0, 8, 0, true), PCCX_ERR_ZERO_LENGTH},
      {"cvo_too_long", cvo_word(0, 0, 0x1000, 2049, true), PCCX_ERR_LENGTH_TOO_LARGE},
      {"cvo_src_beyond_l2", cvo_word(0, 114687, 0, 16, true), PCCX_ERR_L2_RANGE},
      {"gemv_dest_beyond_l2", gemv_word(114688, 0, 0, 0), PCCX_ERR_L2_RANGE},
      {"gemv_too_many_lanes", gemv_word(0, 0x100, 0, 0, 0, 5), PCCX_ERR_INVALID_LANES},
      {"gemm_lanes", gemv_word(0, 0x100, 0, 0, 0, 2, true), PCCX_ERR_INVALID_LANES},
      {"memset_disabled_bank", memset_word(2, 0, 1, 1, 1), PCCX_ERR_INVALID_CACHE, true, true,
       without_scale_banks()},
      {"kv_append_disabled", memcpy_word(true, true, 0, 0, 0, true), PCCX_ERR_INVALID_ROUTE, true,
       true, without_kv_append()},
      {"unwritten_shape_slot", gemv_word(0x800, 0x100, 0, 7), PCCX_ERR_UNWRITTEN_SLOT},
      {"unwritten_size_slot", gemv_word(0x800, 0x100, 9, 0), PCCX_ERR_UNWRITTEN_SLOT},
      {"memcpy_unwritten_slot", memcpy_word(true, false, 0, 0, 12, true), PCCX_ERR_UNWRITTEN_SLOT},
      {"memcpy_beyond_l2", memcpy_word(true, false, 114684, 0, 0, true), PCCX_ERR_L2_RANGE},
      {"l2_to_l2_overlap", memcpy_word(false, false, 0x104, 0x100, 0, true),
       PCCX_ERR_INVALID_ROUTE},
      {"gemv_result_beyond_l2", gemv_word(114684, 0x100, 0, 0), PCCX_ERR_L2_RANGE},
      {"no_gemv_unit", gemv_word(0x800, 0x100, 0, 0), PCCX_ERR_UNIT_UNAVAILABLE, true, false},
      {"no_sfu_unit", cvo_word(0, 0, 8, 8, true), PCCX_ERR_UNIT_UNAVAILABLE, true, false},
      {"no_dma_unit", memcpy_word(true, false, 0, 0, 0, true), PCCX_ERR_UNIT_UNAVAILABLE, true,
       false},
  };
}

// Names the case in test output instead of dumping its bytes.
void PrintTo(const error_case& c, std::ostream* os) {
  *os << c.name;
}

class IllegalInstruction : public ::testing::TestWithParam<error_case> {};

}  // namespace

TEST_P(IllegalInstruction, LatchesItsCodeAndRecoversAfterClear) {
  const error_case& c = GetParam();
  npu_bench b(c.params);
  if (c.units) {
    b.add_unit(npu::unit_kind::gemv, 10);
    b.add_unit(npu::unit_kind::gemm, 10);
    b.add_unit(npu::unit_kind::sfu, 10);
    b.add_unit(npu::unit_kind::dma, 10);
  }
  uint32_t status = 0, code = 0, word_lo = 0, word_hi = 0, seq = 0, status_after = 0;
  bool executed_while_halted = true;
  b.run([&](mmio_master& m) {
    if (c.shapes) {
      m.issue(memset_word(0, 0, 1, 1, 64));   // 64 activations = 8 words
      m.issue(memset_word(1, 0, 1, 64, 64));  // 64 outputs = 8 words
    }
    m.issue(c.word);
    m.issue(memset_word(1, 33, 4, 5, 6));  // must wait for the clear
    status = m.wait_not_busy();
    code = m.read32(PCCX_REG_ERR_CODE);
    word_lo = m.read32(PCCX_REG_ERR_INSTR_LO);
    word_hi = m.read32(PCCX_REG_ERR_INSTR_HI);
    seq = m.read32(PCCX_REG_ERR_SEQ);
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_US));
    executed_while_halted = b.dut->cache().read(1, 33).has_value();
    m.write32(UCA_REG_STATUS, PCCX_STAT_ERROR);  // write 1 to clear
    status_after = m.wait_not_busy();
  });
  EXPECT_TRUE(status & PCCX_STAT_ERROR) << c.name;
  EXPECT_EQ(code, c.code) << c.name << ": got " << isa::error_name(code);
  EXPECT_EQ((static_cast<uint64_t>(word_hi) << 32) | word_lo, c.word) << c.name;
  EXPECT_EQ(seq, c.shapes ? 2u : 0u) << c.name;
  EXPECT_FALSE(executed_while_halted) << c.name << ": issue continued past a latched error";
  EXPECT_FALSE(status_after & PCCX_STAT_ERROR) << c.name;
  EXPECT_TRUE(b.dut->cache().read(1, 33)) << c.name << ": the NPU did not resume";
  for (const auto& [kind, unit] : b.units) EXPECT_TRUE(unit->runs.empty()) << c.name;
}

INSTANTIATE_TEST_SUITE_P(EveryCheck, IllegalInstruction, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Errors, UnitFaultIsLatchedWhenTheInstructionRetires) {
  npu_bench b;
  auto& gemv = b.add_unit(npu::unit_kind::gemv, 100);
  gemv.fault_seq = 2;
  uint32_t code = 0, seq = 0;
  b.run([&](mmio_master& m) {
    m.issue(memset_word(0, 0, 1, 1, 64));
    m.issue(memset_word(1, 0, 1, 64, 64));
    m.issue(gemv_word(0x800, 0x100, 0, 0));
    m.wait_not_busy();
    code = m.read32(PCCX_REG_ERR_CODE);
    seq = m.read32(PCCX_REG_ERR_SEQ);
  });
  EXPECT_EQ(code, static_cast<uint32_t>(PCCX_ERR_UNIT_FAULT));
  EXPECT_EQ(seq, 2u);
}

TEST(Errors, FirstErrorStaysLatchedUntilCleared) {
  npu_bench b;
  b.add_unit(npu::unit_kind::gemv, 2000);
  b.units.at(npu::unit_kind::gemv)->fault_seq = 2;
  uint32_t code = 0;
  b.run([&](mmio_master& m) {
    m.issue(memset_word(0, 0, 1, 1, 64));
    m.issue(memset_word(1, 0, 1, 64, 64));
    m.issue(gemv_word(0x800, 0x100, 0, 0));  // faults when it retires, later
    m.issue(0xF000000000000000ull);          // decode error first
    m.wait_not_busy();
    sc_core::wait(sc_core::sc_time(10, sc_core::SC_US));  // let the GEMV fault too
    code = m.read32(PCCX_REG_ERR_CODE);
  });
  EXPECT_EQ(code, static_cast<uint32_t>(PCCX_ERR_UNKNOWN_OPCODE));
}

TEST(Errors, StrictModeReportsEveryError) {
  npu_bench b;
  std::vector<npu::npu_error> seen;
  b.dut->cmd().errors.subscribe([&](const npu::npu_error& e) { seen.push_back(e); });
  b.run([](mmio_master& m) {
    m.issue(0x9000000000000000ull);
    m.wait_not_busy();
  });
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].code, static_cast<uint32_t>(PCCX_ERR_UNKNOWN_OPCODE));
  EXPECT_EQ(seen[0].word, 0x9000000000000000ull);
  EXPECT_NE(seen[0].detail.find("opcode"), std::string::npos);
}
