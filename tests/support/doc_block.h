// Generated blocks in docs: the text between
//   <!-- NAME:begin (generated; see GENERATOR) -->
//   <!-- NAME:end -->
// must equal what the code computes now. With PCCX_UPDATE_DOCS set in the
// environment the block is rewritten instead. Header-only, plain gtest.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace pccx::test {

// doc_path: the document; name: the block; generator: the test file named in
// the begin marker; filter: the ctest -R pattern that regenerates it.
inline void check_doc_block(const std::string& doc_path, const std::string& name,
                            const std::string& generator, const std::string& filter,
                            const std::string& want) {
  std::ifstream in(doc_path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string doc = ss.str();
  ASSERT_FALSE(doc.empty()) << doc_path << " is missing";
  const std::string begin = "<!-- " + name + ":begin (generated; see " + generator + ") -->\n";
  const std::string end = "<!-- " + name + ":end -->";
  const size_t b = doc.find(begin);
  const size_t e = doc.find(end);
  ASSERT_NE(b, std::string::npos) << "no " << begin << "in " << doc_path;
  ASSERT_NE(e, std::string::npos) << "no " << end << " in " << doc_path;
  const size_t body = b + begin.size();
  ASSERT_LE(body, e);
  if (doc.substr(body, e - body) != want && std::getenv("PCCX_UPDATE_DOCS")) {
    doc.replace(body, e - body, want);
    std::ofstream(doc_path, std::ios::binary) << doc;
    return;
  }
  EXPECT_EQ(doc.substr(body, e - body), want)
      << "the " << name << " block in " << doc_path << " is stale; regenerate it with\n"
      << "  PCCX_UPDATE_DOCS=1 ctest --test-dir <build> -R " << filter;
}

}  // namespace pccx::test
