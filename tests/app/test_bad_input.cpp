// Bad input of every kind: exit code 2, a message that says what and where,
// and nothing run (no firmware output).
#include "e2e_util.h"

namespace e2e {
namespace {

class BadInput : public E2E {
 protected:
  // Runs pccx-vp expecting exit code 2 and no firmware output; returns stderr.
  std::string expect_bad_input(const std::vector<std::string>& args) {
    const auto r = vp(args);
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_EQ(r.out, "") << describe(r);
    EXPECT_TRUE(contains(r.err, "pccx-vp: ")) << r.err;
    return r.err;
  }
};

TEST_F(BadInput, MissingConfigFile) {
  const auto err = expect_bad_input({"--config", "missing.json"});
  EXPECT_TRUE(contains(err, "missing.json: cannot open file")) << err;
}

TEST_F(BadInput, UnknownConfigKeyWithSuggestion) {
  write_file(path("typo.json"), "{\n  \"npu\": { \"cmd_fifo_dept\": 4 }\n}\n");
  const auto err = expect_bad_input({"--config", path("typo.json")});
  EXPECT_TRUE(contains(err, "typo.json")) << err;
  EXPECT_TRUE(contains(err, "/npu/cmd_fifo_dept")) << err;
  EXPECT_TRUE(contains(err, "unknown key")) << err;
  EXPECT_TRUE(contains(err, "did you mean \"cmd_fifo_depth\"")) << err;
}

TEST_F(BadInput, OutOfRangeSet) {
  const auto err = expect_bad_input({"--set", "npu.cmd_fifo_depth=0"});
  EXPECT_TRUE(contains(err, "--set npu.cmd_fifo_depth=0")) << err;
  EXPECT_TRUE(contains(err, "/npu/cmd_fifo_depth")) << err;
  EXPECT_TRUE(contains(err, "[1, 1024]")) << err;
}

TEST_F(BadInput, MalformedJsonNamesLineAndColumn) {
  // The trailing comma makes line 4, column 3 ('}') the error.
  write_file(path("broken.json"), "{\n  \"npu\": {\n    \"cmd_fifo_depth\": 4,\n  }\n}\n");
  const auto err = expect_bad_input({"--config", path("broken.json")});
  EXPECT_TRUE(contains(err, "broken.json:4:3:")) << err;
  EXPECT_TRUE(contains(err, "syntax error")) << err;
}

TEST_F(BadInput, InvalidLogLevel) {
  const auto err = expect_bad_input({"--log-level", "chatty"});
  EXPECT_TRUE(contains(err, "/log/level")) << err;
  const auto err2 = expect_bad_input({"--log", "npu.cmd"});
  EXPECT_TRUE(contains(err2, "MODULE=LEVEL")) << err2;
}

TEST_F(BadInput, UnknownBuiltinFirmwareListsTheBuiltins) {
  const auto err = expect_bad_input({"--firmware", "nosuch"});
  EXPECT_TRUE(contains(err, "nosuch")) << err;
  EXPECT_TRUE(contains(err, "memset_sync")) << err;
  EXPECT_TRUE(contains(err, "error_recovery")) << err;
}

TEST_F(BadInput, MissingFirmwareObject) {
  const auto err = expect_bad_input({"--firmware", "/nonexistent.so"});
  EXPECT_TRUE(contains(err, "--firmware /nonexistent.so: no such file")) << err;
}

TEST_F(BadInput, FirmwareObjectWithoutEntryPoint) {
  const auto err = expect_bad_input({"--firmware", test_firmware("no_entry")});
  EXPECT_TRUE(contains(err, "no_entry.so")) << err;
  EXPECT_TRUE(contains(err, "does not export pccx_firmware_main")) << err;
}

TEST_F(BadInput, FileThatIsNotASharedObject) {
  write_file(path("text.so"), "not an ELF file\n");
  const auto err = expect_bad_input({"--firmware", path("text.so")});
  EXPECT_TRUE(contains(err, "text.so")) << err;
  EXPECT_TRUE(contains(err, "neither a firmware object (a shared object for this host) nor an "
                            "AArch64 ELF executable: a text file, not a compiled program"))
      << err;
}

// What a mistaken file is, not a loader error: a host program, an object
// file that was never linked, an instruction stream.
TEST_F(BadInput, FirmwareFileSaysWhatItIs) {
  const std::string cc = PCCX_C_COMPILER;
  write_file(path("o.c"), "int x;\n");
  ASSERT_EQ(run({cc, "-c", path("o.c"), "-o", path("o.o")}).exit_code, 0);
  EXPECT_TRUE(contains(expect_bad_input({"--firmware", path("o.o")}),
                       "object file (.o, not linked); link it into a shared object"));
  write_file(path("main.c"), "int main(void) { return 0; }\n");
  ASSERT_EQ(run({cc, path("main.c"), "-o", path("prog")}).exit_code, 0);
  const auto exe = expect_bad_input({"--firmware", path("prog")});
  EXPECT_TRUE(contains(exe, "executable (a program, not a firmware object)") ||
              contains(exe, "cannot load"))  // a non-PIE build: dlopen's own words
      << exe;
  write_file(path("p.memh"), "# a stream\n3030001000100090\n");
  EXPECT_TRUE(contains(expect_bad_input({"--firmware", path("p.memh")}),
                       "an instruction stream (.memh); run it with pccx-vp replay"));
}

TEST_F(BadInput, UnknownOptionAndCommand) {
  const auto err = expect_bad_input({"--bogus"});
  EXPECT_TRUE(contains(err, "--bogus")) << err;
  EXPECT_TRUE(contains(err, "--help")) << err;
  const auto err2 = expect_bad_input({"frobnicate"});
  EXPECT_TRUE(contains(err2, "unknown command 'frobnicate'")) << err2;
  const auto err3 = expect_bad_input({"--firmware"});
  EXPECT_TRUE(contains(err3, "firmware")) << err3;
}

TEST_F(BadInput, DisasmOfMalformedMemhNamesTheLine) {
  const auto err = expect_bad_input({"disasm", data_file("malformed.memh")});
  EXPECT_TRUE(contains(err, "malformed.memh:3:")) << err;
  EXPECT_TRUE(contains(err, "expected 16 hex digits, got 15")) << err;
  const auto err2 = expect_bad_input({"disasm", path("absent.memh")});
  EXPECT_TRUE(contains(err2, "absent.memh")) << err2;
  const auto err3 = expect_bad_input({"disasm"});
  EXPECT_TRUE(contains(err3, "disasm takes exactly one .memh file")) << err3;
}

// A missing folder is created (as for --out); one that cannot be, is bad input.
TEST_F(BadInput, TracePathWhoseFolderCannotBeCreated) {
  write_file(path("in_the_way"), "a file where a folder should be\n");
  const auto err = expect_bad_input({"--trace-instructions", path("in_the_way/sub/instr.jsonl")});
  EXPECT_TRUE(contains(err, "in_the_way/sub/instr.jsonl")) << err;
  const auto err2 = expect_bad_input({"--trace-mmio", path("in_the_way/mmio.jsonl")});
  EXPECT_TRUE(contains(err2, "in_the_way/mmio.jsonl")) << err2;
}

}  // namespace
}  // namespace e2e

namespace e2e {
namespace {

// Counts, sizes, seeds and ports are whole numbers in range: a negative or
// overflowing one is refused, never wrapped into a huge unsigned value.
class BadNumbers : public E2E, public ::testing::WithParamInterface<std::vector<std::string>> {};

TEST_P(BadNumbers, AreRefusedWithTheOptionAndTheRange) {
  const auto& p = GetParam();  // option, text, expected words
  std::vector<std::string> args = {"decode", "--model",
                                   std::string(PCCX_SOURCE_DIR) + "/configs/models/tiny.json",
                                   "--validate-only", p[0], p[1]};
  const auto r = vp(args);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, p[0] + " " + p[1] + ": " + p[2])) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Options, BadNumbers,
    ::testing::Values(
        std::vector<std::string>{"--context", "-5", "expected a whole number from 0 to 4294967295"},
        std::vector<std::string>{"--context", "4294967296", "too large"},
        std::vector<std::string>{"--sinks", "1e3", "expected a whole number"},
        std::vector<std::string>{"--ring-cap", "-1", "expected a whole number"},
        std::vector<std::string>{"--reference", "18446744073709551616", "too large"},
        std::vector<std::string>{"--tokens", "-2", "expected a whole number"},
        std::vector<std::string>{"--jobs", "-1", "expected a whole number"},
        std::vector<std::string>{"--gdb", "-3", "expected a whole number"}));

}  // namespace
}  // namespace e2e

namespace e2e {
namespace {

using BadLogModule = E2E;

TEST_F(BadLogModule, AnUnknownModuleIsNamedWithTheNearestOne) {
  const auto r = vp({"--log", "npu.cmdd=debug"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "--log npu.cmdd=debug (log.modules): no module named \"npu.cmdd\"; "
                              "did you mean \"npu.cmd\"?"))
      << r.err;
  const auto far = vp({"--log", "zzz=debug"});
  EXPECT_EQ(far.exit_code, 2) << describe(far);
  EXPECT_TRUE(contains(far.err, "the modules: ")) << far.err;
  EXPECT_TRUE(contains(far.err, "npu.cmd")) << far.err;
  // A module and a prefix of modules are both fine.
  EXPECT_EQ(vp({"--log", "npu.cmd=debug"}).exit_code, 0);
  EXPECT_EQ(vp({"--log", "npu=warning"}).exit_code, 0);
}

}  // namespace
}  // namespace e2e

namespace e2e {
namespace {

// --validate-only reads what the run would read and refuses it with the
// run's own message.
using ValidateOnly = E2E;

TEST_F(ValidateOnly, RefusesABadModelFileAsTheRunDoes) {
  write_file(path("model.json"), "{\"name\": 3}\n");
  const auto check = vp({"decode", "--model", path("model.json"), "--validate-only"});
  const auto run = vp({"decode", "--model", path("model.json")});
  EXPECT_EQ(check.exit_code, 2) << describe(check);
  EXPECT_EQ(run.exit_code, 2) << describe(run);
  EXPECT_EQ(check.err, run.err);
  EXPECT_FALSE(contains(check.err, "configuration is valid")) << check.err;
}

TEST_F(ValidateOnly, RefusesABadSweepFileAsTheRunDoes) {
  write_file(path("sweep.json"), "{\"models\": 5}\n");
  const auto check =
      vp({"decode-table", "--sweep", path("sweep.json"), "--out", "t", "--validate-only"});
  const auto run = vp({"decode-table", "--sweep", path("sweep.json"), "--out", "t2"});
  EXPECT_EQ(check.exit_code, 2) << describe(check);
  EXPECT_EQ(run.exit_code, 2) << describe(run);
  EXPECT_EQ(check.err, run.err);
  EXPECT_TRUE(contains(check.err, "invalid sweep file")) << check.err;
}

// The same for every other file a run reads: the replay's stream and DMA
// file (and its planned descriptors), the firmware, disasm's stream and
// ddr-bench's requests.
TEST_F(ValidateOnly, RefusesEveryOtherBadFileAsTheRunDoes) {
  write_file(path("s.memh"), "3030001000100090\n");
  write_file(path("dma.json"), "[{\"channel\": \"HP9\", \"addr\": 0, \"bytes\": 16}]\n");
  write_file(path("bad.memh"), "30300010001000\n");
  write_file(path("fw.so"), "hello\n");
  write_file(path("req.txt"), "0 hp0 0 64 X\n");
  const std::vector<std::vector<std::string>> cases = {
      {"replay", path("s.memh"), "--dma", path("dma.json")},
      {"replay", data_file("upstream_smoke.memh"), "--auto-dma=0xFFFFFFFFF"},
      {"replay", path("bad.memh")},
      {"disasm", path("bad.memh")},
      {"--firmware", path("fw.so")},
      {"--firmware", path("s.memh")},
      {"ddr-bench", "--requests", path("req.txt")},
  };
  for (const auto& args : cases) {
    auto with = args;
    with.push_back("--validate-only");
    const auto check = vp(with);
    const auto run = vp(args);
    EXPECT_EQ(check.exit_code, 2) << describe(check);
    EXPECT_EQ(run.exit_code, 2) << describe(run);
    EXPECT_EQ(check.err, run.err) << args[0] << " " << args[1];
    EXPECT_FALSE(contains(check.err, "configuration is valid")) << check.err;
  }
}

// A model the decode program cannot run is refused by the host, with the
// program's own limit, by the run and by --validate-only alike.
TEST_F(ValidateOnly, AModelOutsideTheDecodeLimitsIsRefusedBeforeRunning) {
  const std::string model =
      std::string(PCCX_SOURCE_DIR) + "/tests/corpus/configs/decode_head_dim_24.json";
  const auto check = vp({"decode", "--model", model, "--context", "16", "--validate-only"});
  const auto run = vp({"decode", "--model", model, "--context", "16"});
  EXPECT_EQ(check.exit_code, 2) << describe(check);
  EXPECT_EQ(run.exit_code, 2) << describe(run);
  EXPECT_EQ(check.err, run.err);
  EXPECT_TRUE(contains(run.err, "the decode program cannot run this model: head_dim must be a "
                                "multiple of 16"))
      << run.err;
}

TEST_F(ValidateOnly, AcceptsAGoodModelFile) {
  const auto r = vp({"decode", "--model", std::string(PCCX_SOURCE_DIR) + "/configs/models/tiny.json",
                     "--validate-only"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "configuration is valid")) << r.err;
}

}  // namespace
}  // namespace e2e
