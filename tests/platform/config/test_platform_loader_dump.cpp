// dump(): the effective configuration written out must load back unchanged;
// configs/kv260.json must be exactly the compiled-in defaults.
#include <set>

#include "config_test_util.h"

using namespace pccx::config;
using cfgtest::scratch;

TEST(ConfigDump, RoundTripIsIdentical) {
  scratch s;
  platform_config c = load(
      {{},
       {"clocks.core_mhz=333.3333333333333", "simulation.strict=true", "simulation.quantum_ns=250",
        "memory_map.npu_base=0xB0000000", "memory_map.ddr_size=0x80000000", "cpu.mmio_read_ns=0",
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
