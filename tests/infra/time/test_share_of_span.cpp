// share_of_span must give floor(span x part / whole) exactly, on both sides
// of the 64-bit product: the DMA's block times and the recorder's window
// bytes depend on it.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "infra/time/share_of_span.h"

namespace {

uint64_t exact(uint64_t span, uint64_t part, uint64_t whole) {
  return static_cast<uint64_t>(static_cast<unsigned __int128>(span) * part / whole);
}

TEST(ShareOfSpan, ExactWhereTheProductOverflowsSixtyFourBits) {
  const uint64_t big = UINT64_MAX / 3;
  EXPECT_EQ(pccx::share_of_span(big, 3, 3), big);  // 2^64 - 1: still fits
  EXPECT_EQ(pccx::share_of_span(big + 1, 3, 3), big + 1);
  EXPECT_EQ(pccx::share_of_span(UINT64_MAX, UINT64_MAX, UINT64_MAX), UINT64_MAX);
  EXPECT_EQ(pccx::share_of_span(uint64_t{1} << 40, uint64_t{1} << 30, uint64_t{1} << 31),
            uint64_t{1} << 39);
  EXPECT_EQ(pccx::share_of_span(12345, 0, 7), 0u);
  EXPECT_EQ(pccx::share_of_span(0, 12345, 7), 0u);
}

TEST(ShareOfSpan, MatchesTheWideProductOnRandomSpans) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 200000; ++i) {
    const unsigned bits = static_cast<unsigned>(rng() % 64) + 1;
    const uint64_t span = rng() >> (64 - bits);
    const uint64_t whole = (rng() >> (rng() % 64)) | 1;
    const uint64_t part = rng() % (whole + 1);  // a share: part <= whole
    ASSERT_EQ(pccx::share_of_span(span, part, whole), exact(span, part, whole))
        << span << " x " << part << " / " << whole;
  }
}

}  // namespace
