// memset_sync end to end: the built-in program and the same program as a
// firmware object give the same instruction trace, the trace holds the 64
// expected MEMSETs with plausible timing, and runs are deterministic.
#include <cinttypes>
#include <cstdio>

#include "e2e_util.h"
#include "pccx_isa_encode.h"

namespace e2e {
namespace {

constexpr int kMemsets = 64;  // 32 slots in each of the two shape banks

uint64_t memset_word(uint32_t cache, uint32_t slot, uint32_t a, uint32_t b, uint32_t c) {
  return pccx_encode_memset(cache, slot, a, b, c, 0);
}

std::string hex64(uint64_t w) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, w);
  return buf;
}

struct expected_memset {
  std::string word;
  std::string disasm;
};

// What firmware/programs/memset_sync.c issues, in order: for each slot an
// fmap_shape (1, 2048, slot + 1) then a weight_shape (1, 256 * (slot % 8 + 1), 2048).
std::vector<expected_memset> memset_sync_program() {
  std::vector<expected_memset> v;
  for (uint32_t slot = 0; slot < 32; ++slot) {
    const uint32_t n = 256u * (slot % 8u + 1u);
    v.push_back({hex64(memset_word(0, slot, 1, 2048, slot + 1)),
                 "MEMSET fmap_shape[" + std::to_string(slot) + "] <- (1, 2048, " +
                     std::to_string(slot + 1) + ")"});
    v.push_back({hex64(memset_word(1, slot, 1, n, 2048)), "MEMSET weight_shape[" +
                                                              std::to_string(slot) + "] <- (1, " +
                                                              std::to_string(n) + ", 2048)"});
  }
  return v;
}

class MemsetSync : public E2E {
 protected:
  // The effective configuration, as pccx-vp dumps it.
  json effective_config() {
    const auto r = vp({"--dump-config", path("effective.json"), "--validate-only"});
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    return json::parse(read_file(path("effective.json")));
  }
};

TEST_F(MemsetSync, BuiltinAndSharedObjectTracesMatchTheProgram) {
  const auto builtin = vp({"--firmware", "memset_sync", "--trace-instructions", "builtin.jsonl"});
  ASSERT_EQ(builtin.exit_code, 0) << describe(builtin);
  const auto so =
      vp({"--firmware", project_firmware("memset_sync"), "--trace-instructions", "so.jsonl"});
  ASSERT_EQ(so.exit_code, 0) << describe(so);
  EXPECT_TRUE(contains(builtin.out, "memset_sync: instructions retired: 64")) << builtin.out;
  EXPECT_EQ(builtin.out, so.out);

  // Same program, same platform: the traces are identical with the markers
  // (the firmware's own timeline) and without them (what the NPU did).
  const std::string builtin_text = read_file(path("builtin.jsonl"));
  EXPECT_FALSE(builtin_text.empty());
  EXPECT_EQ(builtin_text, read_file(path("so.jsonl")));
  const auto builtin_all = read_jsonl(path("builtin.jsonl"));
  const auto so_all = read_jsonl(path("so.jsonl"));
  EXPECT_EQ(builtin_all, so_all);
  EXPECT_EQ(without_markers(builtin_all), without_markers(so_all));

  const auto markers = only_markers(builtin_all);
  ASSERT_EQ(markers.size(), 2u);
  EXPECT_EQ(markers[0]["marker"], "memset_sync: fill shape caches");
  EXPECT_EQ(markers[1]["marker"], "memset_sync: wait for drain");

  const auto records = without_markers(builtin_all);
  ASSERT_EQ(records.size(), static_cast<size_t>(kMemsets));
  // A few records spelled out, independently of the generator below.
  EXPECT_EQ(records[0]["disasm"], "MEMSET fmap_shape[0] <- (1, 2048, 1)");
  EXPECT_EQ(records[1]["disasm"], "MEMSET weight_shape[0] <- (1, 256, 2048)");
  EXPECT_EQ(records[15]["disasm"], "MEMSET weight_shape[7] <- (1, 2048, 2048)");
  EXPECT_EQ(records[16]["disasm"], "MEMSET fmap_shape[8] <- (1, 2048, 9)");
  EXPECT_EQ(records[62]["disasm"], "MEMSET fmap_shape[31] <- (1, 2048, 32)");
  EXPECT_EQ(records[63]["disasm"], "MEMSET weight_shape[31] <- (1, 2048, 2048)");
  EXPECT_EQ(records[0]["word"], "0x3000001080000010");

  const auto expected = memset_sync_program();
  double previous_retire = -1;
  for (int i = 0; i < kMemsets; ++i) {
    SCOPED_TRACE("record " + std::to_string(i) + ": " + records[i].dump());
    const json& r = records[i];
    EXPECT_EQ(r["seq"], i);
    EXPECT_EQ(r["word"], expected[i].word);
    EXPECT_EQ(r["disasm"], expected[i].disasm);
    EXPECT_EQ(r["unit"], "cmd");
    EXPECT_EQ(r["status"], "ok");
    EXPECT_FALSE(r.contains("error"));
    const double queued = r["queued_ns"], issue = r["issue_ns"], start = r["start_ns"],
                 retire = r["retire_ns"];
    EXPECT_LE(queued, issue);
    EXPECT_LE(issue, start);
    EXPECT_LE(start, retire);
    EXPECT_GT(retire, previous_retire);
    previous_retire = retire;
  }

  // Timing bounds from the configuration. The CPU issues each MEMSET with
  // two MMIO writes (INSTR_LO, then INSTR_HI, which pushes the word into
  // CMD_IN), each costing cpu.mmio_write_ns, and its accesses happen one
  // after the other. So the 64th word cannot reach CMD_IN before
  // 64 * 2 * mmio_write_ns (5120 ns with the default 40 ns), and it retires
  // no earlier than it arrived. A MEMSET itself takes a few core cycles, so
  // the whole run stays far below 20 us; more would mean a timing bug such
  // as the CPU waiting a quantum per access.
  const json cfg = effective_config();
  const double write_ns = cfg["cpu"]["mmio_write_ns"].get<double>();
  ASSERT_GT(write_ns, 0);
  const double last_retire = records.back()["retire_ns"];
  EXPECT_GE(last_retire, kMemsets * 2 * write_ns);
  EXPECT_LT(last_retire, 20000.0);
  // The MEMSETs follow the first marker and precede the drain marker.
  EXPECT_LE(markers[0]["t_ns"].get<double>(), records.front()["queued_ns"].get<double>());
  EXPECT_GE(markers[1]["t_ns"].get<double>(), records.back()["queued_ns"].get<double>());
}

TEST_F(MemsetSync, RunsAreDeterministic) {
  proc_result runs[2];
  for (int i = 0; i < 2; ++i) {
    // Trace files need an existing folder (--out would create its own).
    const std::string d = "run" + std::to_string(i);
    fs::create_directories(path(d));
    runs[i] = vp({"--firmware", "memset_sync", "--trace-mmio", d + "/mmio.jsonl",
                  "--trace-instructions", d + "/instr.jsonl", "--out", d});
    ASSERT_EQ(runs[i].exit_code, 0) << describe(runs[i]);
  }
  EXPECT_EQ(runs[0].out, runs[1].out);

  const std::string mmio0 = read_file(path("run0/mmio.jsonl"));
  const std::string instr0 = read_file(path("run0/instr.jsonl"));
  EXPECT_FALSE(mmio0.empty());
  EXPECT_FALSE(instr0.empty());
  EXPECT_EQ(mmio0, read_file(path("run1/mmio.jsonl")));
  EXPECT_EQ(instr0, read_file(path("run1/instr.jsonl")));

  json s0 = json::parse(read_file(path("run0/summary.json")));
  json s1 = json::parse(read_file(path("run1/summary.json")));
  // The host's time is in speed.json, not in the summary.
  EXPECT_FALSE(s0.contains("wall_time_s"));
  EXPECT_FALSE(s0.contains("speed"));
  const json speed0 = json::parse(read_file(path("run0/speed.json")));
  EXPECT_GE(speed0["wall_time_s"].get<double>(), 0.0);
  // The folders differ; nothing else may.
  for (json* s : {&s0, &s1}) {
    (*s)["config"].erase("output");
    (*s)["config"].erase("trace");
  }
  EXPECT_EQ(s0, s1);
  EXPECT_EQ(s0["outcome"], "finished");
  EXPECT_EQ(s0["exit_code"], 0);
  EXPECT_EQ(s0["instructions_retired"], kMemsets);
  EXPECT_EQ(s0["firmware"]["name"], "memset_sync");
  EXPECT_EQ(s0["firmware"]["origin"], "built-in");

  // The MMIO trace is well formed: every access names a register, and the
  // marker records appear in it too.
  const auto mmio = read_jsonl(path("run0/mmio.jsonl"));
  size_t writes_hi = 0;
  for (const auto& r : without_markers(mmio)) {
    ASSERT_TRUE(r.contains("t_ns") && r.contains("op") && r.contains("addr") && r.contains("reg") &&
                r.contains("value"))
        << r.dump();
    if (r["reg"] == "npu.INSTR_HI") {
      EXPECT_EQ(r["op"], "W");
      EXPECT_EQ(r["addr"], "0xa0000004");
      ++writes_hi;
    }
  }
  EXPECT_EQ(writes_hi, static_cast<size_t>(kMemsets));
  EXPECT_EQ(only_markers(mmio).size(), 2u);
}

}  // namespace
}  // namespace e2e
