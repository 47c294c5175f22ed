// `pccx-vp compare A B`: two tiny decodes (and two firmware runs) made the
// same way compare with no difference; a faster DDR on one side shows as
// the configuration key /ddr/data_rate_mtps and as moved latencies, which
// --fail-above turns into exit code 1 naming the metric; two decode tables
// and two sweeps compare cell by cell and point by point, with the cells
// and points of one side only listed; --html writes a page with charts;
// folders of different kinds, bad thresholds and unknown metrics are bad
// input (exit code 2) naming what is wrong.
#include <sstream>

#include "e2e_util.h"

namespace e2e {
namespace {

using Compare = E2E;

std::string source(const std::string& rel) {
  return std::string(PCCX_SOURCE_DIR) + "/" + rel;
}

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The tiny decode, per layer, into folder `out` (summary.json, decode.json).
std::vector<std::string> tiny_decode(const std::string& out,
                                     const std::vector<std::string>& extra = {}) {
  return with({"decode", "--model", source("configs/models/tiny.json"), "--context", "16",
               "--tokens", "1", "--per-layer", "--out", out},
              extra);
}

// The cells of a report row "| name | A | B | B - A | Change |", trimmed;
// empty when the report has no such row.
std::vector<std::string> row_of(const std::string& report, const std::string& name) {
  std::istringstream in(report);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("| " + name + " |", 0) != 0) continue;
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream l(line.substr(1));
    while (std::getline(l, cell, '|')) {
      const auto b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
      cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
    }
    return cells;
  }
  return {};
}

TEST_F(Compare, TheSameDecodeTwiceHasNoDifferences) {
  for (const char* dir : {"A", "B"}) {
    const auto r = vp(tiny_decode(dir));
    ASSERT_EQ(r.exit_code, 0) << describe(r);
  }
  const auto c = vp({"compare", "A", "B", "--fail-above", "0"});
  ASSERT_EQ(c.exit_code, 0) << describe(c);
  EXPECT_EQ(c.out.rfind("# Comparison of two runs\n", 0), 0u) << c.out;
  EXPECT_TRUE(contains(c.out, "| A | A | summary.json, decode.json |")) << c.out;
  EXPECT_TRUE(contains(c.out, " metrics, 0 differ; 0 configuration keys differ.")) << c.out;
  EXPECT_FALSE(contains(c.out, "## Largest changes")) << c.out;
  EXPECT_TRUE(contains(c.out, "## Configuration keys that differ\n\nThe effective")) << c.out;
  EXPECT_TRUE(contains(c.out, "itself, is not compared).\n\nNone.\n")) << c.out;
  EXPECT_TRUE(contains(c.out, "no metric moved by more than 0 %.")) << c.out;
  // The figures of every section: the summary, the NPU counters, DDR by
  // class and port, and the decode's per token and per layer.
  for (const char* name :
       {"sim_time_ns", "instructions_retired", "npu.cycles", "npu.gemv_macs",
        "ddr.class.weights.read_bytes", "ddr.port.hp2.read_bytes", "ddr.port.acp.write_bytes",
        "decode.token0.latency_ns", "decode.bound_ratio", "decode.achieved_gbps",
        "decode.gemv_utilisation", "decode.npu_utilisation", "decode.ddr_bytes_per_token.weights",
        "decode.engine.gemv.busy", "decode.part.entry.ns", "decode.part.layer_0.ns",
        "decode.part.exit.ns"}) {
    const auto row = row_of(c.out, name);
    ASSERT_EQ(row.size(), 5u) << name << "\n" << c.out;
    EXPECT_EQ(row[1], row[2]) << name;
    EXPECT_EQ(row[3], "0") << name;
    EXPECT_EQ(row[4], "0 %") << name;
  }
  EXPECT_NE(row_of(c.out, "ddr.class.weights.read_bytes")[1], "0");

  // The report is the same bytes every time.
  const auto again = vp({"compare", "A", "B", "--fail-above", "0"});
  EXPECT_EQ(again.out, c.out);
}

TEST_F(Compare, TheSameFirmwareRunTwiceHasNoDifferences) {
  for (const char* dir : {"A", "B"}) {
    const auto r = vp({"--firmware", "memset_sync", "--out", dir});
    ASSERT_EQ(r.exit_code, 0) << describe(r);
  }
  const auto c = vp({"compare", "A", "B", "--fail-above", "0"});
  ASSERT_EQ(c.exit_code, 0) << describe(c);
  EXPECT_TRUE(contains(c.out, "| A | A | summary.json |")) << c.out;
  EXPECT_TRUE(contains(c.out, " metrics, 0 differ; 0 configuration keys differ.")) << c.out;
  EXPECT_EQ(row_of(c.out, "instructions_retired").size(), 5u) << c.out;
  EXPECT_TRUE(row_of(c.out, "decode.token0.latency_ns").empty()) << c.out;
}

TEST_F(Compare, AFasterDdrIsAConfigurationKeyAndMovedLatencies) {
  auto r = vp(tiny_decode("A"));
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  r = vp(tiny_decode("B", {"--set", "ddr.data_rate_mtps=3200"}));
  ASSERT_EQ(r.exit_code, 0) << describe(r);

  const auto c = vp({"compare", "A", "B", "--html", "compare.html"});
  ASSERT_EQ(c.exit_code, 0) << describe(c);
  EXPECT_TRUE(contains(c.out, "; 1 configuration key differs.")) << c.out;
  EXPECT_TRUE(contains(c.out, "| Key | A | B |\n|---|---|---|\n| /ddr/data_rate_mtps | 2400 | 3200 |\n"))
      << c.out;
  EXPECT_TRUE(contains(c.out, "## Largest changes")) << c.out;
  for (const char* name : {"decode.token0.latency_ns", "decode.token0.bound_ns", "sim_time_ns"}) {
    const auto row = row_of(c.out, name);
    ASSERT_EQ(row.size(), 5u) << name << "\n" << c.out;
    EXPECT_NE(row[1], row[2]) << name;
    EXPECT_NE(row[3], "0") << name;
    EXPECT_NE(row[4], "0 %") << name;
  }
  // The bytes moved do not depend on the DDR's speed.
  EXPECT_EQ(row_of(c.out, "ddr.class.weights.read_bytes")[3], "0");
  // The bound (DDR bytes over its peak) drops by a quarter of its memory term.
  EXPECT_EQ(row_of(c.out, "decode.token0.bound_ns")[3].rfind("-", 0), 0u);

  const std::string html = read_file(path("compare.html"));
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_TRUE(contains(html, "<svg")) << html.substr(0, 2000);
  EXPECT_TRUE(contains(html, "pccx-chart"));
  EXPECT_TRUE(contains(html, "Latency per part of a token"));
  EXPECT_TRUE(contains(html, "/ddr/data_rate_mtps"));
  EXPECT_TRUE(contains(html, "decode.part.layer_0.ns"));

  // A threshold: every metric by default, or the ones named.
  const auto strict = vp({"compare", "A", "B", "--fail-above", "0.1"});
  EXPECT_EQ(strict.exit_code, 1) << describe(strict);
  EXPECT_TRUE(contains(strict.err, "moved by more than 0.1 % (--fail-above):")) << strict.err;
  EXPECT_TRUE(contains(strict.err, "  decode.token0.bound_ns: ")) << strict.err;
  EXPECT_TRUE(contains(strict.out, "## Threshold\n\n--fail-above 0.1 (every metric): ")) << strict.out;
  EXPECT_EQ(row_of(strict.out.substr(strict.out.find("## Threshold")), "decode.bound_ratio").size(),
            5u)
      << strict.out;

  const auto loose = vp({"compare", "A", "B", "--fail-above", "1000"});
  EXPECT_EQ(loose.exit_code, 0) << describe(loose);
  EXPECT_TRUE(contains(loose.out, "no metric moved by more than 1000 %.")) << loose.out;

  // The decode's latency of the tiny model hardly depends on the DDR.
  const auto latency = vp({"compare", "A", "B", "--fail-above", "0.1", "--metric",
                           "decode.token0.latency_ns", "--metric", "decode.part.*.ns"});
  EXPECT_EQ(latency.exit_code, 0) << describe(latency);
  EXPECT_TRUE(contains(latency.out, "--fail-above 0.1 (14 chosen metrics): no metric moved"))
      << latency.out;
  const auto bound = vp({"compare", "A", "B", "--fail-above", "1", "--metric",
                         "decode.token0.latency_ns", "--metric", "decode.token0.bound_ns"});
  EXPECT_EQ(bound.exit_code, 1) << describe(bound);
  EXPECT_TRUE(contains(bound.err, "1 metric moved by more than 1 %")) << bound.err;
  EXPECT_TRUE(contains(bound.err, "decode.token0.bound_ns")) << bound.err;
  EXPECT_FALSE(contains(bound.err, "decode.token0.latency_ns")) << bound.err;
}

TEST_F(Compare, DecodeTablesCompareCellByCell) {
  const std::string sweep = source("configs/sweeps/decode-table-tiny.json");
  auto r = vp({"decode-table", "--sweep", sweep, "--out", "A", "--jobs", "2"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  r = vp({"decode-table", "--sweep", sweep, "--out", "B", "--jobs", "2", "--set",
          "ddr.data_rate_mtps=3200"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  // One strategy, and a context the tiny sweep has not.
  write_file(path("one.json"),
             R"({"models": [")" + source("configs/models/tiny.json") +
                 R"("], "contexts": [16, 32], "tokens": 2, "strategies": [{"name": "fp16", "set": )"
                 R"({"npu.kv.key.kind": "fp16", "npu.kv.key.group": 0, "npu.kv.value.kind": "fp16", )"
                 R"("npu.kv.value.group": 0}}]})");
  r = vp({"decode-table", "--sweep", "one.json", "--out", "C", "--jobs", "2"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);

  const auto same = vp({"compare", "A", "A", "--fail-above", "0"});
  EXPECT_EQ(same.exit_code, 0) << describe(same);
  EXPECT_TRUE(contains(same.out, " metrics, 0 differ; 0 configuration keys differ.")) << same.out;

  const auto c = vp({"compare", "A", "B", "--html", "t.html"});
  ASSERT_EQ(c.exit_code, 0) << describe(c);
  EXPECT_EQ(c.out.rfind("# Comparison of two decode tables\n", 0), 0u) << c.out;
  EXPECT_TRUE(contains(c.out, "\n## tiny-fp16-16\n")) << c.out;
  EXPECT_TRUE(contains(c.out, "\n## tiny-rot3-64\n")) << c.out;
  EXPECT_TRUE(contains(c.out, "| /config/sets/0 | (absent) | \"ddr.data_rate_mtps=3200\" |"))
      << c.out;
  for (const char* name : {"tiny-fp16-16/latency_ms", "tiny-int4-window-64/bound_ms",
                           "tiny-int8-16/token1.bound_ms"}) {
    const auto row = row_of(c.out, name);
    ASSERT_EQ(row.size(), 5u) << name << "\n" << c.out;
    EXPECT_NE(row[3], "0") << name;
  }
  EXPECT_EQ(row_of(c.out, "tiny-fp16-16/ddr_mb_per_token.weights")[3], "0") << c.out;
  EXPECT_FALSE(contains(c.out, "in one folder only")) << c.out;
  const std::string html = read_file(path("t.html"));
  EXPECT_TRUE(contains(html, "<svg"));
  EXPECT_TRUE(contains(html, "Latency per cell"));

  const auto other = vp({"compare", "A", "C", "--fail-above", "1000"});
  EXPECT_EQ(other.exit_code, 1) << describe(other);  // cells of one side count as moved
  EXPECT_TRUE(contains(other.out, "## Cells in one folder only\n\n- only in A: tiny-fp16-64\n"))
      << other.out;
  EXPECT_TRUE(contains(other.out, "- only in A: tiny-rot3-16\n")) << other.out;
  EXPECT_TRUE(contains(other.out, "- only in B: tiny-fp16-32\n")) << other.out;
  EXPECT_FALSE(contains(other.out, "- only in A: tiny-fp16-16\n")) << other.out;
  EXPECT_TRUE(contains(other.out, "| /contexts/1 | 64 | 32 |")) << other.out;
  EXPECT_EQ(row_of(other.out, "tiny-fp16-32/latency_ms")[1], "-") << other.out;
  EXPECT_EQ(row_of(other.out, "tiny-fp16-32/latency_ms")[4], "n/a") << other.out;
  EXPECT_TRUE(contains(other.err, "  tiny-fp16-64/latency_ms: ")) << other.err;
  EXPECT_TRUE(contains(other.err, " -> - (only in A)\n")) << other.err;
}

TEST_F(Compare, SweepsComparePointByPoint) {
  const std::vector<std::string> decode = {"--", "decode", "--model",
                                           source("configs/models/tiny.json"), "--context", "16",
                                           "--tokens", "1"};
  auto r = vp(with({"sweep", "--sweep", "ddr.data_rate_mtps=2400,3200", "--out", "A"}, decode));
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  r = vp(with({"sweep", "--sweep", "ddr.data_rate_mtps=2400,3200", "--out", "B", "--set",
               "npu.gemv.weight_fifos=[0,1,2,3]"},
              decode));
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  r = vp(with({"sweep", "--sweep", "ddr.data_rate_mtps=2400,2666", "--out", "C"}, decode));
  ASSERT_EQ(r.exit_code, 0) << describe(r);

  const auto c = vp({"compare", "A", "B", "--html", "s.html"});
  ASSERT_EQ(c.exit_code, 0) << describe(c);
  EXPECT_EQ(c.out.rfind("# Comparison of two sweeps\n", 0), 0u) << c.out;
  EXPECT_TRUE(contains(c.out, "| A | A | points.jsonl |")) << c.out;
  EXPECT_TRUE(contains(c.out, "| /config/sets/0 | (absent) | \"npu.gemv.weight_fifos=[0,1,2,3]\" |"))
      << c.out;
  for (const char* name : {"ddr.data_rate_mtps=2400/decode.token0.latency_ns",
                           "ddr.data_rate_mtps=3200/decode.token0.latency_ns",
                           "ddr.data_rate_mtps=3200/npu.gemv_weight_stall_cycles"}) {
    const auto row = row_of(c.out, name);
    ASSERT_EQ(row.size(), 5u) << name << "\n" << c.out;
    EXPECT_NE(row[3], "0") << name;
  }
  EXPECT_TRUE(contains(read_file(path("s.html")), "<svg"));

  const auto other = vp({"compare", "A", "C"});
  ASSERT_EQ(other.exit_code, 0) << describe(other);
  EXPECT_TRUE(contains(other.out,
                       "## Points in one folder only\n\n- only in A: ddr.data_rate_mtps=3200\n"
                       "- only in B: ddr.data_rate_mtps=2666\n"))
      << other.out;
  EXPECT_EQ(row_of(other.out, "ddr.data_rate_mtps=2400/decode.token0.latency_ns")[3], "0")
      << other.out;
  EXPECT_TRUE(contains(other.out, "| /axes/0/values/1 | 3200 | 2666 |")) << other.out;
}

TEST_F(Compare, BadInputIsExitCode2NamingIt) {
  auto r = vp({"--firmware", "memset_sync", "--out", "run"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  r = vp({"decode-table", "--sweep", source("configs/sweeps/decode-table-tiny.json"), "--out",
          "table", "--jobs", "2"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);

  const auto mixed = vp({"compare", "run", "table"});
  EXPECT_EQ(mixed.exit_code, 2) << describe(mixed);
  EXPECT_TRUE(contains(mixed.err, "pccx-vp: compare: table: expected a run's output folder "
                                  "(summary.json) as run is, found a decode table's folder "
                                  "(decode_table.json)"))
      << mixed.err;
  EXPECT_TRUE(mixed.out.empty()) << mixed.out;

  fs::create_directories(path("empty"));
  const auto empty = vp({"compare", "run", "empty"});
  EXPECT_EQ(empty.exit_code, 2) << describe(empty);
  EXPECT_TRUE(contains(empty.err, "empty: nothing to compare in this folder; expected")) << empty.err;
  const auto missing = vp({"compare", "nowhere", "run"});
  EXPECT_EQ(missing.exit_code, 2) << describe(missing);
  EXPECT_TRUE(contains(missing.err, "compare: nowhere: no such folder")) << missing.err;

  for (const char* pct : {"-1", "abc", "nan", "5%"}) {
    const auto bad = vp({"compare", "run", "run", "--fail-above", pct});
    EXPECT_EQ(bad.exit_code, 2) << describe(bad);
    EXPECT_TRUE(contains(bad.err, std::string("--fail-above ") + pct + ": expected a percentage"))
        << bad.err;
  }
  const auto unknown = vp({"compare", "run", "run", "--fail-above", "1", "--metric", "sim_time"});
  EXPECT_EQ(unknown.exit_code, 2) << describe(unknown);
  EXPECT_TRUE(contains(unknown.err, "--metric sim_time: no such metric in run or run; did you mean "
                                    "\"sim_time_ns\"?"))
      << unknown.err;
  const auto pattern = vp({"compare", "run", "run", "--fail-above", "1", "--metric", "decode.*"});
  EXPECT_EQ(pattern.exit_code, 2) << describe(pattern);
  EXPECT_TRUE(contains(pattern.err, "--metric decode.*: the pattern matches no metric")) << pattern.err;
  const auto alone = vp({"compare", "run", "run", "--metric", "sim_time_ns"});
  EXPECT_EQ(alone.exit_code, 2) << describe(alone);
  EXPECT_TRUE(contains(alone.err, "give --fail-above PCT")) << alone.err;
  const auto one = vp({"compare", "run"});
  EXPECT_EQ(one.exit_code, 2) << describe(one);
  EXPECT_TRUE(contains(one.err, "compare takes two output folders")) << one.err;
  const auto elsewhere = vp({"--firmware", "memset_sync", "--fail-above", "1"});
  EXPECT_EQ(elsewhere.exit_code, 2) << describe(elsewhere);
  EXPECT_TRUE(contains(elsewhere.err, "are for compare")) << elsewhere.err;

  const auto help = vp({"compare", "--help"});
  EXPECT_EQ(help.exit_code, 0) << describe(help);
  EXPECT_EQ(help.out.rfind("usage: pccx-vp compare A B [--html FILE] [--fail-above PCT]", 0), 0u)
      << help.out;
  EXPECT_TRUE(contains(help.out, "--metric")) << help.out;
  EXPECT_FALSE(contains(help.out, "--context")) << help.out;
}

}  // namespace
}  // namespace e2e
