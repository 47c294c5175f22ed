// Shared helpers for the ISA tests (and the firmware's tests that check
// words with the decoder): raw word builders (pccx_isa_encode.h, reserved
// fields defaulting to zero) and decode checks.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <variant>

#include "models/npu/isa/instruction.h"
#include "pccx_isa.h"
#include "pccx_isa_encode.h"
#include "pccx_uca_ext.h"

namespace isa_test {

inline uint64_t mm_word(uint32_t op, uint32_t dest, uint32_t src, uint32_t flags, uint32_t size_ptr,
                        uint32_t shape_ptr, uint32_t lanes, uint32_t rsv = 0) {
  return pccx_encode_matmul(op, dest, src, flags, size_ptr, shape_ptr, lanes, rsv);
}

inline uint64_t mc_word(uint32_t from_host, uint32_t to_host, uint32_t dest, uint32_t src,
                        uint32_t aux, uint32_t shape_ptr, uint32_t async) {
  return pccx_encode_memcpy(from_host, to_host, dest, src, aux, shape_ptr, async);
}

inline uint64_t ms_word(uint32_t cache, uint32_t slot, uint32_t a, uint32_t b, uint32_t c,
                        uint32_t rsv = 0) {
  return pccx_encode_memset(cache, slot, a, b, c, rsv);
}

inline uint64_t cvo_word(uint32_t func, uint32_t src, uint32_t dst, uint32_t length, uint32_t flags,
                         uint32_t async) {
  return pccx_encode_cvo(func, src, dst, length, flags, async);
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

}  // namespace isa_test
