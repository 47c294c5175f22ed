// `pccx-vp sweep` and `pccx-vp merge`: a 2 x 2 sweep of the tiny decode
// gives the same bytes with --jobs 1 and --jobs 2 and from a sweep file or
// --sweep options; its two shards merged equal it merged whole; a bad axis
// key is bad input naming the key; merge refuses mixed sweeps and repeated
// points and reports missing ones; a failing point is a line with its
// status and error and makes the exit code 1.
#include "e2e_util.h"

namespace e2e {
namespace {

using Sweep = E2E;

std::string source(const std::string& rel) {
  return std::string(PCCX_SOURCE_DIR) + "/" + rel;
}

const std::vector<std::string> kTinyDecode = {
    "--",        "decode", "--model",  source("configs/models/tiny.json"),
    "--context", "16",     "--tokens", "1"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<std::string> tiny_sweep(const std::string& out, const std::vector<std::string>& opts) {
  return with(with({"sweep", "--sweep", "ddr.data_rate_mtps=2400,3200", "--sweep",
                    "npu.gemv.weight_fifos=[2,3],[0,1,2,3]", "--out", out},
                   opts),
              kTinyDecode);
}

TEST_F(Sweep, TinyDecodeIsTheSameWhateverTheJobsAndShards) {
  const auto one = vp(tiny_sweep("j1", {"--jobs", "1"}));
  ASSERT_EQ(one.exit_code, 0) << describe(one);
  const auto two = vp(tiny_sweep("j2", {"--jobs", "2"}));
  ASSERT_EQ(two.exit_code, 0) << describe(two);
  for (const char* f : {"points.jsonl", "sweep.csv", "sweep.md"})
    EXPECT_EQ(read_file(path(std::string("j1/") + f)), read_file(path(std::string("j2/") + f)))
        << f;

  const auto lines = read_jsonl(path("j1/points.jsonl"));
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0]["pccx_vp_sweep"], 1);
  EXPECT_EQ(lines[0]["definition"]["kind"], "decode");
  EXPECT_EQ(lines[0]["definition"]["timing_mode"], true);
  for (std::size_t k = 0; k < 4; ++k) {
    const json& p = lines[k + 1];
    EXPECT_EQ(p["point"], k);
    EXPECT_EQ(p["status"], "ok") << p.dump();
    EXPECT_GT(p["result"]["latency_ns"][0].get<double>(), 0);
    EXPECT_FALSE(p["result"].contains("wall_time_s"));
    EXPECT_TRUE(fs::exists(path("j1/" + p["config"].get<std::string>())));
  }
  // The first axis varies slowest.
  EXPECT_EQ(lines[2]["axes"]["ddr.data_rate_mtps"], 2400);
  EXPECT_EQ(lines[2]["axes"]["npu.gemv.weight_fifos"], json::parse("[0,1,2,3]"));
  EXPECT_EQ(lines[3]["axes"]["ddr.data_rate_mtps"], 3200);
  const json cfg = json::parse(read_file(path("j1/points/3/config.json")));
  EXPECT_EQ(cfg["ddr"]["data_rate_mtps"], 3200);
  EXPECT_EQ(cfg["simulation"]["mode"], "timing");
  const auto csv = read_lines(path("j1/sweep.csv"));
  ASSERT_EQ(csv.size(), 5u);
  EXPECT_EQ(csv[0].rfind("point,ddr.data_rate_mtps,npu.gemv.weight_fifos,status,latency_ms,", 0),
            0u)
      << csv[0];
  EXPECT_EQ(csv[2].rfind("1,2400,\"[0,1,2,3]\",ok,", 0), 0u) << csv[2];

  // The same axes from a sweep file: the same sweep, the same bytes.
  write_file(path("axes.json"), R"({"axes": [
      {"key": "ddr.data_rate_mtps", "values": [2400, 3200]},
      {"key": "npu.gemv.weight_fifos", "values": [[2, 3], [0, 1, 2, 3]]}]})");
  const auto file = vp(with({"sweep", "--sweep-file", "axes.json", "--out", "f"}, kTinyDecode));
  ASSERT_EQ(file.exit_code, 0) << describe(file);
  EXPECT_EQ(read_file(path("f/points.jsonl")), read_file(path("j1/points.jsonl")));

  // Two shards, merged, against the whole sweep merged.
  const auto s0 = vp(tiny_sweep("sh", {"--shard", "0/2", "--jobs", "2"}));
  ASSERT_EQ(s0.exit_code, 0) << describe(s0);
  EXPECT_EQ(read_jsonl(path("sh/points-0-of-2.jsonl")).size(), 3u);
  EXPECT_FALSE(fs::exists(path("sh/sweep.csv")));
  const auto part = vp({"merge", "sh", "--out", "part"});
  EXPECT_EQ(part.exit_code, 1) << describe(part);
  EXPECT_TRUE(contains(part.err, "2 points missing: 1 3")) << part.err;
  EXPECT_TRUE(contains(read_file(path("part/sweep.csv")), "\n1,2400,\"[0,1,2,3]\",missing,"));
  const auto s1 = vp(tiny_sweep("sh", {"--shard", "1/2"}));
  ASSERT_EQ(s1.exit_code, 0) << describe(s1);
  const auto m = vp({"merge", "sh", "--out", "m"});
  ASSERT_EQ(m.exit_code, 0) << describe(m);
  EXPECT_TRUE(contains(read_file(path("m/report.html")), "pccx-chart"));  // the shards' report
  EXPECT_FALSE(fs::exists(path("sh/report.html")));                       // a shard writes none
  const auto whole = vp({"merge", path("j1/points.jsonl"), "--out", "w"});
  ASSERT_EQ(whole.exit_code, 0) << describe(whole);
  for (const char* f : {"sweep.csv", "sweep.md"}) {
    EXPECT_EQ(read_file(path(std::string("m/") + f)), read_file(path(std::string("w/") + f))) << f;
    EXPECT_EQ(read_file(path(std::string("w/") + f)), read_file(path(std::string("j1/") + f))) << f;
  }
}

// --resume trusts a point only with its completion marker from the same
// command: a missing or damaged marker, or another command, runs it again,
// and the resumed sweep writes the bytes of a whole one.
TEST_F(Sweep, ResumeRunsOnlyThePointsNotComplete) {
  const auto whole = vp(tiny_sweep("r", {"--jobs", "2"}));
  ASSERT_EQ(whole.exit_code, 0) << describe(whole);
  const std::string points = read_file(path("r/points.jsonl"));
  const std::string csv = read_file(path("r/sweep.csv"));
  fs::remove(path("r/points/1/complete.json"));
  write_file(path("r/points/2/complete.json"), "{\"fingerprint\": \"0123");  // cut short
  const auto again = vp(tiny_sweep("r", {"--jobs", "2", "--resume"}));
  ASSERT_EQ(again.exit_code, 0) << describe(again);
  EXPECT_TRUE(contains(again.err, "resuming: 2 of 4 points complete (points/<k>/complete.json), "
                                  "2 to run"))
      << again.err;
  EXPECT_EQ(read_file(path("r/points.jsonl")), points);
  EXPECT_EQ(read_file(path("r/sweep.csv")), csv);
  const json timing = json::parse(read_file(path("r/timing.json")));
  EXPECT_EQ(timing["points"][0].value("resumed", false), true);
  EXPECT_EQ(timing["points"][1].value("resumed", false), false);

  // Another command for the same folder: nothing is trusted.
  const auto other = vp(with(tiny_sweep("r", {"--resume"}), {"--per-layer"}));
  ASSERT_EQ(other.exit_code, 0) << describe(other);
  EXPECT_TRUE(contains(other.err, "resuming: 0 of 4 points complete")) << other.err;
}

TEST_F(Sweep, BadAxesAreBadInputNamingThem) {
  const auto r = vp({"sweep", "--sweep", "npu.cmd_fifo_dept=8,16", "--out", "o", "--", "--firmware",
                     "memset_sync"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "invalid sweep:")) << r.err;
  EXPECT_TRUE(contains(r.err,
                       "--sweep npu.cmd_fifo_dept=8,16: value 8: /npu/cmd_fifo_dept: "
                       "unknown key; did you mean \"cmd_fifo_depth\"?"))
      << r.err;
  EXPECT_FALSE(contains(r.err, "value 16")) << r.err;  // said once per axis
  EXPECT_FALSE(fs::exists(path("o/points.jsonl")));

  const auto range = vp({"sweep", "--sweep", "npu.cmd_fifo_depth=8,0,8", "--out", "o", "--",
                         "--firmware", "memset_sync"});
  EXPECT_EQ(range.exit_code, 2) << describe(range);
  EXPECT_TRUE(contains(range.err, "value 8: the value 8 is there twice")) << range.err;

  write_file(path("s.json"), R"({"axes": [{"key": "npu.cmd_fifo_depth", "values": [8, 0]},
      {"key": "ddr.data_rate_mtps", "valeus": [2400]}]})");
  const auto file =
      vp({"sweep", "--sweep-file", "s.json", "--out", "o", "--", "--firmware", "memset_sync"});
  EXPECT_EQ(file.exit_code, 2) << describe(file);
  EXPECT_TRUE(contains(file.err, "s.json: /axes/1/values: missing (a required key)")) << file.err;
  EXPECT_TRUE(contains(file.err, "s.json: /axes/1/valeus: unknown key; did you mean \"values\"?"))
      << file.err;
  write_file(path("s.json"), R"({"axes": [{"key": "npu.cmd_fifo_depth", "values": [8, 0]}]})");
  const auto value =
      vp({"sweep", "--sweep-file", "s.json", "--out", "o", "--", "--firmware", "memset_sync"});
  EXPECT_EQ(value.exit_code, 2) << describe(value);
  EXPECT_TRUE(contains(value.err,
                       "s.json: /axes/0/values/1: /npu/cmd_fifo_depth: expected an "
                       "unsigned integer in [1, 1024], found 0"))
      << value.err;

  const auto cmd =
      vp({"sweep", "--sweep", "npu.cmd_fifo_depth=8", "--out", "o", "--", "disasm", "x.memh"});
  EXPECT_EQ(cmd.exit_code, 2) << describe(cmd);
  EXPECT_TRUE(contains(cmd.err, "a point runs decode, replay or a firmware run")) << cmd.err;
}

TEST_F(Sweep, MergeRefusesMixedSweepsAndRepeatedPoints) {
  const auto a = vp({"sweep", "--sweep", "npu.cmd_fifo_depth=4,8", "--out", "a", "--", "--firmware",
                     "memset_sync"});
  ASSERT_EQ(a.exit_code, 0) << describe(a);
  const auto lines = read_jsonl(path("a/points.jsonl"));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0]["definition"]["kind"], "run");
  EXPECT_EQ(lines[1]["result"]["instructions_retired"], 64);
  EXPECT_FALSE(lines[1]["result"].contains("wall_time_s"));
  EXPECT_FALSE(lines[1]["result"].contains("speed"));
  EXPECT_FALSE(lines[1]["result"].contains("config"));
  EXPECT_TRUE(contains(read_file(path("a/sweep.md")), "| 1 | 8 | ok | "));
  const auto b = vp({"sweep", "--sweep", "npu.cmd_fifo_depth=4,16", "--out", "b", "--",
                     "--firmware", "memset_sync"});
  ASSERT_EQ(b.exit_code, 0) << describe(b);

  const auto mixed = vp({"merge", "a", "b", "--out", "m"});
  EXPECT_EQ(mixed.exit_code, 2) << describe(mixed);
  EXPECT_TRUE(contains(mixed.err, "b/points.jsonl: from another sweep than a/points.jsonl"))
      << mixed.err;
  EXPECT_TRUE(contains(mixed.err, "the axes")) << mixed.err;
  EXPECT_FALSE(fs::exists(path("m/sweep.csv")));

  const auto twice = vp({"merge", "a", path("a/points.jsonl"), "--out", "m"});
  EXPECT_EQ(twice.exit_code, 2) << describe(twice);
  EXPECT_TRUE(contains(twice.err, "points.jsonl:2: point 0 is also in")) << twice.err;
}

TEST_F(Sweep, FailingPointIsALineAndExitCodeOne) {
  const auto r = vp({"sweep", "--sweep", "simulation.strict=false,true", "--out", "o", "--jobs",
                     "2", "--", "--firmware", "error_recovery"});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  const auto lines = read_jsonl(path("o/points.jsonl"));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1]["status"], "ok");
  EXPECT_EQ(lines[2]["status"], "failed");
  EXPECT_EQ(lines[2]["exit_code"], 1);
  EXPECT_TRUE(contains(lines[2]["error"], "strict mode: NPU error ERR_UNKNOWN_OPCODE"))
      << lines[2].dump();
  EXPECT_TRUE(contains(r.err, "point 1 (simulation.strict=true): failed: strict mode")) << r.err;
  EXPECT_TRUE(fs::exists(path("o/points/1/log.txt")));
  EXPECT_FALSE(fs::exists(path("o/points/0/log.txt")));
  EXPECT_TRUE(contains(read_file(path("o/sweep.csv")), ",failed,"));
}

// A trace named once for every point is refused; --keep-outputs puts each
// point's trace and plots in DIR/points/<k>/.
TEST_F(Sweep, KeepOutputsGivesEachPointItsTrace) {
  const std::vector<std::string> trace = {"--trace-ddr", "ddr.jsonl"};
  const auto shared = vp(with(tiny_sweep("a", {}), trace));
  EXPECT_EQ(shared.exit_code, 2) << describe(shared);
  EXPECT_TRUE(contains(shared.err, "every point would write the same file; --keep-outputs"))
      << shared.err;
  const auto kept = vp(with(tiny_sweep("kept", {"--keep-outputs"}), trace));
  ASSERT_EQ(kept.exit_code, 0) << describe(kept);
  for (int k = 0; k < 4; ++k) {
    const std::string folder = path("kept/points/") + std::to_string(k);
    for (const char* f : {"ddr.jsonl", "result.json", "ddr_bandwidth.svg"})
      EXPECT_TRUE(fs::exists(folder + "/" + f)) << folder << "/" << f;
  }
  EXPECT_FALSE(fs::exists(path("ddr.jsonl")));
}

// A product of axes past any integer type is said as such, not wrapped.
TEST_F(Sweep, AHugeNumberOfPointsIsSaidNotWrapped) {
  std::vector<std::string> args = {"sweep"};
  const char* keys[] = {"npu.cmd_fifo_depth", "npu.gemv_cores", "dma.status_depth",
                        "clocks.core_mhz", "clocks.axi_mhz", "cpu.mmio_read_ns",
                        "cpu.mmio_write_ns", "ddr.data_rate_mtps", "simulation.quantum_ns",
                        "npu.decode_cycles", "npu.issue_cycles", "cpu.stack_kib"};
  for (const char* key : keys) {
    std::string values;
    for (int v = 1; v <= 60; ++v) values += (v > 1 ? "," : "") + std::to_string(v);
    args.insert(args.end(), {"--sweep", std::string(key) + "=" + values});
  }
  args.insert(args.end(), {"--out", "s", "--", "decode", "--model",
                           source("configs/models/tiny.json")});
  const auto r = vp(args);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "the axes make about 2.18e+21 points, more than the 1000000")) << r.err;
}

}  // namespace
}  // namespace e2e
