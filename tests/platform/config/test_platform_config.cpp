// The platform's configuration schema (platform/config/platform_config): the
// checks run after parsing, across fields and on the output keys.
#include "config_test_util.h"

using namespace pccx::config;
using cfgtest::load_error;
using cfgtest::scratch;

// Cross-field checks run after parsing (memory map, constant-cache banks).

TEST(ConfigValidation, NpuWindowHoldsTheRegistersAndEndsBeforeSimControl) {
  EXPECT_EQ(load_error({{}, {"memory_map.npu_size=0x800"}}),
            "--set memory_map.npu_size=0x800: /memory_map/npu_size: expected an unsigned integer "
            "or a \"0x...\" hex string in [4096, 1048576], found \"0x800\" (holds the 4 KiB "
            "register bank; ends by the sim-control device at +0x100000)");
  EXPECT_EQ(
      load_error({{}, {"memory_map.npu_size=0x100001"}}),
      "--set memory_map.npu_size=0x100001: /memory_map/npu_size: expected an unsigned integer "
      "or a \"0x...\" hex string in [4096, 1048576], found \"0x100001\" (holds the 4 KiB "
      "register bank; ends by the sim-control device at +0x100000)");
  platform_config c = load({{}, {"memory_map.npu_size=0x100000"}});
  EXPECT_EQ(c.memory_map.npu_size, 0x100000u);
}

TEST(ConfigValidation, NpuBaseAlignment) {
  EXPECT_EQ(load_error({{}, {"memory_map.npu_base=0xA0000800"}}),
            "--set memory_map.npu_base=0xA0000800: /memory_map/npu_base: must be 4 KiB (0x1000) "
            "aligned, found 0xA0000800");
}

TEST(ConfigValidation, ZeroSizeAndWrapAround) {
  EXPECT_EQ(load_error({{}, {"memory_map.ddr_size=0"}}),
            "--set memory_map.ddr_size=0: /memory_map/ddr_size: expected an unsigned integer or a "
            "\"0x...\" hex string in [1, 1099511627776], found 0 (at least a byte; the 40-bit "
            "ZynqMP physical space holds 1 TiB)");
  EXPECT_EQ(load_error({{}, {"memory_map.ddr_base=0xFFFFFFFFFFFFF000"}}),
            "--set memory_map.ddr_base=0xFFFFFFFFFFFFF000: /memory_map/ddr_base: expected an "
            "unsigned integer or a \"0x...\" hex string in [0x0, 0xFFFFFFFFFF], found "
            "\"0xFFFFFFFFFFFFF000\" (a ZynqMP physical address: 40 bits)");
  EXPECT_EQ(load_error({{}, {"memory_map.ddr_base=0xFFFFF00000"}}),
            "--set memory_map.ddr_base=0xFFFFF00000: /memory_map/ddr_base: ddr window starting "
            "at 0xFFFFF00000 with size 0x100000000 runs past the end of the 40-bit physical "
            "address space");
}

TEST(ConfigValidation, BankCount) {
  EXPECT_EQ(
      load_error({{}, {R"(npu.constant_cache.banks=[{"name": "fmap_shape"}])"}}),
      R"(--set npu.constant_cache.banks=[{"name": "fmap_shape"}]: /npu/constant_cache/banks: )"
      "expected exactly 4 entries, found 1");
}

TEST(ConfigValidation, FirstTwoBanksAreFixedAndEnabled) {
  EXPECT_EQ(load_error({{}, {"npu.constant_cache.banks.1.name=shape"}}),
            "--set npu.constant_cache.banks.1.name=shape: /npu/constant_cache/banks/1/name: bank 1 "
            "must be \"weight_shape\", found \"shape\"");
  EXPECT_EQ(load_error({{}, {"npu.constant_cache.banks.0.enabled=false"}}),
            "--set npu.constant_cache.banks.0.enabled=false: /npu/constant_cache/banks/0/enabled: "
            "bank \"fmap_shape\" must be enabled");
  // The other two may be disabled.
  EXPECT_FALSE(
      load({{}, {"npu.constant_cache.banks.2.enabled=false"}}).npu.constant_cache.banks[2].enabled);
}

TEST(ConfigValidation, BankNamesUniqueAndNonEmpty) {
  EXPECT_EQ(load_error({{}, {"npu.constant_cache.banks.3.name=head_scale"}}),
            "--set npu.constant_cache.banks.3.name=head_scale: /npu/constant_cache/banks/3/name: "
            "duplicate bank name \"head_scale\" (also used by /npu/constant_cache/banks/2/name)");
  EXPECT_EQ(
      load_error({{}, {"npu.constant_cache.banks.2.name="}}),
      "--set npu.constant_cache.banks.2.name=: /npu/constant_cache/banks/2/name: bank name must "
      "not be empty");
}

TEST(ConfigValidation, CrossChecksOfDifferentStructsAreAllReported) {
  EXPECT_EQ(
      load_error({{}, {"memory_map.npu_base=0xA0000800", "npu.constant_cache.banks.0.name=x"}}),
      "--set memory_map.npu_base=0xA0000800: /memory_map/npu_base: must be 4 KiB (0x1000) "
      "aligned, found 0xA0000800\n"
      "--set npu.constant_cache.banks.0.name=x: /npu/constant_cache/banks/0/name: bank 0 must "
      "be \"fmap_shape\", found \"x\"");
}

TEST(ConfigValidation, PlotsNeedAnOutputDir) {
  EXPECT_EQ(load_error({{}, {"output.plots=true"}}),
            "--set output.plots=true: /output/plots: output.plots is on but output.dir is empty: "
            "set output.dir (--out DIR) to the folder for ddr_bandwidth.svg");
  EXPECT_TRUE(load({{}, {"output.plots=true", "output.dir=\"out\""}}).output.plots);
}

// The trace outputs (output.perfetto, output.vcd, output.pccx) write into
// output.dir: switching one on without the folder is a configuration error
// that names both keys.

TEST(ConfigOutputKeys, OffByDefault) {
  const platform_config c = load({{}, {}});
  EXPECT_FALSE(c.output.perfetto);
  EXPECT_FALSE(c.output.vcd);
  EXPECT_FALSE(c.output.pccx);
}

TEST(ConfigOutputKeys, EachOutputNeedsTheFolder) {
  EXPECT_EQ(load_error({{}, {"output.perfetto=true"}}),
            "--set output.perfetto=true: /output/perfetto: output.perfetto is on but output.dir is "
            "empty: set output.dir (--out DIR) to the folder for trace.perfetto.json");
  EXPECT_EQ(load_error({{}, {"output.vcd=true"}}),
            "--set output.vcd=true: /output/vcd: output.vcd is on but output.dir is empty: set "
            "output.dir (--out DIR) to the folder for signals.vcd");
  EXPECT_EQ(load_error({{}, {"output.pccx=true"}}),
            "--set output.pccx=true: /output/pccx: output.pccx is on but output.dir is empty: set "
            "output.dir (--out DIR) to the folder for session.pccx");
}

TEST(ConfigOutputKeys, WithTheFolderTheyLoad) {
  const platform_config c = load(
      {{}, {"output.dir=\"out\"", "output.perfetto=true", "output.vcd=true", "output.pccx=true"}});
  EXPECT_EQ(c.output.dir, "out");
  EXPECT_TRUE(c.output.perfetto);
  EXPECT_TRUE(c.output.vcd);
  EXPECT_TRUE(c.output.pccx);
}
