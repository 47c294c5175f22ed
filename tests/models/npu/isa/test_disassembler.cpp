// Disassembly text for every opcode and for illegal words.
#include <gtest/gtest.h>

#include "isa_test_util.h"
#include "models/npu/isa/instruction.h"
#include "uCA_v1_api.h"

using namespace pccx::isa;
using isa_test::cvo_word;
using isa_test::mc_word;
using isa_test::mm_word;
using isa_test::ms_word;

namespace {
const decode_limits kLim{};
}

TEST(Disassemble, Gemv) {
  EXPECT_EQ(disassemble(mm_word(0, 0x100, 0x200, UCA_FLAG_FINDEMAX | UCA_FLAG_ACCM, 3, 4, 4), kLim),
            "GEMV dest=0x00100 src=0x00200 flags=findemax|accm size=fmap_shape[3] "
            "shape=weight_shape[4] lanes=4");
  EXPECT_EQ(disassemble(mm_word(0, 0, 0x1bfff, UCA_FLAG_W_SCALE, 0, 63, 0), kLim),
            "GEMV dest=0x00000 src=0x1bfff flags=w_scale size=fmap_shape[0] "
            "shape=weight_shape[63] lanes=0");
  EXPECT_EQ(disassemble(mm_word(0, 0x10, 0x20, 0, 1, 2, 0x10 | 4), kLim),
            "GEMV dest=0x00010 src=0x00020 size=fmap_shape[1] shape=weight_shape[2] "
            "lanes=4,head");
  EXPECT_EQ(
      disassemble(mm_word(0, 0x10, 0x20, UCA_FLAG_FINDEMAX | PCCX_WFMT_KV_KEY_ROWS, 1, 2, 0x10 | 4),
                  kLim),
      "GEMV dest=0x00010 src=0x00020 flags=findemax weights=kv-keys size=fmap_shape[1] "
      "shape=weight_shape[2] lanes=4,head");
  EXPECT_EQ(disassemble(mm_word(0, 0x10, 0x20, PCCX_WFMT_KV_VALUE_ACCUMULATE, 1, 2, 0), kLim),
            "GEMV dest=0x00010 src=0x00020 weights=kv-values size=fmap_shape[1] "
            "shape=weight_shape[2] lanes=0");
}

TEST(Disassemble, GemmWithoutFlags) {
  EXPECT_EQ(disassemble(mm_word(1, 0x2000, 0x10, 0, 1, 2, 1), kLim),
            "GEMM dest=0x02000 src=0x00010 size=fmap_shape[1] shape=weight_shape[2] lanes=1");
}

TEST(Disassemble, MemcpyRoutes) {
  EXPECT_EQ(disassemble(mc_word(1, 0, 0x10, 0, 0, 2, 1), kLim),
            "MEMCPY host->L2 dest=0x00010 src=0x00000 shape=fmap_shape[2] async");
  EXPECT_EQ(disassemble(mc_word(0, 1, 0, 0x300, 0, 5, 0), kLim),
            "MEMCPY L2->host dest=0x00000 src=0x00300 shape=fmap_shape[5]");
  EXPECT_EQ(disassemble(mc_word(0, 0, 0x400, 0x300, 0, 5, 0), kLim),
            "MEMCPY L2->L2 dest=0x00400 src=0x00300 shape=fmap_shape[5]");
  EXPECT_EQ(disassemble(mc_word(1, 1, 0, 0x1234, 0, 7, 1), kLim),
            "MEMCPY kv-append dest=0x00000 src=0x01234 shape=fmap_shape[7] async");
}

TEST(Disassemble, Memset) {
  EXPECT_EQ(disassemble(ms_word(1, 3, 1, 2048, 2048), kLim),
            "MEMSET weight_shape[3] <- (1, 2048, 2048)");
  EXPECT_EQ(disassemble(ms_word(0, 0, 1, 1, 9), kLim), "MEMSET fmap_shape[0] <- (1, 1, 9)");
  // Scale banks hold BF16 bit patterns: printed in hex.
  EXPECT_EQ(disassemble(ms_word(2, 7, 0x3f80, 0, 0xbf80), kLim),
            "MEMSET head_scale[7] <- (0x3f80, 0x0000, 0xbf80)");
  EXPECT_EQ(disassemble(ms_word(3, 63, 0xffff, 1, 2), kLim),
            "MEMSET channel_scale[63] <- (0xffff, 0x0001, 0x0002)");
}

TEST(Disassemble, Cvo) {
  EXPECT_EQ(
      disassemble(cvo_word(UCA_CVO_EXP, 0x100, 0x200, 2048,
                           UCA_CVO_FLAG_SUB_EMAX | UCA_CVO_FLAG_RECIP_SCALE | UCA_CVO_FLAG_ACCM, 1),
                  kLim),
      "CVO EXP src=0x00100 dst=0x00200 len=2048 flags=sub_emax|recip_scale|accm async");
  EXPECT_EQ(disassemble(cvo_word(UCA_CVO_REDUCE_SUM, 0x40, 0x80, 512, 0, 0), kLim),
            "CVO REDUCE_SUM src=0x00040 dst=0x00080 len=512");
  EXPECT_EQ(disassemble(cvo_word(PCCX_CVO_TANH, 1, 2, 3, UCA_CVO_FLAG_ACCM, 0), kLim),
            "CVO TANH src=0x00001 dst=0x00002 len=3 flags=accm");
}

TEST(Disassemble, IllegalWords) {
  EXPECT_EQ(disassemble(0x5000000000000000ull, kLim),
            ".word 0x5000000000000000 ; illegal: ERR_UNKNOWN_OPCODE: opcode 0x5: reserved opcode");
  EXPECT_EQ(disassemble(cvo_word(UCA_CVO_EXP, 0, 0, 0, 0, 0), kLim),
            ".word 0x4000000000000000 ; illegal: ERR_ZERO_LENGTH: CVO length 0: zero-length "
            "transfer");
  EXPECT_EQ(disassemble(mm_word(0, 0, 0, 0x25, 0, 0, 0), kLim),
            ".word 0x0000000002500000 ; illegal: ERR_RESERVED_BITS: GEMV flags reserved bits "
            "[2:0] = 0x5 must be zero (GEMV weight formats: 1 KV key rows, 2 KV value "
            "accumulate)");
  decode_limits off = kLim;
  off.cvo_extensions = false;
  EXPECT_EQ(disassemble(cvo_word(PCCX_CVO_MUL, 0, 0, 8, 0, 0), off),
            ".word 0x4900000000000200 ; illegal: ERR_UNKNOWN_CVO_FUNC: CVO cvo_func 0x9 (MUL): "
            "platform extension disabled");
}

TEST(Disassemble, DecodedInstructionOverload) {
  instruction ins;
  ins.op = opcode::memset;
  ins.body = memset_instr{1, 2, 3, 4, 5};
  EXPECT_EQ(disassemble(ins), "MEMSET weight_shape[2] <- (3, 4, 5)");
  EXPECT_EQ(disassemble(encode(ins), kLim), disassemble(ins));
}
