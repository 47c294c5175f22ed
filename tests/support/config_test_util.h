// Helpers shared by the configuration tests (the engine's in tests/infra/config,
// the platform schema's in tests/platform/config): a per-test scratch folder
// and a "this load must fail" wrapper that returns the error text.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "platform/config/platform_loader.h"

namespace cfgtest {

namespace fs = std::filesystem;

class scratch {
 public:
  scratch() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("pccx_config_" + std::to_string(::getpid()) + "_" +
                                        info->test_suite_name() + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~scratch() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  scratch(const scratch&) = delete;
  scratch& operator=(const scratch&) = delete;

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }

 private:
  fs::path dir_;
};

// Loads through load_as<Root> expecting a config_error; returns its what().
template <class Root = pccx::config::platform_config>
std::string load_error(const pccx::config::config_layers& layers) {
  try {
    pccx::config::load_as<Root>(layers);
  } catch (const pccx::config::config_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a config_error";
  return "";
}

inline std::string source_path(const std::string& rel) {
  return std::string(PCCX_SOURCE_DIR) + "/" + rel;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace cfgtest
