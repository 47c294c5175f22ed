// A user's own driver in a firmware object: its uca_* functions are the
// ones that run, and pccx-vp exports nothing but the HAL for them to use.
#include <cstdio>
#include <set>
#include <sstream>

#include "e2e_util.h"

namespace e2e {
namespace {

constexpr size_t kCustomMemsets = 8;  // tests/app/fw/custom_driver.c
const char kCustomMarker[] = "custom driver uca_memset";

using CustomDriver = E2E;

TEST_F(CustomDriver, UsersOwnDriverCodeRuns) {
  const auto r = vp({"--firmware", test_firmware("custom_driver"), "--trace-instructions",
                     "instr.jsonl", "--out", "out"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out, "custom driver: 8 MEMSETs retired\n");

  const auto trace = read_jsonl(path("instr.jsonl"));
  const auto markers = only_markers(trace);
  const auto records = without_markers(trace);
  // One marker per uca_memset call, written by the driver's own code.
  ASSERT_EQ(markers.size(), kCustomMemsets) << read_file(path("instr.jsonl"));
  for (const auto& m : markers) EXPECT_EQ(m["marker"], kCustomMarker);

  ASSERT_EQ(records.size(), kCustomMemsets);
  for (size_t i = 0; i < kCustomMemsets; ++i) {
    SCOPED_TRACE(records[i].dump());
    char disasm[64];
    std::snprintf(disasm, sizeof disasm, "MEMSET head_scale[%zu] <- (0x3f80, 0x%04zx, 0xbf80)", i,
                  i);
    EXPECT_EQ(records[i]["seq"], i);
    EXPECT_EQ(records[i]["disasm"], disasm);
    EXPECT_EQ(records[i]["status"], "ok");
    // The marker of call i is dropped just before that call issues its word
    // (sim-control accesses take no simulated time, so the next marker
    // carries the time at which this word was queued).
    EXPECT_LT(markers[i]["t_ns"].get<double>(), records[i]["queued_ns"].get<double>());
    if (i + 1 < kCustomMemsets) {
      EXPECT_GE(markers[i + 1]["t_ns"].get<double>(), records[i]["queued_ns"].get<double>());
    }
  }

  const json summary = json::parse(read_file(path("out/summary.json")));
  EXPECT_EQ(summary["firmware"]["origin"], "shared object");
  EXPECT_EQ(summary["firmware"]["name"], test_firmware("custom_driver"));
  EXPECT_EQ(summary["instructions_retired"], kCustomMemsets);
}

// The other half of the proof: an object that calls uca_memset but does not
// define it cannot borrow the driver built into pccx-vp.
TEST_F(CustomDriver, PlatformDriverIsNotAvailableToFirmwareObjects) {
  const auto r = vp({"--firmware", test_firmware("undefined_symbol")});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "cannot load")) << r.err;
  EXPECT_TRUE(contains(r.err, "undefined symbol: uca_memset")) << r.err;
}

// The dynamic symbol table of pccx-vp: the whole HAL, and no driver or
// program symbols that could satisfy a firmware object's references.
TEST_F(CustomDriver, ExecutableExportsTheHalOnly) {
  const std::string nm = find_in_path("nm");
  if (nm.empty()) GTEST_SKIP() << "nm not found in PATH";
  const auto r = run({nm, "-D", "--defined-only", vp_exe()});
  ASSERT_EQ(r.exit_code, 0) << describe(r);

  std::set<std::string> exported;
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line)) {
    // "<address> <type> <name>[@version]"
    const auto space = line.find_last_of(' ');
    std::string name = space == std::string::npos ? line : line.substr(space + 1);
    name = name.substr(0, name.find('@'));
    if (!name.empty()) exported.insert(name);
  }
  ASSERT_FALSE(exported.empty()) << r.out;

  for (const char* hal :
       {"uca_hal_init", "uca_hal_deinit", "uca_hal_write32", "uca_hal_read32", "pccx_host_write",
        "pccx_host_read", "uca_hal_issue_instr", "uca_hal_read_status", "uca_hal_wait_idle"})
    EXPECT_EQ(exported.count(hal), 1u) << hal << " is not exported\n" << r.out;
  for (const char* api : {"uca_init", "uca_deinit", "uca_memset", "uca_sync", "uca_gemv",
                          "uca_memcpy", "pccx_firmware_main"})
    EXPECT_EQ(exported.count(api), 0u) << api << " is exported";
  for (const auto& name : exported) {
    const bool uca = name.rfind("uca_", 0) == 0;
    EXPECT_TRUE(!uca || name.rfind("uca_hal_", 0) == 0) << name << " is exported";
    // The platform-supplied layer: the HAL and the host-memory calls.
    const bool supplied = name.rfind("pccx_host_", 0) == 0;
    EXPECT_TRUE(supplied || name.rfind("pccx_", 0) != 0) << name << " is exported";
  }
}

}  // namespace
}  // namespace e2e
