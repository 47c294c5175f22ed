// Helpers for running firmware written inside a test on the whole platform.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/npu/core/threaded_unit.h"
#include "platform/config/platform_config.h"
#include "platform/vp/firmware/firmware_loader.h"
#include "platform/vp/top/platform_top.h"
#include "platform/vp/top/simulation.h"

namespace pccx::test {

inline vp::firmware_image test_firmware(vp::firmware_entry entry, const std::string& name) {
  vp::firmware_image img;
  img.name = name;
  img.origin = "test";
  img.entry = entry;
  return img;
}

// A unit that takes a fixed time per instruction.
class slow_unit : public npu::threaded_unit {
 public:
  slow_unit(sc_core::sc_module_name name, sc_core::sc_time latency)
      : npu::threaded_unit(name), latency_(latency) {}

 protected:
  result execute(const npu::dispatched_instruction&) override {
    wait(latency_);
    return {};
  }

 private:
  sc_core::sc_time latency_;
};

inline std::vector<nlohmann::json> read_jsonl(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) out.push_back(nlohmann::json::parse(line));
  return out;
}

// The value of NPU counter `name` in a run's summary.
inline uint64_t counter(const vp::run_result& r, const std::string& name) {
  for (const auto& [n, v] : r.counters)
    if (n == name) return v;
  ADD_FAILURE() << "no counter " << name;
  return 0;
}

inline std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "pccx_platform_" + name;
}

}  // namespace pccx::test
