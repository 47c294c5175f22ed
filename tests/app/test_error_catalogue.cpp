// docs/reference/errors.md lists every error and return code a driver can meet. This
// test reads the firmware headers that define the codes and fails when one
// of them is missing from the page, so a new code cannot go undocumented.
#include <regex>
#include <set>

#include "e2e_util.h"

namespace e2e {
namespace {

// Every macro name of `header` that matches `pattern`.
std::set<std::string> codes_in(const std::string& header, const std::string& pattern) {
  const std::string text = read_file(fs::path(PCCX_SOURCE_DIR) / "firmware/include" / header);
  const std::regex define("#define (" + pattern + ")\\b");
  std::set<std::string> names;
  for (std::sregex_iterator it(text.begin(), text.end(), define), end; it != end; ++it)
    names.insert((*it)[1].str());
  return names;
}

// Every driver-lint warning code (models/npu/core/driver_lint.cpp names them).
TEST(ErrorCatalogue, EveryLintWarningIsDocumented) {
  const std::string doc = read_file(fs::path(PCCX_SOURCE_DIR) / "docs/reference/errors.md");
  const std::string src =
      read_file(fs::path(PCCX_SOURCE_DIR) / "models/npu/core/driver_lint.cpp");
  const std::regex name("return \"(WARN_[A-Z0-9_]+)\"");
  size_t checked = 0;
  for (std::sregex_iterator it(src.begin(), src.end(), name), end; it != end; ++it) {
    const std::string code = (*it)[1].str();
    if (code == "WARN_UNKNOWN") continue;
    ++checked;
    EXPECT_TRUE(contains(doc, "| `" + code + "`")) << code << " is not in docs/reference/errors.md";
  }
  EXPECT_GE(checked, 10u);
}

TEST(ErrorCatalogue, EveryCodeIsDocumented) {
  const std::string doc = read_file(fs::path(PCCX_SOURCE_DIR) / "docs/reference/errors.md");
  const std::vector<std::pair<std::string, std::string>> sources = {
      {"pccx_npu_regs.h", "PCCX_ERR_[A-Z0-9_]+"},
      {"pccx_dma.h", "PCCX_DMA_ERR_[A-Z_]+|PCCX_DMA_E_[A-Z_]+|PCCX_DMA_OK"},
      {"pccx_uca_ext.h", "PCCX_API_[A-Z_]+|PCCX_SYNC_[A-Z_]+"},
      {"pccx_ops.h", "PCCX_OPS_E_[A-Z_]+|PCCX_OPS_OK"},
      {"pccx_kv.h", "PCCX_KV_E_[A-Z_]+|PCCX_KV_OK"},
      {"pccx_gemma_decode.h", "GD_EXIT_[A-Z0-9_]+"},
  };
  size_t checked = 0;
  for (const auto& [header, pattern] : sources) {
    const auto names = codes_in(header, pattern);
    EXPECT_FALSE(names.empty()) << header << " defines no " << pattern;
    for (const auto& name : names) {
      ++checked;
      if (name == "PCCX_DMA_ERR_ALL") continue;  // a mask, not a code
      EXPECT_TRUE(contains(doc, "`" + name + "`"))
          << name << " (" << header << ") is not in docs/reference/errors.md";
    }
  }
  EXPECT_GT(checked, 50u);
}

TEST(ErrorCatalogue, EveryRunDiagnosticIsDocumented) {
  const std::string doc = read_file(fs::path(PCCX_SOURCE_DIR) / "docs/reference/errors.md");
  for (const char* text :
       {"bus error on read of", "strict mode: NPU error", "simulated-time limit of",
        "wall-time limit of", "a loop without MMIO", "simulation stalled at",
        "but the NPU was still busy", "and the firmware never cleared it",
        "that the firmware never cleared", "while running the firmware", "inside a platform call",
        "simulation.end_check"})
    EXPECT_TRUE(contains(doc, text)) << text;
}

}  // namespace
}  // namespace e2e
