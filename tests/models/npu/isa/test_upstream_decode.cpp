// The decode expectations of the pccx-v002 RTL and its formal model, stated
// against our decoder: the words of the decoder testbench
// (LLM/tb/tb_ctrl_npu_decoder.sv) and of the Sail model's smoke test
// (LLM/formal/sail/tests/smoke_decode.sail), with the fields each must give.
// Where the platform deliberately refuses what they accept (reserved bits,
// a zero-length CVO) the test says so; docs/reference/spec-decisions.md
// says why.
#include <gtest/gtest.h>

#include "models/npu/isa/instruction.h"
#include "pccx_isa.h"
#include "uCA_v1_api.h"

using namespace pccx::isa;

namespace {

const decode_limits kLim{};

instruction legal(uint64_t word) {
  const auto r = decode(word, kLim);
  const auto* e = std::get_if<decode_error>(&r);
  EXPECT_EQ(e, nullptr) << std::hex << word << ": " << (e ? e->message : "");
  return e ? instruction{} : std::get<instruction>(r);
}

uint32_t refused(uint64_t word) {
  const auto r = decode(word, kLim);
  const auto* e = std::get_if<decode_error>(&r);
  EXPECT_NE(e, nullptr) << std::hex << word << " decoded";
  return e ? e->code : PCCX_ERR_NONE;
}

}  // namespace

// Each of the five opcodes selects its own body (Sail: one word per opcode,
// all other bits zero; RTL: exactly one valid the cycle after the pop).
TEST(UpstreamDecode, EachOpcodeSelectsItsBody) {
  EXPECT_EQ(legal(0x2000000000000000ull).op, opcode::memcpy);
  EXPECT_EQ(legal(0x3000000000000000ull).op, opcode::memset);
  EXPECT_EQ(legal(0x0000000000000000ull).op, opcode::gemv);
  EXPECT_EQ(legal(0x1000000000000000ull).op, opcode::gemm);
  // Sail accepts CVO EXP with every field zero; the platform refuses a
  // zero-length vector (ERR_ZERO_LENGTH) rather than run nothing.
  EXPECT_EQ(refused(0x4000000000000000ull), uint32_t{PCCX_ERR_ZERO_LENGTH});
}

// Opcodes 5..15: no valid in the RTL (the word is dropped), a Sail
// exception; the platform latches ERR_UNKNOWN_OPCODE instead of dropping.
TEST(UpstreamDecode, OpcodesAboveFourAreIllegal) {
  for (uint64_t op = 5; op <= 15; ++op)
    EXPECT_EQ(refused(op << 60), uint32_t{PCCX_ERR_UNKNOWN_OPCODE}) << op;
}

// The testbench's GEMV word 0x0BEEFCAFEDEAD123: dest 0x17DDF, src 0x12BFB,
// flags 0x1E, size_ptr 43, shape_ptr 17, parallel_lane 4, reserved 3. The
// RTL ignores reserved bits; the platform refuses them (flags[2:0] here).
// With them cleared the same fields come out.
TEST(UpstreamDecode, GemvFieldsOfTheDecoderTestbench) {
  EXPECT_EQ(refused(0x0BEEFCAFEDEAD123ull), uint32_t{PCCX_ERR_RESERVED_BITS});
  const uint64_t clean = 0x0BEEFCAFEDEAD123ull & ~(uint64_t{7} << 20) & ~uint64_t{7};
  const instruction ins = legal(clean);
  ASSERT_EQ(ins.op, opcode::gemv);
  const auto& m = std::get<matmul_instr>(ins.body);
  EXPECT_EQ(m.dest_reg, 0x17DDFu);
  EXPECT_EQ(m.src_addr, 0x12BFBu);
  EXPECT_EQ(m.flags, 0x18u);  // accm | w_scale: 0x1E without its reserved bits
  EXPECT_EQ(m.size_ptr, 43u);
  EXPECT_EQ(m.shape_ptr, 17u);
  EXPECT_EQ(m.lanes, 4u);
}

// The testbench's GEMM (body 17: lane 2, reserved 1) and MEMSET (body 99:
// c = 6, reserved 3) words carry reserved bits: refused here. Its MEMCPY
// (body 42) is legal on both: shape_ptr 21, async 0, the L2->L2 route.
TEST(UpstreamDecode, TheDecoderTestbenchsOtherWords) {
  EXPECT_EQ(refused(0x1000000000000011ull), uint32_t{PCCX_ERR_RESERVED_BITS});
  EXPECT_EQ(refused(0x3000000000000063ull), uint32_t{PCCX_ERR_RESERVED_BITS});
  const instruction mc = legal(0x200000000000002Aull);
  ASSERT_EQ(mc.op, opcode::memcpy);
  const auto& m = std::get<memcpy_instr>(mc.body);
  EXPECT_EQ(m.shape_ptr, 21u);
  EXPECT_FALSE(m.async);
  EXPECT_EQ(m.route(), memcpy_route::l2_to_l2);
  EXPECT_EQ(m.dest, 0u);
  EXPECT_EQ(m.src, 0u);
}

// Sail accepts every from/to pair and MEMSET dest_cache 2 and 3; so does the
// platform (from=1, to=1 is its KV append; banks 2 and 3 its scale banks).
// Sail's CVO functions stop at 7; the platform's 8..11 are its extensions,
// 12..15 illegal.
TEST(UpstreamDecode, RoutesBanksAndCvoFunctions) {
  const instruction kv = legal(0x2C00000000000001ull);
  EXPECT_EQ(std::get<memcpy_instr>(kv.body).route(), memcpy_route::kv_append);
  EXPECT_TRUE(std::get<memcpy_instr>(kv.body).async);
  EXPECT_EQ(std::get<memset_instr>(legal(0x3C00000000000000ull).body).cache, 3u);
  EXPECT_EQ(std::get<memset_instr>(legal(0x3800000000000000ull).body).cache, 2u);
  for (uint64_t f = 0; f <= 11; ++f)
    EXPECT_EQ(legal(uint64_t{4} << 60 | f << 56 | uint64_t{8} << 6).op, opcode::cvo) << f;
  for (uint64_t f = 12; f <= 15; ++f)
    EXPECT_EQ(refused(uint64_t{4} << 60 | f << 56 | uint64_t{8} << 6),
              uint32_t{PCCX_ERR_UNKNOWN_CVO_FUNC})
        << f;
}

// The smoke program's seven words decode to the fields its testbench checks
// (tb_v002_runtime_smoke_program.sv).
TEST(UpstreamDecode, TheSmokeProgramsWords) {
  const auto s0 = std::get<memset_instr>(legal(0x3030001000100090ull).body);
  EXPECT_EQ(s0.cache, 0u);
  EXPECT_EQ(s0.slot, 3u);
  EXPECT_EQ(s0.a, 1u);
  EXPECT_EQ(s0.b, 1u);
  EXPECT_EQ(s0.c, 9u);
  const auto s1 = std::get<memset_instr>(legal(0x3090004000400040ull).body);
  EXPECT_EQ(s1.slot, 9u);
  EXPECT_EQ(s1.a, 4u);
  const auto load = std::get<memcpy_instr>(legal(0x2800c80000000006ull).body);
  EXPECT_EQ(load.route(), memcpy_route::host_to_l2);
  EXPECT_EQ(load.dest, 100u);
  EXPECT_EQ(load.shape_ptr, 3u);
  EXPECT_FALSE(load.async);
  const auto gemm = std::get<matmul_instr>(legal(0x10100004b0804320ull).body);
  EXPECT_EQ(gemm.dest_reg, 512u);
  EXPECT_EQ(gemm.src_addr, 300u);
  EXPECT_EQ(gemm.flags, UCA_FLAG_W_SCALE);
  EXPECT_EQ(gemm.size_ptr, 1u);
  EXPECT_EQ(gemm.shape_ptr, 3u);
  EXPECT_EQ(gemm.lanes, 4u);
  const auto gemv = std::get<matmul_instr>(legal(0x0018000641008920ull).body);
  EXPECT_EQ(gemv.dest_reg, 768u);
  EXPECT_EQ(gemv.src_addr, 400u);
  EXPECT_EQ(gemv.flags, UCA_FLAG_ACCM);
  EXPECT_EQ(gemv.size_ptr, 2u);
  EXPECT_EQ(gemv.shape_ptr, 9u);
  const auto cvo = std::get<cvo_instr>(legal(0x45018000e0001000ull).body);
  EXPECT_EQ(cvo.func, UCA_CVO_REDUCE_SUM);
  EXPECT_EQ(cvo.src, 768u);
  EXPECT_EQ(cvo.dst, 896u);
  EXPECT_EQ(cvo.length, 64u);
  const auto store = std::get<memcpy_instr>(legal(0x2400000380000006ull).body);
  EXPECT_EQ(store.route(), memcpy_route::l2_to_host);
  EXPECT_EQ(store.src, 896u);
  EXPECT_EQ(store.shape_ptr, 3u);
}
