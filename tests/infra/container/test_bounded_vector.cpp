// bounded_vector: up to N elements inline, copies independent of the
// original, and a clear error past N or out of range.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "infra/container/bounded_vector.h"

namespace pccx {
namespace {

TEST(BoundedVector, HoldsUpToItsCapacityInOrder) {
  bounded_vector<int, 3> v;
  EXPECT_TRUE(v.empty());
  v.push_back(4);
  v.push_back(5);
  v.push_back(6);
  EXPECT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0], 4);
  EXPECT_EQ(v.at(1), 5);
  EXPECT_EQ(v.back(), 6);
  EXPECT_EQ(std::vector<int>(v.begin(), v.end()), (std::vector<int>{4, 5, 6}));
  v.clear();
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.begin(), v.end());
}

TEST(BoundedVector, PastItsCapacityThrowsAndKeepsWhatItHas) {
  bounded_vector<int, 2> v{1, 2};
  try {
    v.push_back(3);
    FAIL() << "a third element was taken";
  } catch (const std::length_error& e) {
    EXPECT_NE(std::string(e.what()).find("more than 2"), std::string::npos) << e.what();
  }
  EXPECT_EQ(v.size(), 2u);
  EXPECT_EQ(v.back(), 2);
  EXPECT_THROW(v.at(2), std::out_of_range);
}

TEST(BoundedVector, ACopyIsIndependent) {
  bounded_vector<int, 2> a{7};
  bounded_vector<int, 2> b = a;
  b.push_back(8);
  b[0] = 9;
  EXPECT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0], 7);
  EXPECT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0], 9);
  // Pushing its own last element copies it before the slot is taken.
  bounded_vector<int, 3> c{1};
  c.push_back(c.back());
  EXPECT_EQ(c[1], 1);
}

}  // namespace
}  // namespace pccx
