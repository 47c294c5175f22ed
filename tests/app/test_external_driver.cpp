// firmware/examples/external_driver, built the way an outside project
// builds it: install pccx-vp into a prefix, find it there as a CMake
// package (and, separately, through pkg-config), build the example's
// firmware object and run it on the installed pccx-vp.
#include "e2e_util.h"

namespace e2e {
namespace {

using ExternalDriver = E2E;

// The installed file called `name` under `prefix` ("" if none): the
// library folder depends on the prefix (lib, lib/<multiarch>).
std::string installed(const std::string& prefix, const std::string& name) {
  for (const auto& e : fs::recursive_directory_iterator(prefix))
    if (e.path().filename() == name) return e.path().string();
  return "";
}

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

  for (const char* f : {"pccx-vpConfig.cmake", "pccx-vpConfigVersion.cmake",
                        "pccx-vpTargets.cmake", "pccx-vp.pc"})
    EXPECT_FALSE(installed(prefix, f).empty()) << f << " not installed";

  const auto configure = run(
      {cmake, "-S", std::string(PCCX_SOURCE_DIR) + "/firmware/examples/external_driver", "-B",
       build, "-DCMAKE_PREFIX_PATH=" + prefix,
       std::string("-DCMAKE_C_COMPILER=") + PCCX_C_COMPILER},
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

  // The package's test runs the object on the installed pccx-vp too.
  const auto tested = run({std::string(PCCX_CTEST_COMMAND), "--test-dir", build}, timeout);
  EXPECT_EQ(tested.exit_code, 0) << describe(tested);
  EXPECT_TRUE(contains(tested.out, "100% tests passed")) << tested.out;

  // The object exports its entry point and keeps its driver to itself.
  const std::string nm = find_in_path("nm");
  if (!nm.empty()) {
    const auto syms = run({nm, "-D", "--defined-only", object});
    ASSERT_EQ(syms.exit_code, 0) << describe(syms);
    EXPECT_TRUE(contains(syms.out, " pccx_firmware_main\n")) << syms.out;
    EXPECT_FALSE(contains(syms.out, " uca_memset\n")) << syms.out;
  }
}

// Without CMake: the compiler flags from pkg-config, the object built by
// hand as a Makefile would, run on the installed pccx-vp.
TEST_F(ExternalDriver, BuildsWithPkgConfigFlags) {
  const std::string pkg_config = find_in_path("pkg-config");
  if (pkg_config.empty()) GTEST_SKIP() << "no pkg-config";
  const std::string prefix = path("prefix");
  const auto timeout = std::chrono::seconds(120);
  const auto install =
      run({PCCX_CMAKE_COMMAND, "--install", PCCX_BINARY_DIR, "--prefix", prefix}, timeout);
  ASSERT_EQ(install.exit_code, 0) << describe(install);
  const std::string pc = installed(prefix, "pccx-vp.pc");
  ASSERT_FALSE(pc.empty());
  const auto flags = run({"/usr/bin/env", "PKG_CONFIG_PATH=" + fs::path(pc).parent_path().string(),
                          pkg_config, "--cflags", "pccx-vp"});
  ASSERT_EQ(flags.exit_code, 0) << describe(flags);
  const std::string example = std::string(PCCX_SOURCE_DIR) + "/firmware/examples/external_driver";
  std::vector<std::string> cc = {PCCX_C_COMPILER, "-shared", "-fPIC", "-fvisibility=hidden"};
  std::istringstream words(flags.out);
  for (std::string w; words >> w;) cc.push_back(w);
  // The flags point into the prefix, wherever it is.
  EXPECT_TRUE(contains(flags.out, "-I" + prefix)) << flags.out;
  for (const char* src : {"/hello.c", "/my_driver.c"}) cc.push_back(example + src);
  cc.insert(cc.end(), {"-o", path("hello.so")});
  const auto compile = run(cc, timeout);
  ASSERT_EQ(compile.exit_code, 0) << describe(compile);
  const auto r = run({prefix + "/bin/pccx-vp", "--firmware", path("hello.so")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out, "hello from an external driver: 4 MEMSETs retired\n");
}

// The example refuses to configure without an installed pccx-vp, and says how.
TEST_F(ExternalDriver, ConfigureWithoutPackageExplains) {
  const auto configure = run(
      {PCCX_CMAKE_COMMAND, "-S",
       std::string(PCCX_SOURCE_DIR) + "/firmware/examples/external_driver", "-B", path("build"),
       "-DCMAKE_PREFIX_PATH=" + path("nowhere"),
       std::string("-DCMAKE_C_COMPILER=") + PCCX_C_COMPILER},
      std::chrono::seconds(120));
  EXPECT_NE(configure.exit_code, 0) << describe(configure);
  EXPECT_TRUE(contains(configure.err, "pccx-vp not found")) << configure.err;
  EXPECT_TRUE(contains(configure.err, "CMAKE_PREFIX_PATH")) << configure.err;
}

}  // namespace
}  // namespace e2e
