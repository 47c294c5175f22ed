// describe_keys() and docs/reference/configuration.md: the key reference cannot drift
// from the schema.
//
// To regenerate the table in docs/reference/configuration.md after changing a struct:
//   PCCX_UPDATE_DOCS=1 ./config_tests --gtest_filter='ConfigDocs.*'
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>

#include "config_test_util.h"

using namespace pccx::config;

namespace {

const char kBegin[] =
    "<!-- keys:begin (generated from describe_keys(); see "
    "tests/platform/config/test_platform_config_docs.cpp) -->\n";
const char kEnd[] = "<!-- keys:end -->";

std::map<std::string, key_info> rows_by_pointer() {
  std::map<std::string, key_info> rows;
  for (const auto& k : describe_keys()) rows[k.pointer] = k;
  return rows;
}

}  // namespace

TEST(ConfigDocs, DescribeKeysRows) {
  auto rows = rows_by_pointer();
  ASSERT_TRUE(rows.count("/npu/cmd_fifo_depth"));
  const key_info& fifo = rows["/npu/cmd_fifo_depth"];
  EXPECT_EQ(fifo.type, "uint32");
  EXPECT_EQ(fifo.default_value, "8");
  EXPECT_EQ(fifo.constraint, "[1, 1024]");
  EXPECT_EQ(fifo.doc, "Depth of the CMD_IN instruction FIFO");

  EXPECT_EQ(rows["/memory_map/npu_base"].default_value, "\"0xA0000000\"");
  EXPECT_EQ(rows["/memory_map/npu_base"].constraint, "[0x0, 0xFFFFE00000]; \"0x...\" accepted");
  EXPECT_EQ(rows["/memory_map/ddr_size"].constraint, "[1, 1099511627776]; \"0x...\" accepted");
  EXPECT_EQ(rows["/memory_map/npu_size"].constraint, "[4096, 1048576]; \"0x...\" accepted");
  EXPECT_EQ(rows["/clocks/core_mhz"].constraint, "[1.0, 2000.0]");
  EXPECT_EQ(rows["/clocks/core_mhz"].type, "number");
  EXPECT_EQ(rows["/log/level"].constraint, "one of trace, debug, info, warning, error, off");
  EXPECT_EQ(rows["/log/modules"].type, "map of string");
  EXPECT_EQ(rows["/log/modules"].constraint,
            "values: one of trace, debug, info, warning, error, off");
  EXPECT_EQ(rows["/npu/constant_cache/banks"].type, "array of object");
  EXPECT_EQ(rows["/npu/constant_cache/banks"].constraint, "exactly 4 entries");
  EXPECT_EQ(rows["/npu/constant_cache/banks/*/enabled"].default_value, "true");
  EXPECT_EQ(rows["/npu"].type, "object");
  EXPECT_EQ(rows["/npu"].default_value, "");
  for (const auto& [ptr, k] : rows) EXPECT_FALSE(k.doc.empty()) << ptr << " has no description";
}

// Every numeric key has a minimum and a maximum the platform can run with,
// and says why.
TEST(ConfigDocs, EveryNumericKeyHasAReasonedRange) {
  for (const auto& line : unexplained_ranges(describe_keys())) ADD_FAILURE() << line;
}

TEST(ConfigDocs, EveryValueInTheTreeIsDescribed) {
  auto rows = rows_by_pointer();
  const std::regex index("/[0-9]+(/|$)");
  const nlohmann::json flat = to_json(platform_config{}).flatten();
  for (const auto& item : flat.items()) {
    std::string ptr = std::regex_replace(item.key(), index, "/*$1");
    // An array of scalars is described by its own row.
    const bool scalar_item = ptr.size() > 2 && ptr.compare(ptr.size() - 2, 2, "/*") == 0 &&
                             rows.count(ptr.substr(0, ptr.size() - 2));
    EXPECT_TRUE(rows.count(ptr) || scalar_item) << ptr << " is not described";
  }
}

TEST(ConfigDocs, DocsMentionEveryKey) {
  const std::string docs =
      cfgtest::read_text(cfgtest::source_path("docs/reference/configuration.md"));
  ASSERT_FALSE(docs.empty()) << "docs/reference/configuration.md is missing";
  for (const auto& k : describe_keys())
    EXPECT_NE(docs.find("`" + k.pointer + "`"), std::string::npos)
        << "docs/reference/configuration.md does not mention `" << k.pointer << "`";
}

TEST(ConfigDocs, DocsTableMatchesSchema) {
  const std::string path = cfgtest::source_path("docs/reference/configuration.md");
  std::string docs = cfgtest::read_text(path);
  const std::size_t begin = docs.find(kBegin);
  const std::size_t end = docs.find(kEnd);
  ASSERT_NE(begin, std::string::npos) << "missing marker " << kBegin;
  ASSERT_NE(end, std::string::npos) << "missing marker " << kEnd;
  const std::size_t body = begin + sizeof(kBegin) - 1;
  ASSERT_LE(body, end);
  const std::string want = key_table_markdown(describe_keys());
  if (docs.substr(body, end - body) != want && std::getenv("PCCX_UPDATE_DOCS")) {
    docs.replace(body, end - body, want);
    std::ofstream(path, std::ios::binary) << docs;
    GTEST_SKIP() << "rewrote the key table in " << path;
  }
  EXPECT_EQ(docs.substr(body, end - body), want)
      << "the key table in docs/reference/configuration.md is stale; regenerate it with\n"
         "  PCCX_UPDATE_DOCS=1 ./config_tests --gtest_filter='ConfigDocs.*'";
}
