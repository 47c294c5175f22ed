// Determinism (docs/reference/traces.md#determinism): the same command and
// configuration, run twice, writes the same files byte for byte: traces,
// summaries, CSVs, plots, session files, decode and replay documents, the
// decode table and a sweep's points. Only the wall-clock files differ
// (speed.json, decode_table_timing.json, a sweep's timing.json), and they
// are left out here.
//
// Each run goes to its own folder, run0/ or run1/, with the same relative
// paths, so that paths recorded in the outputs (the effective
// configuration's output.dir and trace files) are the same too.
#include <algorithm>
#include <set>

#include "e2e_util.h"

namespace e2e {
namespace {

std::string source(const std::string& rel) {
  return std::string(PCCX_SOURCE_DIR) + "/" + rel;
}

// Files that hold wall-clock figures by design.
bool wall_clock_file(const fs::path& rel) {
  const std::string name = rel.filename().string();
  return name == "speed.json" || name == "decode_table_timing.json" ||
         (name.rfind("timing", 0) == 0 && rel.extension() == ".json");
}

// Every regular file under `root`, relative, sorted; the capture folder of
// the test harness and the wall-clock files left out.
std::vector<fs::path> files_under(const fs::path& root) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    const fs::path rel = fs::relative(e.path(), root);
    if (*rel.begin() == ".capture" || wall_clock_file(rel)) continue;
    files.push_back(rel);
  }
  std::sort(files.begin(), files.end());
  return files;
}

class Determinism : public E2E {
 protected:
  // Runs pccx-vp ARGS in run0/ and run1/; both must exit with `code`.
  void twice(const std::vector<std::string>& args, int code = 0) {
    for (const char* d : {"run0", "run1"}) {
      fs::create_directories(dir() / d / ".capture");
      std::vector<std::string> argv{vp_exe()};
      argv.insert(argv.end(), args.begin(), args.end());
      const auto r = run_process(argv, dir() / d, dir() / d / ".capture", std::chrono::seconds(60));
      ASSERT_EQ(r.exit_code, code) << d << ": " << describe(r);
    }
  }

  // The two folders hold the same files, byte for byte; returns the list.
  std::vector<fs::path> expect_identical() {
    const auto a = files_under(dir() / "run0"), b = files_under(dir() / "run1");
    EXPECT_EQ(a, b) << "the two runs wrote different sets of files";
    for (const auto& rel : a) {
      if (std::find(b.begin(), b.end(), rel) == b.end()) continue;
      const std::string x = read_file(dir() / "run0" / rel), y = read_file(dir() / "run1" / rel);
      if (x == y) continue;
      const auto at = std::mismatch(x.begin(), x.end(), y.begin(), y.end()).first - x.begin();
      ADD_FAILURE() << rel << " differs between the two runs, first at byte offset " << at
                    << " (sizes " << x.size() << " and " << y.size() << "): run0 has '"
                    << x.substr(static_cast<std::size_t>(at), 60) << "', run1 has '"
                    << y.substr(static_cast<std::size_t>(at), 60) << "'";
      break;  // the first differing file is enough
    }
    return a;
  }

  static void expect_has(const std::vector<fs::path>& files, const std::set<std::string>& names) {
    for (const auto& n : names)
      EXPECT_NE(std::find(files.begin(), files.end(), fs::path(n)), files.end())
          << n << " was not written";
    for (const auto& f : files) EXPECT_FALSE(wall_clock_file(f)) << f;
  }
};

TEST_F(Determinism, FirmwareRunWithEveryTraceAndOutput) {
  twice({"--firmware", "gemv_bringup", "--trace-mmio", "mmio.jsonl", "--trace-instructions",
         "instr.jsonl", "--trace-ddr", "ddr.jsonl", "--out", "out", "--set", "output.perfetto=true",
         "--set", "output.vcd=true", "--set", "output.pccx=true", "--set", "output.plots=true"});
  const auto files = expect_identical();
  expect_has(files, {"mmio.jsonl", "instr.jsonl", "ddr.jsonl", "out/summary.json",
                     "out/ddr_bandwidth.csv", "out/ddr_totals.csv", "out/ddr_bandwidth.svg",
                     "out/trace.perfetto.json", "out/signals.vcd", "out/session.pccx"});
  // The traces are not empty: the run moved data through DDR and the NPU.
  for (const char* t : {"mmio.jsonl", "instr.jsonl", "ddr.jsonl"})
    EXPECT_FALSE(read_file(path(std::string("run0/") + t)).empty()) << t;
  // The wall-clock figures are beside the summary, not in it.
  const json summary = json::parse(read_file(path("run0/out/summary.json")));
  EXPECT_FALSE(summary.contains("wall_time_s"));
  EXPECT_FALSE(summary.contains("speed"));
  const json speed = json::parse(read_file(path("run0/out/speed.json")));
  EXPECT_TRUE(speed.contains("wall_time_s"));
  EXPECT_TRUE(speed.contains("peak_rss_mib"));
}

TEST_F(Determinism, DecodeWithReferenceCheck) {
  twice({"decode", "--model", source("configs/models/tiny.json"), "--context", "16", "--tokens",
         "2", "--reference", "7", "--json", "decode.json", "--trace-instructions", "instr.jsonl",
         "--out", "out"});
  const auto files = expect_identical();
  expect_has(files, {"decode.json", "instr.jsonl", "out/summary.json"});
  const json d = json::parse(read_file(path("run0/decode.json")));
  EXPECT_EQ(d["status"], "ok");
  EXPECT_FALSE(d.contains("wall_time_s"));
}

TEST_F(Determinism, Replay) {
  twice({"replay", data_file("replay_ok.memh"), "--dma", data_file("replay_ok.json"), "--json",
         "replay.json", "--trace-instructions", "instr.jsonl", "--out", "out"});
  const auto files = expect_identical();
  expect_has(files, {"replay.json", "instr.jsonl", "out/summary.json"});
  EXPECT_FALSE(json::parse(read_file(path("run0/replay.json"))).contains("wall_time_s"));
}

TEST_F(Determinism, DecodeTable) {
  twice({"decode-table", "--sweep", source("configs/sweeps/decode-table-tiny.json"), "--out", "out",
         "--jobs", "2"});
  const auto files = expect_identical();
  expect_has(files, {"out/decode_table.md", "out/decode_table.csv", "out/decode_table.json",
                     "out/cells/tiny-fp16-16.json"});
  EXPECT_TRUE(fs::exists(path("run0/out/decode_table_timing.json")));
}

TEST_F(Determinism, Sweep) {
  twice({"sweep", "--sweep", "npu.cmd_fifo_depth=4,8", "--out", "out", "--jobs", "2", "--",
         "--firmware", "memset_sync"});
  const auto files = expect_identical();
  expect_has(files, {"out/points.jsonl", "out/sweep.csv", "out/sweep.md"});
}

}  // namespace
}  // namespace e2e
