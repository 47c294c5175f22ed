// The fixture of the plot tests (docs/reference/plots.md): a fresh folder per
// test and a configuration that writes the plots into it, and a decode of
// the tiny model (configs/models/tiny.json) that draws them.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "platform/config/platform_config.h"
#include "platform/workload/decode_runner.h"
#include "platform/workload/llm/model_config.h"

namespace pccx::test::plots {

namespace fs = std::filesystem;

// A fresh folder per test, removed unless the test failed.
class Plots : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("pccx_plots_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  std::string dir() const { return dir_.string(); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  config::platform_config plotting(uint32_t columns = 2000) const {
    config::platform_config cfg;
    cfg.simulation.mode = pccx::config::sim_mode::timing;
    cfg.output.dir = dir();
    cfg.output.plots = true;
    cfg.output.plot_columns = columns;
    return cfg;
  }

 private:
  fs::path dir_;
};

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline workload::decode_report tiny_decode(const config::platform_config& cfg, uint32_t tokens,
                                           bool per_layer) {
  const auto m = llm::load_model(std::string(PCCX_SOURCE_DIR) + "/configs/models/tiny.json");
  workload::decode_options o;
  o.context = 16;
  o.tokens = tokens;
  o.per_layer = per_layer;
  return workload::run_decode(cfg, m, o);
}

}  // namespace pccx::test::plots
