// The command line: --validate-only, --dump-config, disasm, --list-firmware,
// --help, --version and the logging options.
#include <algorithm>
#include <sstream>

#include "e2e_util.h"

namespace e2e {
namespace {

using Cli = E2E;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

TEST_F(Cli, ValidateOnlyChecksWithoutRunning) {
  const auto r = vp({"--validate-only", "--trace-instructions", "instr.jsonl", "--out", "out"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out, "");  // no firmware ran
  EXPECT_TRUE(contains(r.err, "configuration is valid")) << r.err;
  EXPECT_FALSE(fs::exists(path("instr.jsonl")));
  EXPECT_FALSE(fs::exists(path("out")));

  const auto bad = vp({"--validate-only", "--set", "npu.l2.ports=3"});
  EXPECT_EQ(bad.exit_code, 2) << describe(bad);
}

TEST_F(Cli, KvAccuracyWritesItsTables) {
  const auto r = vp({"kv-accuracy", "--tokens", "256", "--heads", "1", "--out", "kv"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "| FP16 | fp16 | fp16 | 2048 |")) << r.out;
  EXPECT_EQ(read_file(path("kv/kv_accuracy.md")), r.out);
  const auto rows = read_lines(path("kv/kv_formats.csv"));
  ASSERT_EQ(rows.size(), 11u);  // header + the ten standard strategies
  EXPECT_EQ(rows[0].rfind("strategy,key_format,value_format,bytes_per_token_layer", 0), 0u);
  EXPECT_EQ(read_lines(path("kv/kv_rotated.csv")).size(), 5u);
  EXPECT_EQ(read_lines(path("kv/kv_windows.csv")).size(), 5u);
  const auto j = nlohmann::json::parse(read_file(path("kv/kv_accuracy.json")));
  EXPECT_EQ(j["synthetic"]["tokens"], 256);
  EXPECT_EQ(j["formats"].size(), 10u);

  const auto again = vp({"kv-accuracy", "--tokens", "256", "--heads", "1"});
  EXPECT_EQ(again.out, r.out) << "same inputs, same table";
  const auto bad = vp({"kv-accuracy", "--tokens", "1"});
  EXPECT_EQ(bad.exit_code, 2) << describe(bad);
  EXPECT_TRUE(contains(bad.err, "--tokens must be at least 2")) << bad.err;
}

TEST_F(Cli, DecodeRunsTheDecodeCoreOfAModelFile) {
  const std::string tiny = std::string(PCCX_SOURCE_DIR) + "/configs/models/tiny.json";
  const auto r = vp({"decode", "--model", tiny, "--context", "16", "--tokens", "2", "--set",
                     "simulation.mode=timing"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "decode: tiny, L = 16, N = 2")) << r.out;
  EXPECT_TRUE(contains(r.out, "token 1: ")) << r.out;
  EXPECT_TRUE(contains(r.out, "3175 instructions")) << r.out;
  EXPECT_TRUE(contains(r.out, "DDR weights: 362848 bytes/token")) << r.out;

  const auto no_model = vp({"decode"});
  EXPECT_EQ(no_model.exit_code, 2) << describe(no_model);
  EXPECT_TRUE(contains(no_model.err, "decode needs --model FILE")) << no_model.err;
}

TEST_F(Cli, DdrTraceAndBandwidthCsvFollowTheTraffic) {
  const auto r = vp({"--firmware", "dma_roundtrip", "--trace-ddr", "ddr.jsonl", "--out", "out"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  uint64_t acp_bytes = 0, host_bytes = 0;
  for (const auto& rec : without_markers(read_jsonl(path("ddr.jsonl")))) {
    EXPECT_LE(rec["t_ns"].get<double>(), rec["start_ns"].get<double>()) << rec.dump();
    EXPECT_LT(rec["start_ns"].get<double>(), rec["end_ns"].get<double>()) << rec.dump();
    (rec["port"] == "acp" ? acp_bytes : host_bytes) += rec["bytes"].get<uint64_t>();
  }
  EXPECT_EQ(acp_bytes, 8192u);   // 4 KiB in through ACP_FMAP, 4 KiB out through ACP_RESULT
  EXPECT_EQ(host_bytes, 8192u);  // the CPU writes the pattern and reads it back
  const auto totals = read_lines(path("out/ddr_totals.csv"));
  ASSERT_FALSE(totals.empty());
  EXPECT_TRUE(std::any_of(totals.begin(), totals.end(), [](const std::string& l) {
    return l.rfind("class,activations,", 0) == 0;
  }));
  EXPECT_TRUE(fs::exists(path("out/ddr_bandwidth.csv")));
  const json summary = json::parse(read_file(path("out/summary.json")));
  EXPECT_EQ(summary["memory"]["ddr"]["bandwidth"]["classes"]["activations"]["bytes"], 8192);
}

TEST_F(Cli, DumpedConfigRoundTrips) {
  const auto first = vp({"--set", "npu.cmd_fifo_depth=16", "--set", "cpu.mmio_read_ns=150",
                         "--dump-config", "first.json", "--validate-only"});
  ASSERT_EQ(first.exit_code, 0) << describe(first);
  const json dumped = json::parse(read_file(path("first.json")));
  EXPECT_EQ(dumped["npu"]["cmd_fifo_depth"], 16);
  EXPECT_EQ(dumped["cpu"]["mmio_read_ns"], 150);
  EXPECT_EQ(dumped["cpu"]["mmio_write_ns"], 40);  // a default, written out too

  const auto second =
      vp({"--config", "first.json", "--dump-config", "second.json", "--validate-only"});
  ASSERT_EQ(second.exit_code, 0) << describe(second);
  EXPECT_EQ(read_file(path("first.json")), read_file(path("second.json")));

  // Without --validate-only the run goes ahead after the dump; "-" is stdout.
  const auto run = vp({"--config", "first.json", "--dump-config", "-"});
  ASSERT_EQ(run.exit_code, 0) << describe(run);
  EXPECT_EQ(run.out.rfind(read_file(path("first.json")), 0), 0u) << run.out;
  EXPECT_TRUE(contains(run.out, "memset_sync: instructions retired: 64")) << run.out;
}

TEST_F(Cli, DisasmListsOneLinePerWord) {
  const auto r = vp({"disasm", data_file("program.memh")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const std::vector<std::string> expected = {
      "0000: 3000000000000000  MEMSET fmap_shape[0] <- (0, 0, 0)",
      "0001: 3420001080008000  MEMSET weight_shape[2] <- (1, 2048, 2048)",
      "0002: 2800200000000004  MEMCPY host->L2 dest=0x00010 src=0x00000 shape=fmap_shape[2]",
      "0003: 000800080300c420  GEMV dest=0x00100 src=0x00200 flags=findemax|accm "
      "size=fmap_shape[3] shape=weight_shape[4] lanes=4",
      "0004: 4000800080020039  CVO EXP src=0x00100 dst=0x00200 len=2048 "
      "flags=sub_emax|recip_scale|accm async",
      "0005: 5000000000000000  .word 0x5000000000000000 ; illegal: ERR_UNKNOWN_OPCODE: "
      "opcode 0x5: reserved opcode",
  };
  EXPECT_EQ(lines_of(r.out), expected) << r.out;

  // The decoder limits come from the configuration: with two GEMV cores the
  // GEMV word's lanes=4 is illegal.
  const auto limited = vp({"disasm", data_file("program.memh"), "--set", "npu.gemv_cores=2"});
  ASSERT_EQ(limited.exit_code, 0) << describe(limited);
  const auto lines = lines_of(limited.out);
  ASSERT_EQ(lines.size(), 6u) << limited.out;
  EXPECT_TRUE(contains(lines[3], ".word 0x000800080300c420 ; illegal: ERR_INVALID_LANES"))
      << lines[3];
}

TEST_F(Cli, ListFirmware) {
  const auto r = vp({"--list-firmware"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const auto names = lines_of(r.out);
  EXPECT_NE(std::find(names.begin(), names.end(), "memset_sync"), names.end()) << r.out;
  EXPECT_NE(std::find(names.begin(), names.end(), "error_recovery"), names.end()) << r.out;
}

TEST_F(Cli, HelpAndVersion) {
  const auto help = vp({"--help"});
  ASSERT_EQ(help.exit_code, 0) << describe(help);
  EXPECT_EQ(help.out.rfind("usage: pccx-vp", 0), 0u) << help.out;
  for (const char* opt : {"--firmware", "--list-firmware", "--config", "--set", "--dump-config",
                          "--validate-only", "--strict", "--log-level", "--log ", "--trace-mmio",
                          "--trace-instructions", "--out", "--version", "disasm"})
    EXPECT_TRUE(contains(help.out, opt)) << opt << " missing from --help";
  const auto h = vp({"-h"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_EQ(h.out, help.out);

  const auto version = vp({"--version"});
  ASSERT_EQ(version.exit_code, 0) << describe(version);
  EXPECT_EQ(version.out.rfind("pccx-vp ", 0), 0u) << version.out;
}

TEST_F(Cli, ExplicitRunCommandAndShortOptions) {
  const auto r = vp({"run", "-f", "memset_sync", "-s", "npu.cmd_fifo_depth=4", "-o", "out"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(fs::exists(path("out/summary.json")));
}

TEST_F(Cli, LoggingOptions) {
  // Firmware output goes to stdout, logs and the summary line to stderr.
  const auto quiet = vp({"--log-level", "off"});
  ASSERT_EQ(quiet.exit_code, 0) << describe(quiet);
  EXPECT_TRUE(contains(quiet.out, "memset_sync: instructions retired: 64"));
  for (const auto& line : lines_of(quiet.err))
    EXPECT_EQ(line.rfind("pccx-vp: ", 0), 0u) << "unexpected log line: " << line;
  EXPECT_TRUE(contains(quiet.err, "pccx-vp: firmware memset_sync returned 0")) << quiet.err;

  // Module names are the SystemC instance names (simctl, npu.cmd, cpu, ...).
  const auto debug = vp({"--log", "simctl=debug"});
  ASSERT_EQ(debug.exit_code, 0) << describe(debug);
  EXPECT_TRUE(contains(debug.err, "simctl: marker: memset_sync: fill shape caches")) << debug.err;
  // Other modules stay at the default level (info).
  for (const auto& line : lines_of(debug.err))
    EXPECT_FALSE(line.rfind("[D ", 0) == 0 && !contains(line, "simctl:")) << line;
}

}  // namespace
}  // namespace e2e

namespace e2e {
namespace {

using CliFolders = E2E;

TEST_F(CliFolders, TraceFilesGetTheirFoldersAsOutDoes) {
  const auto r = vp({"--trace-mmio", "traces/run1/mmio.jsonl", "--trace-instructions",
                     "traces/run1/instr.jsonl"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_FALSE(read_jsonl(path("traces/run1/mmio.jsonl")).empty());
  EXPECT_FALSE(read_jsonl(path("traces/run1/instr.jsonl")).empty());
  write_file(path("plain"), "a file, not a folder\n");
  const auto bad = vp({"--trace-mmio", "plain/mmio.jsonl"});
  EXPECT_EQ(bad.exit_code, 2) << describe(bad);
  EXPECT_TRUE(contains(bad.err, "cannot create the folder of trace file 'plain/mmio.jsonl'"))
      << bad.err;
}

}  // namespace
}  // namespace e2e

namespace e2e {
namespace {

// pccx-vp COMMAND --help: that command's usage and options only.
class CommandHelp : public E2E, public ::testing::WithParamInterface<std::vector<std::string>> {};

TEST_P(CommandHelp, ShowsTheCommandsOwnOptions) {
  const auto& p = GetParam();  // command, an option it has, an option it has not
  const auto r = vp({p[0], "--help"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out.rfind("usage: pccx-vp " + (p[0] == "run" ? std::string("[run]") : p[0]), 0), 0u)
      << r.out;
  EXPECT_TRUE(contains(r.out, p[1])) << r.out;
  EXPECT_FALSE(contains(r.out, p[2])) << r.out;
  EXPECT_TRUE(contains(r.out, "--config")) << r.out;  // the options every command takes
}

INSTANTIATE_TEST_SUITE_P(
    Commands, CommandHelp,
    ::testing::Values(std::vector<std::string>{"run", "--firmware", "--context"},
                      std::vector<std::string>{"disasm", "--set", "--stream"},
                      std::vector<std::string>{"kv-accuracy", "--heads", "--context"},
                      std::vector<std::string>{"decode", "--context", "--heads"},
                      std::vector<std::string>{"decode-table", "--jobs", "--shard"},
                      std::vector<std::string>{"sweep", "--shard", "--dma"},
                      std::vector<std::string>{"merge", "--out", "--stream"},
                      std::vector<std::string>{"replay", "--keep-going", "--context"},
                      std::vector<std::string>{"ddr-bench", "--requests", "--context"},
                      std::vector<std::string>{"prefill-plan", "--prompt-tokens", "--shard"}));

TEST_F(Cli, HelpWinsOverTheRestOfTheLine) {
  const auto r = vp({"decode", "--context", "-5", "--no-such-option", "--help"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "usage: pccx-vp decode --model FILE")) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
}

}  // namespace
}  // namespace e2e
