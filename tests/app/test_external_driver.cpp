// firmware/examples/external_driver, built the way an outside project
// builds it: install pccx-vp into a prefix, configure and build the example
// against that prefix, and run the object on the installed pccx-vp.
#include "e2e_util.h"

namespace e2e {
namespace {

using ExternalDriver = E2E;

TEST_F(ExternalDriver, BuildsAgainstInstalledHeadersAndRuns) {
  const std::string cmake = PCCX_CMAKE_COMMAND;
  const std::string prefix = path("prefix");
  const std::string build = path("build");
  const auto timeout = std::chrono::seconds(120);

  const auto install = run({cmake, "--install", PCCX_BINARY_DIR, "--prefix", prefix}, timeout);
  ASSERT_EQ(install.exit_code, 0) << describe(install);
  const std::string installed_vp = prefix + "/bin/pccx-vp";
  ASSERT_TRUE(fs::exists(installed_vp));
  for (const char* h : {"uCA_v1_hal.h", "uCA_v1_api.h", "pccx_firmware.h", "pccx_isa.h",
                        "pccx_isa_encode.h", "pccx_npu_regs.h", "pccx_simctl.h", "pccx_uca_ext.h"})
    EXPECT_TRUE(fs::exists(prefix + "/include/pccx-vp/" + h)) << h << " not installed";

  const auto configure = run(
      {cmake, "-S", std::string(PCCX_SOURCE_DIR) + "/firmware/examples/external_driver", "-B",
       build, "-DPCCX_VP_PREFIX=" + prefix, std::string("-DCMAKE_C_COMPILER=") + PCCX_C_COMPILER},
      timeout);
  ASSERT_EQ(configure.exit_code, 0) << describe(configure);
  const auto compile = run({cmake, "--build", build}, timeout);
  ASSERT_EQ(compile.exit_code, 0) << describe(compile);
  const std::string object = build + "/hello.so";
  ASSERT_TRUE(fs::exists(object)) << compile.out;

  const auto r = run({installed_vp, "--firmware", object, "--trace-instructions", "instr.jsonl"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out, "hello from an external driver: 4 MEMSETs retired\n");
  const auto trace = read_jsonl(path("instr.jsonl"));
  ASSERT_EQ(only_markers(trace).size(), 1u);
  EXPECT_EQ(only_markers(trace)[0]["marker"], "hello: set shapes");
  const auto records = without_markers(trace);
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[3]["disasm"], "MEMSET fmap_shape[3] <- (1, 2048, 4)");

  // The object exports its entry point and keeps its driver to itself.
  const std::string nm = find_in_path("nm");
  if (!nm.empty()) {
    const auto syms = run({nm, "-D", "--defined-only", object});
    ASSERT_EQ(syms.exit_code, 0) << describe(syms);
    EXPECT_TRUE(contains(syms.out, " pccx_firmware_main\n")) << syms.out;
    EXPECT_FALSE(contains(syms.out, " uca_memset\n")) << syms.out;
  }
}

// The example refuses to configure without a usable prefix, and says why.
TEST_F(ExternalDriver, ConfigureWithoutPrefixExplains) {
  const auto configure = run(
      {PCCX_CMAKE_COMMAND, "-S",
       std::string(PCCX_SOURCE_DIR) + "/firmware/examples/external_driver", "-B", path("build"),
       "-DPCCX_VP_PREFIX=" + path("nowhere"), std::string("-DCMAKE_C_COMPILER=") + PCCX_C_COMPILER},
      std::chrono::seconds(120));
  EXPECT_NE(configure.exit_code, 0) << describe(configure);
  EXPECT_TRUE(contains(configure.err, "PCCX_VP_PREFIX")) << configure.err;
}

}  // namespace
}  // namespace e2e
