// Error reports for bad files: each names the source, the JSON pointer, what
// was expected and what was found.
#include "config_test_util.h"

using namespace pccx::config;
using cfgtest::load_error;
using cfgtest::scratch;

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
            y + ": /clocks/axi_mhz: expected a number in [1.0, 2000.0], found 2000.5");
  auto z = s.write("z.json", R"({"cpu": {"stack_kib": 5000000000}})");
  EXPECT_EQ(
      load_error({{z}, {}}),
      z + ": /cpu/stack_kib: expected an unsigned integer in [64, 1048576], found 5000000000");
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
        "--set npu.l2.ports=3: /npu/l2/ports: expected an unsigned integer in [1, 2], found 3",
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
                ": /memory_map/npu_base: expected an unsigned integer or a \"0x...\" hex string, "
                "found \"0xZZ\"\n" +
                x +
                ": /memory_map/ddr_base: expected an unsigned integer or a \"0x...\" hex "
                "string, found \"0x10000000000000000\"\n" +
                x +
                ": /memory_map/ddr_size: expected an unsigned integer or a \"0x...\" hex string "
                ">= 1, found \"0x0\"");
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
