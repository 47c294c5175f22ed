// The bring-up walk-through of docs/guides/user-guide.md: the gemv_bringup driver
// matches the CPU's dot products; its buggy twin (weight shape written as
// (M, K, N)) fails the GEMV, and every place a driver engineer looks names
// the bug: the firmware's own message, the platform's warning, the
// instruction trace's record of that GEMV and the error registers in the
// MMIO trace.
#include "e2e_util.h"

namespace e2e {
namespace {

using Bringup = E2E;

TEST_F(Bringup, TheCorrectDriverMatchesItsReference) {
  const auto r = vp({"--firmware", "gemv_bringup", "--out", "ok"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "gemv_bringup: 32 outputs match the CPU's dot products")) << r.out;
  const auto s = nlohmann::json::parse(read_file(path("ok/summary.json")));
  EXPECT_EQ(s["instructions_retired"], 6);
}

TEST_F(Bringup, TheShapeBugIsNamedEverywhereADriverEngineerLooks) {
  const auto r = vp({"--firmware", "gemv_bringup_buggy", "--trace-instructions", "instr.jsonl",
                     "--trace-mmio", "mmio.jsonl"});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.out, "gemv_bringup: NPU error 12 on instruction #4")) << r.out;
  const std::string detail =
      "GEMV activation size X*Y*Z = 64 (fmap_shape slot 2) != M*K = 32 (weight_shape slot 3)";
  EXPECT_TRUE(contains(r.err, "#4 0x0004000100008300: ERR_UNIT_FAULT: npu.gemv: " + detail))
      << r.err;
  EXPECT_TRUE(contains(r.err, "returned 3")) << r.err;

  bool found = false;
  for (const auto& line : read_lines(path("instr.jsonl"))) {
    const auto rec = nlohmann::json::parse(line);
    if (rec.value("seq", -1) != 4) continue;
    found = true;
    EXPECT_EQ(rec["unit"], "gemv");
    EXPECT_EQ(rec["status"], "ERR_UNIT_FAULT");
    EXPECT_TRUE(contains(rec["error"].get<std::string>(), detail)) << rec.dump();
  }
  EXPECT_TRUE(found) << "no record of instruction #4";
  // The MEMSET that wrote the wrong shape is in the trace as well.
  EXPECT_TRUE(contains(read_file(path("instr.jsonl")), "MEMSET weight_shape[3] <- (1, 64, 32)"));
  // The driver read the error registers: code 12, instruction #4.
  const std::string mmio = read_file(path("mmio.jsonl"));
  EXPECT_TRUE(contains(mmio, "\"reg\":\"npu.ERR_CODE\",\"value\":\"0x0000000c\"")) << mmio;
  EXPECT_TRUE(contains(mmio, "\"reg\":\"npu.ERR_SEQ\",\"value\":\"0x00000004\"")) << mmio;
}

}  // namespace
}  // namespace e2e
