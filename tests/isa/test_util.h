// Shared helpers for the ISA tests: raw word builders (from pccx_isa.h field
// positions) and a fixture that resets the capturing HAL and the API error.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <variant>

#include "capture_hal.h"
#include "models/npu/isa/instruction.h"
#include "pccx_isa.h"
#include "pccx_uca_ext.h"

namespace isa_test {

inline uint64_t mm_word(uint32_t op, uint32_t dest, uint32_t src, uint32_t flags, uint32_t size_ptr,
                        uint32_t shape_ptr, uint32_t lanes, uint32_t rsv = 0) {
  return PCCX_FIELD_PUT(op, PCCX_OPCODE_LSB, PCCX_OPCODE_W) |
         PCCX_FIELD_PUT(dest, PCCX_MM_DEST_LSB, PCCX_MM_DEST_W) |
         PCCX_FIELD_PUT(src, PCCX_MM_SRC_LSB, PCCX_MM_SRC_W) |
         PCCX_FIELD_PUT(flags, PCCX_MM_FLAGS_LSB, PCCX_MM_FLAGS_W) |
         PCCX_FIELD_PUT(size_ptr, PCCX_MM_SIZE_PTR_LSB, PCCX_MM_SIZE_PTR_W) |
         PCCX_FIELD_PUT(shape_ptr, PCCX_MM_SHAPE_PTR_LSB, PCCX_MM_SHAPE_PTR_W) |
         PCCX_FIELD_PUT(lanes, PCCX_MM_LANE_LSB, PCCX_MM_LANE_W) |
         PCCX_FIELD_PUT(rsv, PCCX_MM_RSV_LSB, PCCX_MM_RSV_W);
}

inline uint64_t mc_word(uint32_t from_host, uint32_t to_host, uint32_t dest, uint32_t src,
                        uint32_t aux, uint32_t shape_ptr, uint32_t async) {
  return PCCX_FIELD_PUT(UCA_OP_MEMCPY, PCCX_OPCODE_LSB, PCCX_OPCODE_W) |
         PCCX_FIELD_PUT(from_host, PCCX_MC_FROM_LSB, 1) |
         PCCX_FIELD_PUT(to_host, PCCX_MC_TO_LSB, 1) |
         PCCX_FIELD_PUT(dest, PCCX_MC_DEST_LSB, PCCX_MC_DEST_W) |
         PCCX_FIELD_PUT(src, PCCX_MC_SRC_LSB, PCCX_MC_SRC_W) |
         PCCX_FIELD_PUT(aux, PCCX_MC_AUX_LSB, PCCX_MC_AUX_W) |
         PCCX_FIELD_PUT(shape_ptr, PCCX_MC_SHAPE_PTR_LSB, PCCX_MC_SHAPE_PTR_W) |
         PCCX_FIELD_PUT(async, PCCX_MC_ASYNC_LSB, 1);
}

inline uint64_t ms_word(uint32_t cache, uint32_t slot, uint32_t a, uint32_t b, uint32_t c,
                        uint32_t rsv = 0) {
  return PCCX_FIELD_PUT(UCA_OP_MEMSET, PCCX_OPCODE_LSB, PCCX_OPCODE_W) |
         PCCX_FIELD_PUT(cache, PCCX_MS_CACHE_LSB, PCCX_MS_CACHE_W) |
         PCCX_FIELD_PUT(slot, PCCX_MS_SLOT_LSB, PCCX_MS_SLOT_W) |
         PCCX_FIELD_PUT(a, PCCX_MS_A_LSB, PCCX_MS_VALUE_W) |
         PCCX_FIELD_PUT(b, PCCX_MS_B_LSB, PCCX_MS_VALUE_W) |
         PCCX_FIELD_PUT(c, PCCX_MS_C_LSB, PCCX_MS_VALUE_W) |
         PCCX_FIELD_PUT(rsv, PCCX_MS_RSV_LSB, PCCX_MS_RSV_W);
}

inline uint64_t cvo_word(uint32_t func, uint32_t src, uint32_t dst, uint32_t length, uint32_t flags,
                         uint32_t async) {
  return PCCX_FIELD_PUT(UCA_OP_CVO, PCCX_OPCODE_LSB, PCCX_OPCODE_W) |
         PCCX_FIELD_PUT(func, PCCX_CVO_FUNC_LSB, PCCX_CVO_FUNC_W) |
         PCCX_FIELD_PUT(src, PCCX_CVO_SRC_LSB, PCCX_CVO_SRC_W) |
         PCCX_FIELD_PUT(dst, PCCX_CVO_DST_LSB, PCCX_CVO_DST_W) |
         PCCX_FIELD_PUT(length, PCCX_CVO_LEN_LSB, PCCX_CVO_LEN_W) |
         PCCX_FIELD_PUT(flags, PCCX_CVO_FLAGS_LSB, PCCX_CVO_FLAGS_W) |
         PCCX_FIELD_PUT(async, PCCX_CVO_ASYNC_LSB, 1);
}

// The decoded instruction; fails the test (and returns a default) if the
// word was rejected.
inline pccx::isa::instruction must_decode(uint64_t word, const pccx::isa::decode_limits& lim) {
  const auto r = pccx::isa::decode(word, lim);
  if (const auto* e = std::get_if<pccx::isa::decode_error>(&r)) {
    ADD_FAILURE() << "word 0x" << std::hex << word << " rejected: " << e->message;
    return {};
  }
  return std::get<pccx::isa::instruction>(r);
}

// The decode error; fails the test if the word was accepted.
inline pccx::isa::decode_error must_fail(uint64_t word, const pccx::isa::decode_limits& lim) {
  const auto r = pccx::isa::decode(word, lim);
  if (const auto* e = std::get_if<pccx::isa::decode_error>(&r)) return *e;
  ADD_FAILURE() << "word 0x" << std::hex << word << " accepted";
  return {};
}

class CaptureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    capture_reset();
    (void)pccx_uca_take_api_error();
  }
  void TearDown() override { EXPECT_EQ(capture_overflowed(), 0); }
};

}  // namespace isa_test
