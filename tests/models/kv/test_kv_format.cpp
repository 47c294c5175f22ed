// kv_format: record sizes for Gemma 3n E4B's head_dim 256, the size
// arithmetic for small and odd cases, check() messages and names.
#include <gtest/gtest.h>

#include <stdexcept>

#include "kv_test_util.h"

using namespace kvtest;
using pccx::kv::kind_name;
using pccx::kv::kv_codec;

namespace {

struct size_case {
  kv_format f;
  uint32_t record, payload, metadata;
  const char* name;
};

}  // namespace

TEST(KvFormat, RecordSizesForHeadDim256) {
  const size_case cases[] = {
      {fp16(), 512, 512, 0, "fp16"},
      {int8(0), 256, 256, 0, "int8/static"},
      {int8(256), 272, 258, 2, "int8/g256"},
      {int8(32), 272, 272, 16, "int8/g32"},
      {int4(0), 128, 128, 0, "int4/static"},
      {int4(32), 144, 144, 16, "int4/g32"},
      {int4(128), 144, 132, 4, "int4/g128"},
      {rot(2), 80, 66, 2, "rot2"},
      {rot(3), 112, 98, 2, "rot3"},
      {rot(4), 144, 130, 2, "rot4"},
      {rot(3, true), 144, 132, 4, "rot3+sketch"},
      {rot(2, true), 112, 100, 4, "rot2+sketch"},
      {rot(4, true), 176, 164, 4, "rot4+sketch"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.f.check(), "");
    EXPECT_EQ(c.f.name(), c.name);
    EXPECT_EQ(c.f.record_bytes(), c.record);
    EXPECT_EQ(c.f.payload_bytes(), c.payload);
    EXPECT_EQ(c.f.metadata_bytes(), c.metadata);
    EXPECT_EQ(c.f.record_bytes() % 16, 0u);
    EXPECT_DOUBLE_EQ(c.f.bits_per_element(), 8.0 * c.record / 256.0);
  }
}

TEST(KvFormat, SmallAndOddHeadDims) {
  EXPECT_EQ(fp16(1).payload_bytes(), 2u);
  EXPECT_EQ(fp16(1).record_bytes(), 16u);
  EXPECT_EQ(fp16(8).record_bytes(), 16u);
  EXPECT_EQ(fp16(9).record_bytes(), 32u);
  EXPECT_EQ(int4(0, 7).payload_bytes(), 4u);  // 7 nibbles in 4 bytes
  EXPECT_EQ(int4(7, 7).payload_bytes(), 6u);
  EXPECT_EQ(int8(3, 9).metadata_bytes(), 6u);
  EXPECT_EQ(int8(3, 9).payload_bytes(), 15u);
  EXPECT_EQ(int8(3, 9).record_bytes(), 16u);
  EXPECT_EQ(rot(3, false, 8).payload_bytes(), 5u);  // 2 + 24 bits
  EXPECT_EQ(rot(3, true, 8).payload_bytes(), 8u);   // + 2 + 8 sign bits
  EXPECT_EQ(rot(3, true, 1).payload_bytes(), 6u);   // bits round up per field
  EXPECT_EQ(rot(2, false, 65536 / 2).record_bytes(), 8208u);
  EXPECT_DOUBLE_EQ(fp16(8).bits_per_element(), 16.0);
  EXPECT_DOUBLE_EQ(fp16(1).bits_per_element(), 128.0);
}

TEST(KvFormat, LargestHeadDimFitsInThirtyTwoBits) {
  kv_format f = fp16(65535);
  EXPECT_EQ(f.check(), "");
  EXPECT_EQ(f.record_bytes(), 131072u);
  f = int8(65535, 65535);
  EXPECT_EQ(f.check(), "");
  EXPECT_EQ(f.record_bytes(), 65552u);
}

TEST(KvFormat, CheckNamesEveryInconsistentField) {
  EXPECT_EQ(int4(48).check(), "int4 group 48 does not divide head_dim 256");
  EXPECT_EQ(int8(3, 256).check(), "int8 group 3 does not divide head_dim 256");
  EXPECT_EQ(int8(512, 256).check(), "int8 group 512 does not divide head_dim 256");
  EXPECT_EQ(rot(3, false, 96).check(),
            "rotated head_dim 96 is not a power of two (the Walsh-Hadamard rotation needs one)");
  EXPECT_EQ(rot(1).check(), "rotated bits 1 is outside 2..4");
  EXPECT_EQ(rot(5).check(), "rotated bits 5 is outside 2..4");
  EXPECT_EQ(rot(0).check(), "rotated bits 0 is outside 2..4");
  EXPECT_EQ(fp16(0).check(), "head_dim 0: a record holds at least one element");
  EXPECT_EQ(fp16(65536).check(), "head_dim 65536 exceeds 65535");
  EXPECT_EQ(rot(3, false, 0).check(), "head_dim 0: a record holds at least one element");

  kv_format f = int8(0);
  f.residual_sketch = true;
  EXPECT_EQ(f.check(), "residual_sketch needs the rotated kind, not int8");
  f = fp16();
  f.residual_sketch = true;
  EXPECT_EQ(f.check(), "residual_sketch needs the rotated kind, not fp16");
  f = fp16();
  f.group = 32;
  EXPECT_EQ(f.check(), "fp16 has no scale group (group 32); group applies to int8 and int4 only");
  f = rot(3);
  f.group = 16;
  EXPECT_EQ(f.check(),
            "rotated has no scale group (group 16); group applies to int8 and int4 only");

  // Several problems are all reported.
  f = rot(7, false, 100);
  f.group = 4;
  EXPECT_EQ(f.check(),
            "rotated has no scale group (group 4); group applies to int8 and int4 only; rotated "
            "head_dim 100 is not a power of two (the Walsh-Hadamard rotation needs one); rotated "
            "bits 7 is outside 2..4");

  f = fp16();
  f.kind = static_cast<kv_kind>(9);
  EXPECT_EQ(f.check(), "unknown kind 9 (expected fp16, int8, int4 or rotated)");
  EXPECT_EQ(f.name(), "unknown");
  EXPECT_STREQ(kind_name(f.kind), "unknown");
}

TEST(KvFormat, BitsAreIgnoredOutsideTheRotatedKind) {
  kv_format f = int4(32);
  f.bits = 17;
  EXPECT_EQ(f.check(), "");
  EXPECT_EQ(f.record_bytes(), 144u);
}

TEST(KvFormat, Names) {
  EXPECT_EQ(fp16().name(), "fp16");
  EXPECT_EQ(int8(0).name(), "int8/static");
  EXPECT_EQ(int8(256).name(), "int8/g256");
  EXPECT_EQ(int4(32).name(), "int4/g32");
  EXPECT_EQ(rot(3).name(), "rot3");
  EXPECT_EQ(rot(3, true).name(), "rot3+sketch");
  EXPECT_STREQ(kind_name(kv_kind::fp16), "fp16");
  EXPECT_STREQ(kind_name(kv_kind::int8), "int8");
  EXPECT_STREQ(kind_name(kv_kind::int4), "int4");
  EXPECT_STREQ(kind_name(kv_kind::rotated), "rotated");
}

TEST(KvFormat, CodecRefusesAnInconsistentFormat) {
  try {
    kv_codec c(int4(48));
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "kv_format int4/g48: int4 group 48 does not divide head_dim 256");
  }
  EXPECT_THROW(kv_codec(rot(3, false, 96)), std::invalid_argument);
}

TEST(KvFormat, RotationAdds) {
  EXPECT_EQ(kv_codec(rot(3)).rotation_adds(), 256u * 8u);
  EXPECT_EQ(kv_codec(rot(2, false, 1)).rotation_adds(), 0u);
  EXPECT_EQ(kv_codec(rot(2, false, 2)).rotation_adds(), 2u);
  EXPECT_EQ(kv_codec(int8(32)).rotation_adds(), 0u);
  EXPECT_EQ(kv_codec(fp16()).rotation_adds(), 0u);
  EXPECT_TRUE(kv_codec(fp16()).codebook().empty());
  EXPECT_EQ(kv_codec(rot(3)).codebook().size(), 8u);
}
