// Defaults, file layering and --set overrides (the successful paths, plus
// --set's own error cases).
#include "config_test_util.h"

using namespace pccx::config;
using cfgtest::load_error;
using cfgtest::scratch;

TEST(ConfigDefaults, CompiledInValues) {
  platform_config c = load({});
  EXPECT_EQ(c.clocks.core_mhz, 400.0);
  EXPECT_EQ(c.clocks.axi_mhz, 250.0);
  EXPECT_EQ(c.simulation.quantum_ns, 1000u);
  EXPECT_EQ(c.simulation.max_time_ms, 60000u);
  EXPECT_FALSE(c.simulation.strict);
  EXPECT_EQ(c.memory_map.npu_base, 0xA0000000u);
  EXPECT_EQ(c.memory_map.npu_size, 0x10000u);
  EXPECT_EQ(c.memory_map.npu_size, 0x10000u);
  EXPECT_EQ(c.memory_map.ddr_base, 0u);
  EXPECT_EQ(c.memory_map.ddr_size, 0x100000000u);
  EXPECT_EQ(c.cpu.mmio_write_ns, 40u);
  EXPECT_EQ(c.cpu.mmio_read_ns, 200u);
  EXPECT_EQ(c.cpu.stack_kib, 8192u);
  EXPECT_EQ(c.npu.cmd_fifo_depth, 8u);
  EXPECT_EQ(c.npu.decode_cycles, 1u);
  EXPECT_EQ(c.npu.issue_cycles, 1u);
  EXPECT_EQ(c.npu.gemv_cores, 4u);
  EXPECT_EQ(c.npu.l2.words, 114688u);
  EXPECT_EQ(c.npu.l2.ports, 2u);
  EXPECT_EQ(c.npu.constant_cache.slots, 64u);
  EXPECT_EQ(c.npu.constant_cache.write_cycles, 1u);
  ASSERT_EQ(c.npu.constant_cache.banks.size(), 4u);
  const char* names[] = {"fmap_shape", "weight_shape", "head_scale", "channel_scale"};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(c.npu.constant_cache.banks[i].name, names[i]);
    EXPECT_TRUE(c.npu.constant_cache.banks[i].enabled);
  }
  EXPECT_EQ(c.npu.sfu.max_length, 2048u);
  EXPECT_TRUE(c.npu.sfu.extensions);
  EXPECT_TRUE(c.npu.memcpy.kv_append);
  EXPECT_EQ(c.trace.mmio, "");
  EXPECT_EQ(c.trace.instructions, "");
  EXPECT_EQ(c.log.level, "info");
  EXPECT_TRUE(c.log.modules.empty());
  EXPECT_EQ(c.output.dir, "");
  EXPECT_EQ(to_json(c), to_json(platform_config{}));
}

TEST(ConfigLayering, LaterFileWinsAndObjectsDeepMerge) {
  scratch s;
  auto a = s.write("a.json", R"({"clocks": {"core_mhz": 500}, "npu": {"l2": {"words": 1000}},
                                 "log": {"modules": {"npu": "debug"}}})");
  auto b =
      s.write("b.json", R"({"clocks": {"core_mhz": 600}, "log": {"modules": {"dma": "trace"}}})");
  platform_config c = load({{a, b}, {}});
  EXPECT_EQ(c.clocks.core_mhz, 600.0);  // b wins
  EXPECT_EQ(c.clocks.axi_mhz, 250.0);   // sibling default survives
  EXPECT_EQ(c.npu.l2.words, 1000u);     // only in a
  EXPECT_EQ(c.npu.l2.ports, 2u);
  EXPECT_EQ(c.log.modules,
            (std::map<std::string, std::string>{{"npu", "debug"}, {"dma", "trace"}}));

  platform_config reversed = load({{b, a}, {}});
  EXPECT_EQ(reversed.clocks.core_mhz, 500.0);
}

TEST(ConfigLayering, ArraysAreReplacedWhole) {
  scratch s;
  auto a = s.write("a.json", R"({"npu": {"constant_cache": {"banks": [
      {"name": "fmap_shape"}, {"name": "weight_shape"},
      {"name": "k_scale", "enabled": false}, {"name": "v_scale"}]}}})");
  platform_config c = load({{a}, {}});
  const auto& banks = c.npu.constant_cache.banks;
  ASSERT_EQ(banks.size(), 4u);
  EXPECT_EQ(banks[2].name, "k_scale");
  EXPECT_FALSE(banks[2].enabled);
  EXPECT_EQ(banks[3].name, "v_scale");
  EXPECT_TRUE(banks[3].enabled);  // missing element fields take the element default
}

TEST(ConfigSet, NumberAppliedAfterAllFiles) {
  scratch s;
  auto a = s.write("a.json", R"({"npu": {"cmd_fifo_depth": 32}})");
  platform_config c = load({{a}, {"npu.cmd_fifo_depth=16"}});
  EXPECT_EQ(c.npu.cmd_fifo_depth, 16u);
  c = load({{}, {"clocks.core_mhz=512.5", "clocks.core_mhz=300"}});
  EXPECT_EQ(c.clocks.core_mhz, 300.0);  // later --set wins
}

TEST(ConfigSet, BoolStringAndQuotedString) {
  platform_config c =
      load({{},
            {"simulation.strict=true", "log.level=debug", "trace.mmio=out/mmio.jsonl",
             R"(trace.instructions="true")", "output.dir="}});
  EXPECT_TRUE(c.simulation.strict);
  EXPECT_EQ(c.log.level, "debug");
  EXPECT_EQ(c.trace.mmio, "out/mmio.jsonl");
  EXPECT_EQ(c.trace.instructions, "true");  // quoted: a string, not a boolean
  EXPECT_EQ(c.output.dir, "");
}

TEST(ConfigSet, HexAndDecimalAddresses) {
  platform_config c = load({{},
                            {"memory_map.npu_base=0xB0000000", "memory_map.npu_size=4096",
                             "memory_map.ddr_size=0X80000000"}});
  EXPECT_EQ(c.memory_map.npu_base, 0xB0000000u);
  EXPECT_EQ(c.memory_map.npu_size, 0x1000u);
  EXPECT_EQ(c.memory_map.ddr_size, 0x80000000u);
}

TEST(ConfigSet, ObjectValueMergesAndArrayIndex) {
  platform_config c =
      load({{}, {R"(clocks={"axi_mhz": 100})", "npu.constant_cache.banks.3.enabled=false"}});
  EXPECT_EQ(c.clocks.axi_mhz, 100.0);
  EXPECT_EQ(c.clocks.core_mhz, 400.0);
  EXPECT_FALSE(c.npu.constant_cache.banks[3].enabled);
  EXPECT_EQ(c.npu.constant_cache.banks[3].name, "channel_scale");
}

TEST(ConfigSet, MapEntries) {
  platform_config c = load({{}, {"log.modules.npu=debug"}});
  EXPECT_EQ(c.log.modules.at("npu"), "debug");
  // Dots separate path segments, so a dotted module name goes in an object value.
  c = load({{}, {R"(log.modules={"npu.cmd": "trace"})", "log.modules.dma=off"}});
  EXPECT_EQ(c.log.modules,
            (std::map<std::string, std::string>{{"npu.cmd", "trace"}, {"dma", "off"}}));
  EXPECT_EQ(
      load_error({{}, {"log.modules.npu.cmd=trace"}}),
      "--set log.modules.npu.cmd=trace: /log/modules/npu: expected one of \"trace\", \"debug\", "
      "\"info\", \"warning\", \"error\", \"off\", found {\"cmd\":\"trace\"}");
}

TEST(ConfigSet, UnknownPathSuggestsNearestKey) {
  EXPECT_EQ(load_error({{}, {"npu.cmd_fifo_dept=3"}}),
            "--set npu.cmd_fifo_dept=3: /npu/cmd_fifo_dept: unknown key; did you mean "
            "\"cmd_fifo_depth\"?");
  EXPECT_EQ(load_error({{}, {"npuu.cmd_fifo_depth=3"}}),
            "--set npuu.cmd_fifo_depth=3: /npuu: unknown key; did you mean \"npu\"?");
}

TEST(ConfigSet, MissingEqualsIsAnError) {
  EXPECT_EQ(load_error({{}, {"npu.cmd_fifo_depth"}}),
            "--set npu.cmd_fifo_depth: missing '='; expected --set KEY=VALUE, e.g. --set "
            "npu.cmd_fifo_depth=16");
  EXPECT_EQ(load_error({{}, {"=4"}}), "--set =4: missing key before '='; expected --set KEY=VALUE");
  EXPECT_EQ(load_error({{}, {"npu..gemv_cores=4"}}),
            "--set npu..gemv_cores=4: empty segment in key \"npu..gemv_cores\"; segments are "
            "separated by single dots");
}

TEST(ConfigSet, TypeErrorNamesTheSet) {
  EXPECT_EQ(
      load_error({{}, {"clocks.core_mhz=fast"}}),
      "--set clocks.core_mhz=fast: /clocks/core_mhz: expected a number in [1.0, 2000.0], found "
      "\"fast\"");
  EXPECT_EQ(load_error({{}, {"simulation.strict=1"}}),
            "--set simulation.strict=1: /simulation/strict: expected a boolean, found 1");
  EXPECT_EQ(load_error({{}, {"memory_map.npu_base=0xA000_0000"}}),
            "--set memory_map.npu_base=0xA000_0000: /memory_map/npu_base: expected an unsigned "
            "integer or a \"0x...\" hex string, found \"0xA000_0000\"");
}

TEST(ConfigSet, PathThroughScalarOrBadIndex) {
  EXPECT_EQ(load_error({{}, {"clocks.core_mhz.x=1"}}),
            "--set clocks.core_mhz.x=1: /clocks/core_mhz: is a number, so it has no key \"x\"");
  EXPECT_EQ(load_error({{}, {"npu.constant_cache.banks.4.enabled=false"}}),
            "--set npu.constant_cache.banks.4.enabled=false: /npu/constant_cache/banks: has no "
            "entry 4 (the array has 4 entries)");
  EXPECT_EQ(load_error({{}, {"npu.constant_cache.banks.first.enabled=false"}}),
            "--set npu.constant_cache.banks.first.enabled=false: /npu/constant_cache/banks: is an "
            "array; expected an index, found \"first\"");
}

TEST(ConfigSet, OverrideOfFileValueIsBlamedOnTheSet) {
  scratch s;
  auto a = s.write("a.json", R"({"npu": {"gemv_cores": 8}})");
  EXPECT_EQ(
      load_error({{a}, {"npu.gemv_cores=0"}}),
      "--set npu.gemv_cores=0: /npu/gemv_cores: expected an unsigned integer in [1, 32], found 0");
}

TEST(ConfigLayering, ASectionProblemBlamesTheFileThatSetItsFields) {
  // The KV format check fails on the whole /npu/kv/key object, which the
  // defaults created; the file that set its fields is the one to name.
  scratch s;
  auto f = s.write("kv.json", R"({"npu": {"kv": {"key": {"kind": "int8", "group": 7}}}})");
  const std::string err = load_error({{f}, {}});
  EXPECT_EQ(err.rfind(f + ": /npu/kv/key: ", 0), 0u) << err;
}
