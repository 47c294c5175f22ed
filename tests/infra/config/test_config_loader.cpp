// The engine's loader (infra/config/config_loader) with a root struct other
// than platform_config, as a later subsystem (say a model file under
// configs/models/) would use it: loading, checks, dump, the key reference
// and typed enum fields.
#include "config_test_util.h"

using namespace pccx::config;
using cfgtest::load_error;
using cfgtest::scratch;

namespace {

struct block_config {
  std::string kind = "attention";
  std::uint32_t heads = 8;

  template <class V>
  void visit(V& v) {
    v.field("kind", kind, "Block kind", one_of({"attention", "mlp"}));
    v.field("heads", heads, "Attention heads", range(1, 128, "test heads"));
  }
};

struct model_config {
  std::string name = "tiny";
  std::uint32_t layers = 0;  // out of range on purpose: the file must set it
  std::int64_t bias = -5;
  std::uint64_t weights_bytes = 0;
  std::vector<std::uint32_t> dims = {64, 64};
  std::vector<block_config> blocks;
  std::map<std::string, std::string> tags;

  template <class V>
  void visit(V& v) {
    v.field("name", name, "Model name");
    v.field("layers", layers, "Layer count", range(1, 1000, "test layers"));
    v.field("bias", bias, "Signed offset", range(-100, 100, "test bias"));
    v.field("weights_bytes", weights_bytes, "Weight blob size", hex());
    v.field("dims", dims, "Dimensions", items(1, 4), range(1, 4096, "test dims"));
    v.field("blocks", blocks, "Blocks, one per layer");
    v.field("tags", tags, "Free-form tags");
  }
  void validate(validator& check) const {
    if (blocks.size() != layers)
      check.fail({"layers", "blocks"}, "blocks has " + std::to_string(blocks.size()) +
                                           " entries but layers is " + std::to_string(layers));
  }
};

}  // namespace

TEST(ConfigGeneric, LoadsAnotherRootStruct) {
  scratch s;
  auto f = s.write("m.json", R"({"layers": 2, "bias": -7, "weights_bytes": "0x100",
      "dims": [1, 4096, 3], "blocks": [{"kind": "mlp"}, {"heads": 16}], "tags": {"a": "b"}})");
  model_config m = load_as<model_config>({{f}, {"name=big"}});
  EXPECT_EQ(m.name, "big");
  EXPECT_EQ(m.layers, 2u);
  EXPECT_EQ(m.bias, -7);
  EXPECT_EQ(m.weights_bytes, 256u);
  EXPECT_EQ(m.dims, (std::vector<std::uint32_t>{1, 4096, 3}));
  ASSERT_EQ(m.blocks.size(), 2u);
  EXPECT_EQ(m.blocks[0].kind, "mlp");
  EXPECT_EQ(m.blocks[0].heads, 8u);
  EXPECT_EQ(m.blocks[1].kind, "attention");
  EXPECT_EQ(m.blocks[1].heads, 16u);
  EXPECT_EQ(m.tags.at("a"), "b");
  // hex() without address(): accepted as input, dumped as a number.
  EXPECT_EQ(to_json_as(m)["weights_bytes"], 256);

  scratch s2;
  dump_as(m, s2.path("back.json"));
  EXPECT_EQ(to_json_as(load_as<model_config>({{s2.path("back.json")}, {}})), to_json_as(m));
}

TEST(ConfigGeneric, OutOfRangeDefaultActsAsRequiredKey) {
  EXPECT_EQ(load_error<model_config>({}),
            "built-in defaults: /layers: expected an unsigned integer in [1, 1000], found 0 (test layers)");
}

TEST(ConfigGeneric, ElementAndSignedChecks) {
  scratch s;
  auto f = s.write("m.json", R"({"layers": 1, "blocks": [{"kind": "mpl"}], "bias": 101,
                                 "dims": [8, 0], "tags": {"x": 1}})");
  EXPECT_EQ(load_error<model_config>({{f}, {}}),
            f + ": /bias: expected an integer in [-100, 100], found 101 (test bias)\n" + f +
                ": /dims/1: expected an unsigned integer in [1, 4096], found 0 (test dims)\n" + f +
                ": /blocks/0/kind: expected one of \"attention\", \"mlp\", found \"mpl\"; did you "
                "mean \"mlp\"?\n" +
                f + ": /tags/x: expected a string, found 1");
  auto g = s.write("g.json", R"({"layers": 1, "blocks": [{}], "dims": []})");
  EXPECT_EQ(load_error<model_config>({{g}, {}}), g + ": /dims: expected 1 to 4 entries, found 0");
}

TEST(ConfigGeneric, ValidateBlamesTheLayerThatChangedLast) {
  scratch s;
  auto f = s.write("m.json", R"({"layers": 2, "blocks": [{}, {}]})");
  EXPECT_EQ(load_error<model_config>({{f}, {"layers=3"}}),
            "--set layers=3: /layers: blocks has 2 entries but layers is 3");
}

TEST(ConfigGeneric, DescribeAnotherRoot) {
  auto rows = describe_keys_as<model_config>();
  std::vector<std::string> pointers;
  for (const auto& k : rows) pointers.push_back(k.pointer);
  EXPECT_EQ(pointers,
            (std::vector<std::string>{"/name", "/layers", "/bias", "/weights_bytes", "/dims",
                                      "/blocks", "/blocks/*/kind", "/blocks/*/heads", "/tags"}));
  EXPECT_EQ(rows[4].type, "array of uint32");
  EXPECT_EQ(rows[4].constraint, "[1, 4096]; 1 to 4 entries");
  EXPECT_EQ(rows[2].type, "int64");
  EXPECT_EQ(rows[2].default_value, "-5");
}

// A typed enum field: its names come from the enum's own table, for parsing
// (with a did-you-mean), dump, key reference and messages.
namespace enum_test {

enum class scheduler { fifo, frfcfs, grouped };
inline const enum_table<scheduler>& names_of(scheduler) {
  static const enum_table<scheduler> t = {
      {scheduler::fifo, "fifo"}, {scheduler::frfcfs, "frfcfs"}, {scheduler::grouped, "grouped"}};
  return t;
}

struct controller_config {
  scheduler policy = scheduler::frfcfs;
  std::vector<scheduler> fallbacks = {scheduler::fifo};

  template <class V>
  void visit(V& v) {
    v.field("policy", policy, "Scheduling policy");
    v.field("fallbacks", fallbacks, "Policies tried after the first");
  }
};

}  // namespace enum_test

TEST(ConfigEnums, NamesParseDumpAndDescribe) {
  using enum_test::controller_config;
  using enum_test::scheduler;
  const controller_config c =
      load_as<controller_config>({{}, {"policy=grouped", R"(fallbacks=["frfcfs","fifo"])"}});
  EXPECT_EQ(c.policy, scheduler::grouped);
  ASSERT_EQ(c.fallbacks.size(), 2u);
  EXPECT_EQ(c.fallbacks[0], scheduler::frfcfs);
  EXPECT_EQ(to_json_as(c),
            nlohmann::json::parse(R"({"policy":"grouped","fallbacks":["frfcfs","fifo"]})"));
  EXPECT_STREQ(enum_name(scheduler::fifo), "fifo");
  const auto keys = describe_keys_as<controller_config>();
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0].type, "string");
  EXPECT_EQ(keys[0].default_value, "\"frfcfs\"");
  EXPECT_EQ(keys[0].constraint, "one of fifo, frfcfs, grouped");
}

TEST(ConfigEnums, AnUnknownNameGetsADidYouMean) {
  const std::string err = load_error<enum_test::controller_config>({{}, {"policy=frfcsf"}});
  EXPECT_NE(err.find("/policy: expected one of \"fifo\", \"frfcfs\", \"grouped\", found "
                     "\"frfcsf\"; did you mean \"frfcfs\"?"),
            std::string::npos)
      << err;
}
