// The platform's loader (platform/config/platform_loader): defaults, file
// layering and --set overrides, the error reports for bad input, and dump().
#include <set>

#include "config_test_util.h"

using namespace pccx::config;
using cfgtest::load_error;
using cfgtest::scratch;

// Defaults, file layering and --set overrides (the successful paths, plus
// --set's own error cases).

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
            "integer or a \"0x...\" hex string in [0x0, 0xFFFFE00000], found \"0xA000_0000\"");
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
      "--set npu.gemv_cores=0: /npu/gemv_cores: expected an unsigned integer in [1, 32], found 0"
      " (at least one core; 32 is a modelling cap, 8x the four v002 cores)");
}

TEST(ConfigLayering, ASectionProblemBlamesTheFileThatSetItsFields) {
  // The KV format check fails on the whole /npu/kv/key object, which the
  // defaults created; the file that set its fields is the one to name.
  scratch s;
  auto f = s.write("kv.json", R"({"npu": {"kv": {"key": {"kind": "int8", "group": 7}}}})");
  const std::string err = load_error({{f}, {}});
  EXPECT_EQ(err.rfind(f + ": /npu/kv/key: ", 0), 0u) << err;
}

// Error reports for bad files: each names the source, the JSON pointer, what
// was expected and what was found.

TEST(ConfigErrors, UnknownKeySuggestsNearestSibling) {
  scratch s;
  auto x = s.write("x.json", R"({"npu": {"cmd_fifo_dept": 16}})");
  EXPECT_EQ(load_error({{x}, {}}),
            x + ": /npu/cmd_fifo_dept: unknown key; did you mean \"cmd_fifo_depth\"?");
}

TEST(ConfigErrors, UnknownKeyFarFromAllListsValidKeys) {
  scratch s;
  auto x = s.write("x.json", R"({"clocks": {"turbo": true}})");
  EXPECT_EQ(load_error({{x}, {}}),
            x + ": /clocks/turbo: unknown key; valid keys: \"core_mhz\", \"axi_mhz\"");
}

TEST(ConfigErrors, UnknownKeyInsideArrayElement) {
  scratch s;
  auto x = s.write("x.json", R"({"npu": {"constant_cache": {"banks": [
      {"name": "fmap_shape"}, {"name": "weight_shape"}, {"name": "a"}, {"nmae": "b"}]}}})");
  EXPECT_EQ(load_error({{x}, {}}),
            x + ": /npu/constant_cache/banks/3/nmae: unknown key; did you mean \"name\"?");
}

TEST(ConfigErrors, ValueOutOfRange) {
  scratch s;
  auto x = s.write("x.json", R"({"npu": {"cmd_fifo_depth": -3}})");
  EXPECT_EQ(load_error({{x}, {}}),
            x + ": /npu/cmd_fifo_depth: expected an unsigned integer in [1, 1024], found -3");
  auto y = s.write("y.json", R"({"clocks": {"axi_mhz": 2000.5}})");
  EXPECT_EQ(load_error({{y}, {}}),
            y + ": /clocks/axi_mhz: expected a number in [1.0, 2000.0], found 2000.5 (above 0 for "
                "a finite period; 2 GHz is a modelling cap over the 400 and 250 MHz PL clocks)");
  auto z = s.write("z.json", R"({"cpu": {"stack_kib": 5000000000}})");
  EXPECT_EQ(
      load_error({{z}, {}}),
      z + ": /cpu/stack_kib: expected an unsigned integer in [64, 1048576], found 5000000000 "
          "(64 KiB for the host-compiled firmware's frames; 1 GiB caps the host allocation)");
}

TEST(ConfigErrors, WrongType) {
  scratch s;
  auto x = s.write("x.json", R"({"simulation": {"strict": "yes"}})");
  EXPECT_EQ(load_error({{x}, {}}), x + ": /simulation/strict: expected a boolean, found \"yes\"");
  auto y = s.write("y.json", R"({"npu": {"l2": 5}})");
  EXPECT_EQ(load_error({{y}, {}}), y + ": /npu/l2: expected an object, found 5");
  auto z = s.write("z.json", R"({"npu": {"gemv_cores": 2.5}})");
  EXPECT_EQ(load_error({{z}, {}}),
            z + ": /npu/gemv_cores: expected an unsigned integer in [1, 32], found 2.5");
  auto w = s.write("w.json", R"({"trace": {"mmio": null}})");
  EXPECT_EQ(load_error({{w}, {}}), w + ": /trace/mmio: expected a string, found null");
  auto v = s.write("v.json", R"({"npu": {"constant_cache": {"banks": {"name": "x"}}}})");
  EXPECT_EQ(
      load_error({{v}, {}}),
      v + ": /npu/constant_cache/banks: expected an array of objects, found {\"name\":\"x\"}");
}

TEST(ConfigErrors, StringNotAmongChoices) {
  scratch s;
  auto x = s.write("x.json", R"({"log": {"level": "verbose", "modules": {"dma": "infoo"}}})");
  EXPECT_EQ(
      load_error({{x}, {}}),
      x +
          ": /log/level: expected one of \"trace\", \"debug\", \"info\", \"warning\", \"error\", "
          "\"off\", found \"verbose\"\n" +
          x +
          ": /log/modules/dma: expected one of \"trace\", \"debug\", \"info\", \"warning\", "
          "\"error\", \"off\", found \"infoo\"; did you mean \"info\"?");
}

TEST(ConfigErrors, SyntaxErrorGivesLineAndColumn) {
  scratch s;
  auto x = s.write("x.json", "{\n  \"clocks\": {\n    \"core_mhz\": 400,\n  }\n}\n");
  std::string err = load_error({{x}, {}});
  EXPECT_EQ(
      err,
      x + ":4:3: syntax error while parsing object key - unexpected '}'; expected string literal");
  auto y = s.write("y.json", "{\"npu\": {\"gemv_cores\": 4}");
  EXPECT_EQ(load_error({{y}, {}}),
            y + ":1:26: syntax error while parsing object - unexpected end of input; expected '}'");
}

TEST(ConfigErrors, NumberBeyondDoubleIsAConfigError) {
  scratch s;
  auto x = s.write("x.json", R"({"npu": {"gemv_cores": 1E400}})");
  EXPECT_EQ(load_error({{x}, {}}), x + ": number overflow parsing '1E400'");
}

TEST(ConfigErrors, DeepNestingIsRefused) {
  // Deep enough to exhaust the stack in the recursive JSON copies if it were
  // accepted.
  const std::string open(200000, '['), close(200000, ']');
  scratch s;
  auto x = s.write("x.json", "{\"npu\": " + open + close + "}");
  EXPECT_EQ(load_error({{x}, {}}), x + ": nested deeper than 64 levels");
  EXPECT_EQ(load_error({{}, {"npu.gemv_cores=" + open + close}}),
            "--set npu.gemv_cores=" + open + close + ": value nested deeper than 64 levels");
}

TEST(ConfigErrors, MissingFileIsNamed) {
  scratch s;
  std::string missing = s.path("nope.json");
  EXPECT_EQ(load_error({{missing}, {}}), missing + ": cannot open file: No such file or directory");
  EXPECT_EQ(load_error({{s.path("")}, {}}), s.path("") + ": is a directory, not a JSON file");
}

TEST(ConfigErrors, TopLevelMustBeAnObject) {
  scratch s;
  auto x = s.write("x.json", "[1, 2]");
  EXPECT_EQ(load_error({{x}, {}}), x + ": expected a JSON object at the top level, found [1,2]");
}

TEST(ConfigErrors, AllProblemsReportedTogether) {
  scratch s;
  auto a = s.write("a.json", R"({"npu": {"cmd_fifo_depth": -3, "gemv_corez": 4},
                                 "simulation": {"strict": "no"}})");
  auto b = s.write("b.json", R"({"clocks": {"core_mhz": "fast"}})");
  try {
    load({{a, b}, {"npu.l2.ports=3"}});
    FAIL() << "expected a config_error";
  } catch (const config_error& e) {
    // Order follows the tree, not the layers.
    std::vector<std::string> expected = {
        b + ": /clocks/core_mhz: expected a number in [1.0, 2000.0], found \"fast\"",
        a + ": /simulation/strict: expected a boolean, found \"no\"",
        a + ": /npu/cmd_fifo_depth: expected an unsigned integer in [1, 1024], found -3",
        "--set npu.l2.ports=3: /npu/l2/ports: expected an unsigned integer in [1, 2], found 3 (1 "
        "= both sides share a port; 2 = the URAM's true dual port (ACP, compute))",
        a + ": /npu/gemv_corez: unknown key; did you mean \"gemv_cores\"?",
    };
    EXPECT_EQ(e.messages(), expected);
    std::string joined;
    for (const auto& m : expected) joined += (joined.empty() ? "" : "\n") + m;
    EXPECT_EQ(std::string(e.what()), joined);
  }
}

TEST(ConfigErrors, LayerProblemsReportedTogether) {
  scratch s;
  std::string missing = s.path("missing.json");
  auto bad = s.write("bad.json", "{,}");
  std::string err = load_error({{missing, bad}, {"no_equals", "npu.gemv_cores=99"}});
  // Files and --set syntax are all checked before any value is bound.
  EXPECT_EQ(err,
            missing + ": cannot open file: No such file or directory\n" + bad +
                ":1:2: syntax error while parsing object key - unexpected ','; expected string "
                "literal\n"
                "--set no_equals: missing '='; expected --set KEY=VALUE, e.g. --set "
                "npu.cmd_fifo_depth=16");
}

TEST(ConfigErrors, HexStringsAreChecked) {
  scratch s;
  auto x = s.write("x.json", R"({"memory_map": {"npu_base": "0xZZ", "ddr_size": "0x0",
                                                "ddr_base": "0x10000000000000000"}})");
  EXPECT_EQ(load_error({{x}, {}}),
            x +
                ": /memory_map/npu_base: expected an unsigned integer or a \"0x...\" hex string "
                "in [0x0, 0xFFFFE00000], found \"0xZZ\"\n" +
                x +
                ": /memory_map/ddr_base: expected an unsigned integer or a \"0x...\" hex "
                "string in [0x0, 0xFFFFFFFFFF], found \"0x10000000000000000\"\n" +
                x +
                ": /memory_map/ddr_size: expected an unsigned integer or a \"0x...\" hex string "
                "in [1, 1099511627776], found \"0x0\" (at least a byte; the 40-bit ZynqMP "
                "physical space holds 1 TiB)");
  // Hex is only for fields that declare it.
  auto y = s.write("y.json", R"({"npu": {"gemv_cores": "0x4"}})");
  EXPECT_EQ(load_error({{y}, {}}),
            y + ": /npu/gemv_cores: expected an unsigned integer in [1, 32], found \"0x4\"");
}

TEST(ConfigErrors, LongFoundValuesAreShortened) {
  const std::string x100(100, 'x');
  EXPECT_EQ(load_error({{}, {"npu.gemv_cores=" + x100}}),
            "--set npu.gemv_cores=" + x100 +
                ": /npu/gemv_cores: expected an unsigned integer in [1, 32], found \"" +
                std::string(56, 'x') + "...");
}

// dump(): the effective configuration written out must load back unchanged;
// configs/kv260.json must be exactly the compiled-in defaults.

TEST(ConfigDump, RoundTripIsIdentical) {
  scratch s;
  platform_config c = load(
      {{},
       {"clocks.core_mhz=333.3333333333333", "simulation.strict=true", "simulation.quantum_ns=250",
        "memory_map.npu_base=0xB0000000", "memory_map.ddr_size=0x80000000", "cpu.mmio_read_ns=1",
        "npu.constant_cache.banks.2.name=k_scale", "npu.constant_cache.banks.3.enabled=false",
        R"(log.modules={"npu.cmd": "trace", "dma": "debug"})", "log.level=warning",
        "trace.mmio=out/mmio.jsonl", "output.dir=out dir/ü"}});
  ASSERT_NE(to_json(c), to_json(platform_config{}));
  const std::string path = s.path("dump.json");
  dump(c, path);
  platform_config back = load({{path}, {}});
  EXPECT_EQ(to_json(back), to_json(c));
  EXPECT_EQ(back.clocks.core_mhz, c.clocks.core_mhz);  // doubles survive exactly
  EXPECT_EQ(dump_text(back), cfgtest::read_text(path));
}

TEST(ConfigDump, AddressesAsHexSizesAsNumbersInDeclarationOrder) {
  const std::string text = dump_text(platform_config{});
  auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["memory_map"]["npu_base"], "0xA0000000");
  EXPECT_EQ(j["memory_map"]["npu_base"], "0xA0000000");
  EXPECT_EQ(j["memory_map"]["ddr_base"], "0x0");
  EXPECT_EQ(j["memory_map"]["npu_size"], 65536);
  EXPECT_EQ(j["memory_map"]["ddr_size"], 4294967296u);
  EXPECT_EQ(j["clocks"]["core_mhz"], 400.0);
  EXPECT_LT(text.find("\"clocks\""), text.find("\"simulation\""));
  EXPECT_LT(text.find("\"simulation\""), text.find("\"output\""));
  EXPECT_LT(text.find("\"core_mhz\""), text.find("\"axi_mhz\""));
  EXPECT_EQ(text.back(), '\n');
}

TEST(ConfigDump, UnwritablePathThrowsNamingIt) {
  scratch s;
  const std::string path = s.path("no/such/dir/out.json");
  try {
    dump(platform_config{}, path);
    FAIL() << "expected a config_error";
  } catch (const config_error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": cannot write: No such file or directory");
  }
}

TEST(ConfigDump, Kv260FileEqualsDefaults) {
  const std::string kv = cfgtest::source_path("configs/kv260.json");
  EXPECT_EQ(to_json(load({{kv}, {}})), to_json(platform_config{}));
  // It must spell out every key, not lean on the compiled-in defaults.
  std::set<std::string> in_file, in_tree;
  const nlohmann::json file = nlohmann::json::parse(cfgtest::read_text(kv)).flatten();
  const nlohmann::json tree = to_json(platform_config{}).flatten();
  for (const auto& item : file.items()) in_file.insert(item.key());
  for (const auto& item : tree.items()) in_tree.insert(item.key());
  EXPECT_EQ(in_file, in_tree);
}
