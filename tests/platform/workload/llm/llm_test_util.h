// Helpers shared by the llm tests: the model files of the repository and a
// "this load must fail" wrapper returning the error text.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "platform/workload/llm/ddr_plan.h"
#include "platform/workload/llm/model_config.h"
#include "platform/workload/llm/model_shapes.h"

namespace kv = pccx::kv;

namespace llmtest {

inline std::string source_path(const std::string& rel) {
  return std::string(PCCX_SOURCE_DIR) + "/" + rel;
}

inline std::string model_path(const std::string& name) {
  return source_path("configs/models/" + name + ".json");
}

inline pccx::llm::model_config gemma() {
  return pccx::llm::load_model(model_path("gemma3n-e4b"));
}
inline pccx::llm::model_config gemma_doc() {
  return pccx::llm::load_model(model_path("gemma3n-e4b-pccx-doc"));
}
inline pccx::llm::model_config tiny() {
  return pccx::llm::load_model(model_path("tiny"));
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Loads `file` with the overrides, expecting a config_error; returns what().
inline std::string load_error(const std::string& file, const std::vector<std::string>& sets) {
  try {
    pccx::llm::load_model(file, sets);
  } catch (const pccx::config::config_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a config_error";
  return "";
}

inline constexpr uint64_t kKv260Ddr = 0x100000000ull;  // 4 GiB at 0x0

}  // namespace llmtest
