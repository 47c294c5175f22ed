// Dependencies point one way: every #include of the tree goes to its own
// layer or a lower one (docs/architecture.md, "Layers").
#include <gtest/gtest.h>

#include <fstream>

#include "include_direction.h"

namespace fs = std::filesystem;
using pccx::arch::check_include_direction;

namespace {

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

// A scratch tree shaped like the repository.
struct scratch_tree {
  fs::path root = fs::temp_directory_path() /
                  ("pccx_layers_" +
                   std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  scratch_tree() { fs::remove_all(root); }
  ~scratch_tree() { fs::remove_all(root); }
  void write(const std::string& rel, const std::string& text) {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << text;
  }
};

}  // namespace

TEST(IncludeDirection, EveryIncludeOfTheTreePointsDown) {
  const auto problems = check_include_direction(PCCX_SOURCE_DIR);
  EXPECT_TRUE(problems.empty()) << joined(problems);
}

TEST(IncludeDirection, AModelIncludingThePlatformFailsNamingFileAndLine) {
  scratch_tree t;
  t.write("platform/vp/top/platform_top.h", "#pragma once\n");
  t.write("models/npu/npu.h", "#pragma once\n\n#include \"platform/vp/top/platform_top.h\"\n");
  const auto problems = check_include_direction(t.root);
  ASSERT_EQ(problems.size(), 1u) << joined(problems);
  EXPECT_EQ(problems[0],
            "models/npu/npu.h:3: models (layer 2) includes platform/vp/top/platform_top.h "
            "of a higher layer, platform (layer 3)");
}

TEST(IncludeDirection, InfrastructureIncludingAWorkloadFails) {
  scratch_tree t;
  t.write("platform/workload/llm/ddr_plan.h", "#pragma once\n");
  t.write("infra/config/config_schema.h", "#include \"platform/workload/llm/ddr_plan.h\"\n");
  const auto problems = check_include_direction(t.root);
  ASSERT_EQ(problems.size(), 1u) << joined(problems);
  EXPECT_NE(problems[0].find("infra/config/config_schema.h:1: infrastructure (layer 1)"),
            std::string::npos)
      << problems[0];
}

TEST(IncludeDirection, DownwardAndSameLayerIncludesPass) {
  scratch_tree t;
  t.write("infra/log/logger.h", "#pragma once\n");
  t.write("firmware/include/pccx_isa.h", "#pragma once\n");
  t.write("models/memory/dma/dma_channel.h", "#include \"infra/log/logger.h\"\n");
  t.write("models/npu/units/gemv_unit.h",
          "#include \"models/memory/dma/dma_channel.h\"\n#include \"pccx_isa.h\"\n");
  t.write("platform/app/main.cpp", "#include \"models/npu/units/gemv_unit.h\"\n");
  EXPECT_TRUE(check_include_direction(t.root).empty());
}

TEST(IncludeDirection, FirmwareIncludingAModelFails) {
  scratch_tree t;
  t.write("models/npu/isa/instruction.h", "#pragma once\n");
  t.write("firmware/include/pccx_isa.h", "#pragma once\n");
  t.write("firmware/uca/uCA_v1_api.c",
          "#include \"pccx_isa.h\"\n#include \"models/npu/isa/instruction.h\"\n");
  const auto problems = check_include_direction(t.root);
  ASSERT_EQ(problems.size(), 1u) << joined(problems);
  EXPECT_EQ(problems[0],
            "firmware/uca/uCA_v1_api.c:2: firmware includes models/npu/isa/instruction.h: "
            "firmware may include only firmware/include and its own folder");
}

TEST(IncludeDirection, AnIncludeThatNamesNoFileFails) {
  scratch_tree t;
  t.write("models/kv/kv_codec.cpp", "#include \"kv_format.h\"\n");
  const auto problems = check_include_direction(t.root);
  ASSERT_EQ(problems.size(), 1u) << joined(problems);
  EXPECT_EQ(problems[0],
            "models/kv/kv_codec.cpp:1: includes \"kv_format.h\", which is neither a repository "
            "path nor a firmware header");
}
