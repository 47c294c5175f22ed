// The layered document (infra/config/layered_json): merged layers and --set
// overrides, each value remembering the layer that set it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "infra/config/layered_json.h"

using namespace pccx::config;

TEST(ConfigGeneric, LayeredJsonTracksOrigins) {
  layered_json doc(nlohmann::json{{"a", {{"b", 1}, {"c", 2}}}});
  doc.merge(nlohmann::json{{"a", {{"b", 5}}}}, "one.json");
  diagnostics diag;
  doc.apply_set("a.c=[1,2]", diag);
  doc.apply_set("a.c.1=7", diag);
  EXPECT_TRUE(diag.empty());
  EXPECT_EQ(doc.doc(), (nlohmann::json{{"a", {{"b", 5}, {"c", {1, 7}}}}}));
  EXPECT_EQ(doc.origin_of("/a/b").name, "one.json");
  EXPECT_EQ(doc.origin_of("/a").name, "built-in defaults");
  EXPECT_EQ(doc.origin_of("/a/c/0").name, "--set a.c=[1,2]");
  EXPECT_EQ(doc.origin_of("/a/c/1").name, "--set a.c.1=7");
  EXPECT_EQ(doc.origin_of("/a/c/1").layer, 3);
  // Replacing a subtree forgets the origins below it.
  doc.merge(nlohmann::json{{"a", 0}}, "two.json");
  EXPECT_EQ(doc.origin_of("/a/c/1").name, "two.json");
}
