// `pccx-vp decode --json` and `pccx-vp decode-table` on the tiny model
// (configs/sweeps/decode-table-tiny.json): the report's fields, the three
// tables and their cells, the same bytes whatever --jobs, a plan that does
// not fit as a row, a failing cell as exit code 1, and sweep files with
// mistakes as exit code 2 with the file and JSON pointer named.
#include <regex>
#include <set>
#include <sstream>

#include "e2e_util.h"

namespace e2e {
namespace {

using DecodeTable = E2E;

std::string source(const std::string& rel) {
  return std::string(PCCX_SOURCE_DIR) + "/" + rel;
}

const std::string kTinySweep = source("configs/sweeps/decode-table-tiny.json");

// A one-strategy sweep of the tiny model; `extra` is spliced into the top
// level, `set` into the strategy.
std::string tiny_sweep(const std::string& contexts, const std::string& extra = "",
                       const std::string& set = R"("npu.kv.key.kind": "fp16")") {
  return R"({"models": [")" + source("configs/models/tiny.json") + R"("], "contexts": )" +
         contexts + R"(, "tokens": 2, )" + extra + R"("strategies": [{"name": "fp16", "set": {)" +
         set + "}}]}";
}

TEST_F(DecodeTable, DecodeJsonHoldsTheWholeReport) {
  const auto r = vp({"decode", "--model", source("configs/models/tiny.json"), "--context", "16",
                     "--tokens", "2", "--json", "d.json", "--set", "simulation.mode=timing"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const json j = json::parse(read_file(path("d.json")));
  EXPECT_EQ(j["status"], "ok");
  EXPECT_FALSE(j.contains("error"));
  EXPECT_EQ(j["model"], "tiny");
  EXPECT_EQ(j["context"], 16);
  EXPECT_EQ(j["tokens"], 2);
  EXPECT_EQ(j["ring_cap"], 18);
  ASSERT_EQ(j["latency_ns"].size(), 2u);
  EXPECT_GT(j["latency_ns"][0].get<double>(), 0);
  ASSERT_EQ(j["instructions"].size(), 2u);
  EXPECT_GT(j["instructions"][0].get<uint64_t>(), 0u);
  EXPECT_EQ(j["instructions"][0], j["instructions"][1]);
  ASSERT_EQ(j["bound"].size(), 2u);
  for (const char* k :
       {"weight_bytes", "kv_read_bytes", "kv_write_bytes", "bytes", "macs", "memory_seconds",
        "compute_seconds", "bound_seconds", "memory_bound", "max_mac_utilisation"})
    EXPECT_TRUE(j["bound"][1].contains(k)) << k;
  EXPECT_GT(j["bound_ratio"].get<double>(), 1.0);
  for (const char* k :
       {"gemv_utilisation", "npu_utilisation", "gemv_macs", "macs", "cycles", "achieved_gbps"})
    EXPECT_TRUE(j[k].is_number()) << k;
  for (const char* e : {"gemv", "gemm", "sfu", "dma"})
    for (const char* k : {"busy", "stall", "idle"}) EXPECT_TRUE(j["engines"][e][k].is_number());
  EXPECT_GT(j["ddr_bytes_per_token"]["weights"].get<double>(), 0);
  EXPECT_GT(j["ddr_bytes"]["kv_read"].get<uint64_t>(), 0u);
  EXPECT_EQ(j["run"]["exit_code"], 0);
  EXPECT_EQ(j["run"]["outcome"], "finished");
  EXPECT_FALSE(j["run"].contains("printed"));
  EXPECT_EQ(j["options"]["model_file"], source("configs/models/tiny.json"));
  EXPECT_EQ(j["options"]["sinks"], 0);

  // A plan that does not fit: exit code 2, and the document says why.
  const auto big =
      vp({"decode", "--model", source("configs/models/tiny.json"), "--context", "4000000",
          "--tokens", "1", "--json", "big.json", "--set", "memory_map.ddr_size=0x4000000"});
  EXPECT_EQ(big.exit_code, 2) << describe(big);
  const json b = json::parse(read_file(path("big.json")));
  EXPECT_EQ(b["status"], "does_not_fit");
  EXPECT_TRUE(contains(b["error"], "does not fit in DDR with max_tokens 4,000,001")) << b.dump();
}

TEST_F(DecodeTable, TinySweepWritesTheSameTablesWhateverTheJobs) {
  const auto one = vp({"decode-table", "--sweep", kTinySweep, "--out", "t1", "--jobs", "1"});
  ASSERT_EQ(one.exit_code, 0) << describe(one);
  const auto two = vp({"decode-table", "--sweep", kTinySweep, "--out", "t2", "--jobs", "2"});
  ASSERT_EQ(two.exit_code, 0) << describe(two);
  for (const char* f : {"decode_table.md", "decode_table.csv", "decode_table.json"}) {
    ASSERT_TRUE(fs::exists(path(std::string("t1/") + f))) << f;
    EXPECT_EQ(read_file(path(std::string("t1/") + f)), read_file(path(std::string("t2/") + f)))
        << f << " differs between --jobs 1 and --jobs 2";
  }
  EXPECT_TRUE(fs::exists(path("t1/decode_table_timing.json")));
  EXPECT_EQ(one.out, read_file(path("t1/decode_table.md")));

  // 1 model x 5 strategies x 2 contexts, in sweep order.
  const auto csv = read_lines(path("t1/decode_table.csv"));
  ASSERT_EQ(csv.size(), 11u);
  EXPECT_EQ(csv[0].rfind("model,strategy,label,context,ring_cap,sinks,tokens,tokens_averaged,"
                         "status,latency_ms,",
                         0),
            0u)
      << csv[0];
  EXPECT_EQ(csv[1].rfind("tiny,fp16,FP16 KV,16,18,0,2,L+1..L+2,ok,", 0), 0u) << csv[1];
  EXPECT_EQ(csv[7].rfind("tiny,int4-window,\"INT4 KV + 4 sinks, 32-token cap\",16,32,4,", 0), 0u)
      << csv[7];
  EXPECT_EQ(csv[10].rfind("tiny,rot3,", 0), 0u) << csv[10];

  const json t = json::parse(read_file(path("t1/decode_table.json")));
  ASSERT_EQ(t["rows"].size(), 10u);
  std::set<std::string> cells;
  for (const auto& row : t["rows"]) {
    ASSERT_EQ(row["status"], "ok") << row.dump();
    EXPECT_GT(row["latency_ms"].get<double>(), 0) << row.dump();
    EXPECT_GE(row["latency_ms"].get<double>(), row["bound_ms"].get<double>()) << row.dump();
    for (std::size_t k = 0; k < 2; ++k)
      EXPECT_GE(row["latency_ms_per_token"][k].get<double>(),
                row["bound_ms_per_token"][k].get<double>())
          << row.dump();
    EXPECT_GT(row["ddr_mb_per_token"]["weights"].get<double>(), 0) << row.dump();
    const std::string cell = row["cell"];
    EXPECT_TRUE(fs::exists(path("t1/" + cell))) << cell;
    cells.insert(cell);
  }
  EXPECT_EQ(cells.size(), 10u);
  // The capped strategy holds 32 records (sinks 4) at both contexts.
  EXPECT_EQ(t["rows"][6]["strategy"], "int4-window");
  EXPECT_EQ(t["rows"][6]["ring_cap"], 32);
  EXPECT_EQ(t["rows"][7]["ring_cap"], 32);
  // Smaller records, fewer KV bytes read per token.
  EXPECT_LT(t["rows"][5]["ddr_mb_per_token"]["kv_read"].get<double>(),
            t["rows"][1]["ddr_mb_per_token"]["kv_read"].get<double>());
  const json cell = json::parse(read_file(path("t1/cells/tiny-int8-64.json")));
  EXPECT_EQ(cell["context"], 64);
  EXPECT_EQ(cell["status"], "ok");
}

TEST_F(DecodeTable, ACellThatDoesNotFitIsARow) {
  write_file(path("s.json"),
             tiny_sweep("[16, 4000000]", R"("set": {"memory_map.ddr_size": "0x4000000"}, )"));
  const auto r =
      vp({"decode-table", "--sweep", "s.json", "--out", "t", "--set", "ddr.data_rate_mtps=3200"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const auto csv = read_lines(path("t/decode_table.csv"));
  ASSERT_EQ(csv.size(), 3u);
  EXPECT_TRUE(contains(csv[1], ",ok,")) << csv[1];
  EXPECT_TRUE(contains(csv[2], ",does_not_fit,")) << csv[2];
  EXPECT_TRUE(contains(csv[2], "does not fit in DDR with max_tokens 4,000,002: ")) << csv[2];
  EXPECT_TRUE(contains(csv[2], " > 67,108,864 (memory_map.ddr_size)")) << csv[2];
  const std::string md = read_file(path("t/decode_table.md"));
  EXPECT_TRUE(contains(md, "--set `ddr.data_rate_mtps=3200`")) << md;
  EXPECT_TRUE(contains(md, "| fp16 | 4000000 | 4000002 | L+1..L+2 | - |")) << md;
}

TEST_F(DecodeTable, AFailingCellFailsTheTableWithItsOutput) {
  // The platform's GEMV scale group differs from the model's weights: the
  // decode refuses (bad input, not a plan that does not fit).
  write_file(path("s.json"), tiny_sweep("[16]"));
  const auto r =
      vp({"decode-table", "--sweep", "s.json", "--out", "t", "--set", "npu.gemv.scale_group=32"});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "differs from the platform's npu.gemv.scale_group")) << r.err;
  const auto csv = read_lines(path("t/decode_table.csv"));
  ASSERT_EQ(csv.size(), 2u);
  EXPECT_TRUE(contains(csv[1], ",failed,")) << csv[1];
  EXPECT_TRUE(fs::exists(path("t/cells/tiny-fp16-16.log")));
}

TEST_F(DecodeTable, SweepMistakesNameTheFileAndPointer) {
  struct bad {
    std::string text, expect;
  };
  const std::string model = source("configs/models/tiny.json");
  const std::vector<bad> cases = {
      {R"({"models": [")" + model + R"("], "contexts": [16], "strategies": [{"name": "a"}]})",
       "s.json: /tokens: missing"},
      {tiny_sweep("\"16\""), "s.json: /contexts: expected an array of uint32 values"},
      {tiny_sweep("[16]", R"("contxts": 1, )"), "s.json: /contxts: "},
      {R"({"models": [")" + model +
           R"("], "contexts": [16], "tokens": 2, "strategies": [{"name": "a", "rign_cap": 3}]})",
       "s.json: /strategies/0/rign_cap: "},
      {tiny_sweep("[16]", "", R"("npu.kv.key.kind": "fp17")"),
       "s.json: /strategies/0/set/npu.kv.key.kind: /npu/kv/key/kind: expected one of"},
      {tiny_sweep("[16]", "", R"("npu.kv.key.kind": "int8", "npu.kv.key.group": 256)"),
       "s.json: /strategies/0/set: npu.kv.key (int8 group 256) does not suit model tiny"},
      {tiny_sweep("[16]", "", R"("npu.kv.keys.kind": "int8")"),
       "s.json: /strategies/0/set/npu.kv.keys.kind: "},
      {R"({"models": ["no-such-model.json"], "contexts": [16], "tokens": 2,
           "strategies": [{"name": "a"}]})",
       "s.json: /models/0: cannot load model file no-such-model.json"},
      {R"({"models": [")" + model +
           R"("], "contexts": [16], "tokens": 2, "strategies": [{"name": "a b"}]})",
       "s.json: /strategies/0/name: expected a name of letters"},
      {R"({"models": [")" + model + R"("], "contexts": [16], "tokens": 2, "strategies": [{})",
       "s.json:1:"},
  };
  for (const auto& c : cases) {
    write_file(path("s.json"), c.text);
    const auto r = vp({"decode-table", "--sweep", "s.json", "--out", "t"});
    EXPECT_EQ(r.exit_code, 2) << c.text << "\n" << describe(r);
    EXPECT_TRUE(contains(r.err, "invalid sweep file")) << r.err;
    EXPECT_TRUE(contains(r.err, c.expect)) << "expected '" << c.expect << "' in\n" << r.err;
    EXPECT_FALSE(fs::exists(path("t/decode_table.md")));
  }
  const auto missing = vp({"decode-table", "--sweep", "none.json", "--out", "t"});
  EXPECT_EQ(missing.exit_code, 2) << describe(missing);
  EXPECT_TRUE(contains(missing.err, "none.json: cannot open file")) << missing.err;
  const auto no_out = vp({"decode-table", "--sweep", kTinySweep});
  EXPECT_EQ(no_out.exit_code, 2) << describe(no_out);
  EXPECT_TRUE(contains(no_out.err, "decode-table needs --out DIR")) << no_out.err;
}

// Cells run side by side: a trace file named once for all of them is
// refused; --keep-outputs gives each cell its folder, DIR/cells/<id>/, with
// its trace, summary and plots, and leaves the table as it was.
TEST_F(DecodeTable, KeepOutputsGivesEachCellItsFolder) {
  write_file(path("s.json"), tiny_sweep("[16, 32]"));
  const auto shared =
      vp({"decode-table", "--sweep", path("s.json"), "--out", "a", "--trace-ddr", "ddr.jsonl"});
  EXPECT_EQ(shared.exit_code, 2) << describe(shared);
  EXPECT_TRUE(contains(shared.err, "every cell would write the same file; --keep-outputs"))
      << shared.err;
  const auto shared_check = vp({"decode-table", "--sweep", path("s.json"), "--out", "a",
                                "--trace-ddr", "ddr.jsonl", "--validate-only"});
  EXPECT_EQ(shared_check.err, shared.err);

  const auto plain = vp({"decode-table", "--sweep", path("s.json"), "--out", "plain"});
  ASSERT_EQ(plain.exit_code, 0) << describe(plain);
  const auto kept = vp({"decode-table", "--sweep", path("s.json"), "--out", "kept", "--trace-ddr",
                        "ddr.jsonl", "--keep-outputs"});
  ASSERT_EQ(kept.exit_code, 0) << describe(kept);
  for (const char* cell : {"tiny-fp16-16", "tiny-fp16-32"}) {
    const std::string folder = path("kept/cells/") + cell;
    for (const char* f : {"ddr.jsonl", "summary.json", "ddr_bandwidth.svg", "decode_latency.svg"})
      EXPECT_TRUE(fs::exists(folder + "/" + f)) << folder << "/" << f;
  }
  EXPECT_NE(read_file(path("kept/cells/tiny-fp16-16/ddr.jsonl")),
            read_file(path("kept/cells/tiny-fp16-32/ddr.jsonl")));
  EXPECT_FALSE(fs::exists(path("ddr.jsonl")));
  EXPECT_EQ(read_file(path("kept/decode_table.csv")), read_file(path("plain/decode_table.csv")));
  // Only the commands with cells keep them.
  const auto elsewhere = vp({"--keep-outputs"});
  EXPECT_EQ(elsewhere.exit_code, 2) << describe(elsewhere);
  EXPECT_TRUE(contains(elsewhere.err, "--keep-outputs is for decode-table and sweep")) << elsewhere.err;
  const auto resume = vp({"decode", "--model", source("configs/models/tiny.json"), "--resume"});
  EXPECT_EQ(resume.exit_code, 2) << describe(resume);
  EXPECT_TRUE(contains(resume.err, "--resume is for decode-table and sweep")) << resume.err;
}

// SIGTERM to a table: the running cells get it too, are waited for and
// leave no half-written file; the table is not written; exit code 143. The
// signal comes 10 s in: chunks have finished by then even on a loaded
// machine, and the main job is far from done.
TEST_F(DecodeTable, SigtermStopsTheCellsAndLeavesNoHalfFiles) {
  const std::string timeout = find_in_path("timeout");
  if (timeout.empty()) GTEST_SKIP() << "no timeout(1)";
  const auto r = run(
      {timeout, "--preserve-status", "-s", "TERM", "10", vp_exe(), "decode-table", "--sweep",
       source("configs/sweeps/decode-table.json"), "--out", "t", "--jobs", "2", "--keep-outputs"},
      std::chrono::seconds(60));
  EXPECT_EQ(r.exit_code, 143) << describe(r);
  EXPECT_TRUE(contains(r.err, "SIGTERM received: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "stopped, their unfinished outputs removed")) << r.err;
  EXPECT_FALSE(fs::exists(path("t/decode_table.csv")));
  for (const auto& e : fs::recursive_directory_iterator(path("t")))
    EXPECT_FALSE(contains(e.path().filename().string(), ".part-")) << e.path();

  // --resume runs only what did not finish, and the table is the one a
  // whole run writes (docs/results/data holds the main job's). The prefill
  // chunks run first (a few seconds each on a loaded machine), so some of
  // them finished before the signal and none of the cells.
  const auto resumed =
      run({vp_exe(), "decode-table", "--sweep", source("configs/sweeps/decode-table.json"), "--out",
           "t", "--jobs", "2", "--keep-outputs", "--resume"},
          std::chrono::seconds(300));  // the rest of the main job, on a loaded machine
  ASSERT_EQ(resumed.exit_code, 0) << describe(resumed);
  EXPECT_TRUE(contains(resumed.err, "pccx-vp: decode-table: resuming: ")) << resumed.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(resumed.err, m,
                                std::regex(R"(([0-9]+) sampled chunks \(([0-9]+) to run\))")))
      << resumed.err;
  // With --keep-outputs every chunk runs as its own: all of them when none
  // had finished.
  EXPECT_LT(std::stoi(m[2]), std::stoi(m[1])) << resumed.err;
  // The files name the sweep by the path given, here absolute.
  for (const char* f : {"decode_table.csv", "decode_table.json", "decode_table.md",
                        "prefill_table.csv", "prefill_table.json", "prefill_table.md"}) {
    std::string got = read_file(path(std::string("t/") + f));
    for (std::size_t at; (at = got.find(std::string(PCCX_SOURCE_DIR) + "/")) != std::string::npos;)
      got.erase(at, std::string(PCCX_SOURCE_DIR).size() + 1);
    EXPECT_EQ(got, read_file(source(std::string("docs/results/data/") + f))) << f;
  }
}

}  // namespace
}  // namespace e2e

namespace e2e {
namespace {

// The prefill table: its TTFT, estimated from the sampled chunks, against
// the whole prompt simulated chunk by chunk (tiny model, window 8, chunks
// of 4: 40 and 23 prompt tokens), within 1 %; the samples' files, and a
// prefill model that is not among the sweep's models refused.
TEST_F(DecodeTable, ThePrefillTableMatchesTheWholePromptSimulated) {
  const std::string sweep = tiny_sweep(
      "[16]", R"("prefill": {"models": [")" + source("configs/models/tiny.json") +
                  R"("], "prompts": [40, 23], "chunk": 4}, )");
  write_file(path("p.json"), sweep);
  const auto t = vp({"decode-table", "--sweep", path("p.json"), "--out", "t", "--jobs", "2"});
  ASSERT_EQ(t.exit_code, 0) << describe(t);
  const json j = json::parse(read_file(path("t/prefill_table.json")));
  ASSERT_EQ(j["rows"].size(), 2u);
  EXPECT_EQ(j["rows"][0]["sampled_p0"], json::parse("[0, 8, 36]"));
  EXPECT_EQ(j["rows"][1]["sampled_p0"], json::parse("[0, 8, 16, 20]"));
  EXPECT_TRUE(fs::exists(path("t/cells/tiny-fp16-prompt40-at8.json")));
  EXPECT_TRUE(fs::exists(path("t/prefill_table.md")));
  EXPECT_TRUE(fs::exists(path("t/prefill_table.csv")));
  for (int i = 0; i < 2; ++i) {
    const auto& row = j["rows"][i];
    const std::string p = std::to_string(row["prompt"].get<uint32_t>());
    const auto whole =
        vp({"decode", "--model", source("configs/models/tiny.json"), "--context", "0",
            "--prompt-tokens", p, "--chunk", "4", "--tokens", "0", "--ring-cap", p, "--json",
            "w" + p + ".json", "--set", "npu.kv.key.kind=fp16", "--set", "simulation.mode=timing"});
    ASSERT_EQ(whole.exit_code, 0) << describe(whole);
    const json w = json::parse(read_file(path("w" + p + ".json")));
    const double full_ms = w["prefill"]["ttft_ns"].get<double>() / 1e6;
    EXPECT_NEAR(row["ttft_ms"].get<double>(), full_ms, 0.01 * full_ms) << "P = " << p;
    EXPECT_NEAR(row["ddr_gb"]["weights"].get<double>() * 1e9,
                w["prefill"]["ddr_bytes"]["weights"].get<double>(),
                0.01 * w["prefill"]["ddr_bytes"]["weights"].get<double>())
        << "P = " << p;
    EXPECT_GE(row["ttft_over_bound"].get<double>(), 1.0);
  }

  write_file(path("bad.json"),
             tiny_sweep("[16]", R"("prefill": {"models": ["other.json"], "prompts": [8]}, )"));
  const auto bad = vp({"decode-table", "--sweep", path("bad.json"), "--out", "b"});
  EXPECT_EQ(bad.exit_code, 2) << describe(bad);
  EXPECT_TRUE(contains(bad.err, "/prefill/models/0: \"other.json\" is not one of the sweep's"))
      << bad.err;
}

}  // namespace
}  // namespace e2e

namespace e2e {
namespace {

// A strategy whose ring does not follow the prompt samples the same chunks
// at every prompt: each such run is made once and its document serves every
// sample of it. The table is the one every sample run on its own gives
// (--keep-outputs runs each in its own folder).
TEST_F(DecodeTable, APrefillSampleThatIsTheSameCommandRunsOnce) {
  const std::string tiny = source("configs/models/tiny.json");
  write_file(path("w.json"), R"({"models": [")" + tiny + R"("], "contexts": [16], "tokens": 2, )" +
                                 R"("prefill": {"models": [")" + tiny +
                                 R"("], "prompts": [40, 23], "chunk": 4}, )" +
                                 R"("strategies": [{"name": "win", "ring_cap": 12, )" +
                                 R"("set": {"npu.kv.key.kind": "fp16"}}]})");
  const auto once = vp({"decode-table", "--sweep", path("w.json"), "--out", "once"});
  ASSERT_EQ(once.exit_code, 0) << describe(once);
  const json j = json::parse(read_file(path("once/prefill_table.json")));
  ASSERT_EQ(j["rows"].size(), 2u);
  const std::size_t samples = j["rows"][0]["sampled_p0"].size() + j["rows"][1]["sampled_p0"].size();
  // Both prompts sample the chunk at 0 with the same ring: one run for two.
  const std::regex line(R"(prefill table: 2 cells, ([0-9]+) sampled chunks \(([0-9]+) to run\))");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(once.err, m, line)) << once.err;
  EXPECT_EQ(std::stoul(m[1]), samples);
  EXPECT_LT(std::stoul(m[2]), samples);
  EXPECT_EQ(read_file(path("once/cells/tiny-win-prompt40-at0.json")),
            read_file(path("once/cells/tiny-win-prompt23-at0.json")));
  EXPECT_TRUE(fs::exists(path("once/cells/tiny-win-prompt23-at0.complete.json")));

  const auto each = vp({"decode-table", "--sweep", path("w.json"), "--out", "each", "--keep-outputs"});
  ASSERT_EQ(each.exit_code, 0) << describe(each);
  ASSERT_TRUE(std::regex_search(each.err, m, line)) << each.err;
  EXPECT_EQ(std::stoul(m[2]), samples);
  EXPECT_EQ(read_file(path("once/prefill_table.csv")), read_file(path("each/prefill_table.csv")));
  EXPECT_EQ(read_file(path("once/prefill_table.json")), read_file(path("each/prefill_table.json")));
}

}  // namespace
}  // namespace e2e
