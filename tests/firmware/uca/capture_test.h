// The fixture of the driver's tests against the capturing HAL (each test
// starts with nothing recorded and no API error pending) and the MMIO
// writes and reads it recorded.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "capture_hal.h"
#include "pccx_uca_ext.h"

namespace uca_test {

class CaptureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    capture_reset();
    (void)pccx_uca_take_api_error();
  }
  void TearDown() override { EXPECT_EQ(capture_overflowed(), 0); }
};

inline std::vector<capture_access> writes() {
  std::vector<capture_access> v;
  for (size_t i = 0; i < capture_write_count(); ++i) v.push_back(capture_write(i));
  return v;
}

inline std::vector<uint32_t> read_offsets() {
  std::vector<uint32_t> v;
  for (size_t i = 0; i < capture_read_count(); ++i) v.push_back(capture_read(i).offset);
  return v;
}

inline void expect_writes(const std::vector<std::pair<uint32_t, uint32_t>>& expect) {
  const auto got = writes();
  ASSERT_EQ(got.size(), expect.size());
  for (size_t i = 0; i < expect.size(); ++i) {
    EXPECT_EQ(got[i].offset, expect[i].first) << "write " << i;
    EXPECT_EQ(got[i].value, expect[i].second) << "write " << i;
  }
}

}  // namespace uca_test
