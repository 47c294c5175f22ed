// The board's own binary on the platform: every firmware program, built as
// the static AArch64 ELF that goes onto the KV260 (uCA driver, KV260
// bare-metal HAL, kv260_start.c), runs on the instruction-set simulator and
// does what its host-code build does: the same exit code, console lines, NPU
// instruction trace and register writes. (Register reads differ by design:
// the board's HAL polls STATUS where the platform's HAL sleeps on the NPU's
// line.) And each way an ELF can be wrong is a clear error.
#include <elf.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "e2e_util.h"

namespace e2e {
namespace {

std::string elf_of(const std::string& program) {
  return std::string(PCCX_BINARY_DIR) + "/firmware/aarch64/programs/" + program + ".elf";
}

// The trace without what depends on the CPU's own speed: times.
std::vector<json> untimed(const std::vector<json>& records) {
  std::vector<json> out;
  for (json r : records) {
    if (is_marker(r)) continue;
    for (auto it = r.begin(); it != r.end();) {
      const std::string k = it.key();
      if (k == "t_ns" || k.rfind("t_", 0) == 0 || k.find("_ns") != std::string::npos)
        it = r.erase(it);
      else
        ++it;
    }
    out.push_back(r);
  }
  return out;
}

// Console lines, but for those that print the simulated time.
std::vector<std::string> untimed_lines(const json& printed) {
  std::vector<std::string> out;
  for (const auto& line : printed)
    if (line.get<std::string>().find("simulated ns") == std::string::npos) out.push_back(line);
  return out;
}

// Register writes, but for the console's characters (compared as lines,
// above, since some print the simulated time).
std::vector<json> writes_of(const std::vector<json>& mmio) {
  std::vector<json> out;
  for (const json& r : untimed(mmio))
    if (r.value("op", "") == "W" && r.value("reg", "") != "simctl.PUTC") out.push_back(r);
  return out;
}

struct way {
  proc_result r;
  std::vector<json> instructions, mmio;
  json summary;
};

class Aarch64Firmware : public E2E, public ::testing::WithParamInterface<std::string> {
 protected:
  way run_as(const std::string& firmware, const std::string& tag) {
    way w;
    w.r = vp({"--firmware", firmware, "--trace-instructions", tag + "_instr.jsonl",
              "--trace-mmio", tag + "_mmio.jsonl", "--out", tag});
    w.instructions = read_jsonl(path(tag + "_instr.jsonl"));
    w.mmio = read_jsonl(path(tag + "_mmio.jsonl"));
    w.summary = json::parse(read_file(path(tag + "/summary.json")));
    return w;
  }
};

TEST_P(Aarch64Firmware, RunsAsTheHostCodeBuildDoes) {
  const std::string program = GetParam();
  ASSERT_TRUE(fs::exists(elf_of(program))) << elf_of(program);
  const way host = run_as(program, "host");
  const way elf = run_as(elf_of(program), "elf");
  EXPECT_EQ(elf.r.exit_code, host.r.exit_code) << describe(elf.r);
  EXPECT_EQ(elf.summary["outcome"], host.summary["outcome"]);
  EXPECT_EQ(untimed_lines(elf.summary["printed"]), untimed_lines(host.summary["printed"]));
  EXPECT_EQ(elf.summary["instructions_retired"], host.summary["instructions_retired"]);
  EXPECT_EQ(untimed(elf.instructions), untimed(host.instructions));
  EXPECT_EQ(writes_of(elf.mmio), writes_of(host.mmio));
  EXPECT_EQ(host.summary["cpu"]["kind"], "host code");
  EXPECT_EQ(elf.summary["firmware"]["origin"], "AArch64 ELF");
  EXPECT_EQ(elf.summary["cpu"]["kind"], "AArch64 ELF");
  // The program's own instructions take time: more than none, and the
  // summary's figure is instructions x CPI at the A53 clock.
  const double n = elf.summary["cpu"]["instructions"].get<double>();
  EXPECT_GT(n, 1000);
  EXPECT_NEAR(elf.summary["cpu"]["instruction_time_ns"].get<double>(), n * 1e3 / 1333.0, 1e-6 * n);
}

INSTANTIATE_TEST_SUITE_P(Programs, Aarch64Firmware,
                         ::testing::Values("memset_sync", "error_recovery", "dma_roundtrip",
                                           "ffn_example", "gemv_bringup", "gemv_bringup_buggy"));

using Aarch64Time = E2E;

TEST_F(Aarch64Time, CyclesPerInstructionScaleTheCpuTime) {
  const auto fast = vp({"--firmware", elf_of("memset_sync"), "--out", "a"});
  const auto slow = vp({"--firmware", elf_of("memset_sync"), "--out", "b", "--set",
                        "cpu.cycles_per_instruction=4"});
  ASSERT_EQ(fast.exit_code, 0) << describe(fast);
  ASSERT_EQ(slow.exit_code, 0) << describe(slow);
  const auto a = json::parse(read_file(path("a/summary.json")));
  const auto b = json::parse(read_file(path("b/summary.json")));
  // (The counts differ: the board's HAL polls STATUS, fewer times when each
  // poll takes longer.)
  for (const auto* s : {&a, &b}) {
    const double cpi = s == &a ? 1.0 : 4.0;
    EXPECT_NEAR((*s)["cpu"]["instruction_time_ns"].get<double>(),
                (*s)["cpu"]["instructions"].get<double>() * cpi * 1e3 / 1333.0, 1e-6);
  }
  // The instructions lie between register accesses, so the run is longer.
  EXPECT_GT(b["sim_time_ns"].get<double>(), a["sim_time_ns"].get<double>());
}

// ---- bad ELF files: exit code 2, the file and what is wrong ----------------

class Aarch64BadElf : public E2E {
 protected:
  std::vector<uint8_t> program() {
    std::ifstream f(elf_of("memset_sync"), std::ios::binary);
    return {std::istreambuf_iterator<char>(f), {}};
  }
  std::string write(const std::string& name, const std::vector<uint8_t>& bytes) {
    std::ofstream(path(name), std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return path(name);
  }
  void expect_refused(const std::string& file, const std::string& why) {
    const auto r = vp({"--firmware", file});
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_TRUE(contains(r.err, file)) << r.err;
    EXPECT_TRUE(contains(r.err, why)) << r.err;
  }
};

TEST_F(Aarch64BadElf, AnElfForAnotherMachine) {
  auto b = program();
  b[18] = EM_X86_64 & 0xff;
  b[19] = 0;
  expect_refused(write("x86.elf", b), "an ELF for x86-64, not AArch64");
}

TEST_F(Aarch64BadElf, ADynamicElf) {
  auto b = program();
  b[16] = ET_DYN;
  expect_refused(write("dyn.elf", b), "a dynamic ELF");
}

TEST_F(Aarch64BadElf, ASegmentOutsideMemory) {
  const auto r = vp({"--firmware", elf_of("memset_sync"), "--set", "memory_map.ddr_size=0x100000"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "lies outside DDR [0x00000000, 0x00100000)")) << r.err;
}

TEST_F(Aarch64BadElf, AFileThatIsNeitherElfNorSharedObject) {
  expect_refused(write("notes.elf", {'h', 'e', 'l', 'l', 'o', '\n'}),
                 "neither a firmware object (a shared object for this host) nor an AArch64 ELF "
                 "executable: a text file, not a compiled program");
}

TEST_F(Aarch64BadElf, ATruncatedElf) {
  auto b = program();
  b.resize(100);
  expect_refused(write("cut.elf", b), "program header table");
}

}  // namespace
}  // namespace e2e

namespace e2e {
namespace {

// ---- programs that fault: exit code 1, the PC, the address, the symbol ----

std::string test_elf(const std::string& name) {
  return std::string(PCCX_E2E_AARCH64_DIR) + "/" + name + ".elf";
}

using Aarch64Fault = E2E;

TEST_F(Aarch64Fault, AnUndefinedInstructionIsNamedWithItsWordAndFunction) {
  const auto r = vp({"--firmware", test_elf("undefined_instruction")});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "undefined instruction at PC 0x")) << r.err;
  EXPECT_TRUE(contains(r.err, "(pccx_firmware_main")) << r.err;
  EXPECT_TRUE(contains(r.err, "instruction 0x00000000")) << r.err;
}

TEST_F(Aarch64Fault, ALoadFromUnmappedMemoryNamesTheAddress) {
  const auto r = vp({"--firmware", test_elf("unmapped_load")});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "load from 0x200000000 (4 bytes), where no memory is mapped")) << r.err;
  EXPECT_TRUE(contains(r.err, "pccx_firmware_main")) << r.err;
}

TEST_F(Aarch64Fault, AWideRegisterAccessIsAnAlignmentFault) {
  const auto r = vp({"--firmware", test_elf("wide_register_access")});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "8-byte load from 0xa0000000")) << r.err;
  EXPECT_TRUE(contains(r.err, "aligned 32-bit accesses only")) << r.err;
}

TEST_F(Aarch64Fault, AJumpToZeroNamesTheCaller) {
  const auto r = vp({"--firmware", test_elf("null_call")});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "jump to address 0")) << r.err;
  EXPECT_TRUE(contains(r.err, "LR 0x")) << r.err;
}

TEST_F(Aarch64Fault, ASpinWithoutDeviceAccessEndsAtTheWallClockLimit) {
  const auto r = vp({"--firmware", test_elf("spin"), "--set", "simulation.max_wall_s=1"});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_FALSE(r.timed_out);
  EXPECT_TRUE(contains(r.err, "simulation.max_wall_s")) << r.err;
}

TEST_F(Aarch64Fault, TheReturnValueOfTheProgramIsTheExitCode) {
  const auto r = vp({"--firmware", test_elf("exit_code"), "--out", "o"});
  EXPECT_EQ(r.exit_code, 1) << describe(r);  // a nonzero exit code fails the run
  EXPECT_TRUE(contains(r.err + r.out, "returned 7")) << r.err << r.out;
  EXPECT_EQ(json::parse(read_file(path("o/summary.json")))["exit_code"], 7);
}

}  // namespace
}  // namespace e2e

namespace e2e {
namespace {

// ---- the decode program as the board's binary -------------------------------

using Aarch64Decode = E2E;

TEST_F(Aarch64Decode, TheTinyFunctionalDecodeGivesTheSameLogitsBothWays) {
  const std::vector<std::string> common = {"decode", "--model", std::string(PCCX_SOURCE_DIR) +
                                           "/configs/models/tiny.json", "--tokens", "2", "--set",
                                           "simulation.mode=functional", "--reference", "5"};
  auto host_args = common, elf_args = common;
  host_args.insert(host_args.end(), {"--json", "host.json"});
  elf_args.insert(elf_args.end(), {"--json", "elf.json", "--firmware", elf_of("gemma_decode")});
  const auto h = vp(host_args);
  const auto e = vp(elf_args);
  ASSERT_EQ(h.exit_code, 0) << describe(h);
  ASSERT_EQ(e.exit_code, 0) << describe(e);
  const auto hj = json::parse(read_file(path("host.json")));
  const auto ej = json::parse(read_file(path("elf.json")));
  const auto& hr = hj.contains("report") ? hj["report"] : hj;
  const auto& er = ej.contains("report") ? ej["report"] : ej;
  EXPECT_EQ(er["reference_cosine"], hr["reference_cosine"]);
  EXPECT_EQ(er["instructions"], hr["instructions"]);
  EXPECT_FALSE(hr.contains("cpu"));
  ASSERT_TRUE(er.contains("cpu")) << er.dump();
  EXPECT_GT(er["cpu"]["instructions_per_token"][0].get<double>(), 1000);
}

TEST_F(Aarch64Decode, AGemmaTokenAt1KRunsFromTheElfAndReportsTheCpuTime) {
  const auto r = vp({"decode", "--model",
                     std::string(PCCX_SOURCE_DIR) + "/configs/models/gemma3n-e4b.json",
                     "--context", "1024", "--tokens", "1", "--set", "simulation.mode=timing",
                     "--firmware", elf_of("gemma_decode")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "token 0 firmware CPU (AArch64 ELF): ")) << r.out;
  EXPECT_TRUE(contains(r.out, " us at the A53 clock")) << r.out;
}

TEST_F(Aarch64Decode, ASharedObjectIsNotTheDecodesElf) {
  const auto r = vp({"decode", "--model",
                     std::string(PCCX_SOURCE_DIR) + "/configs/models/tiny.json", "--firmware",
                     project_firmware("memset_sync")});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "this is not an AArch64 ELF")) << r.err;
}

}  // namespace
}  // namespace e2e

namespace e2e {
namespace {

// ---- GDB: Debian's gdb-multiarch against pccx-vp --gdb ----------------------

using Aarch64Gdb = E2E;

TEST_F(Aarch64Gdb, BreakBacktraceWatchAnNpuRegisterStepAndDetach) {
  const std::string gdb = find_in_path("gdb-multiarch");
  ASSERT_FALSE(gdb.empty()) << "gdb-multiarch is not installed (apt-get install gdb-multiarch)";
  const std::string port = std::to_string(20000 + ::getpid() % 20000);
  const std::string elf = elf_of("memset_sync");
  // pccx-vp waits for the debugger; gdb retries its connection until the
  // server listens.
  const std::string script =
      "'" + vp_exe() + "' --firmware '" + elf + "' --gdb " + port +
      " --trace-mmio mmio.jsonl > vp.out 2> vp.err & '" + gdb + "' -batch -nx -ex 'file " + elf +
      "' -ex 'target remote :" + port +
      "' -ex 'break pccx_firmware_main' -ex 'continue' -ex 'watch *(volatile unsigned int*)0xA0000004'"
      " -ex 'continue' -ex 'bt 1' -ex 'x/x 0xA0000008' -ex 'stepi' -ex 'delete'"
      " -ex 'break uca_sync' -ex 'continue' -ex 'info registers pc' -ex 'bt' -ex 'delete'"
      " -ex 'detach' > gdb.out 2>&1; wait %1";
  const auto r = run({"sh", "-c", script}, std::chrono::seconds(90));
  ASSERT_EQ(r.exit_code, 0) << describe(r) << read_file(path("gdb.out")) << read_file(path("vp.err"));
  const std::string out = read_file(path("gdb.out"));
  EXPECT_TRUE(contains(out, "Breakpoint 1, 0x")) << out;
  EXPECT_TRUE(contains(out, "in pccx_firmware_main ()")) << out;
  // The first instruction word's high half reaches INSTR_HI (CMD_IN).
  EXPECT_TRUE(contains(out, "Hardware watchpoint 2: *(volatile unsigned int*)0xA0000004")) << out;
  EXPECT_TRUE(contains(out, "Old value = 0")) << out;
  EXPECT_TRUE(contains(out, "#0  0x")) << out;
  EXPECT_TRUE(contains(out, "in uca_hal_issue_instr ()")) << out;
  // STATUS read by the debugger without a bus access: busy.
  EXPECT_TRUE(contains(out, "0xa0000008:\t0x00000001")) << out;
  // At uca_sync: the PC there, and the calls that led to it.
  EXPECT_TRUE(contains(out, "Breakpoint 3, 0x")) << out;
  EXPECT_TRUE(contains(out, "<uca_sync>")) << out;
  EXPECT_TRUE(contains(out, "#0  0x")) << out;
  EXPECT_TRUE(contains(out, "in uca_sync ()")) << out;
  EXPECT_TRUE(contains(out, "#1  0x")) << out;
  EXPECT_TRUE(contains(out, "in pccx_firmware_main ()")) << out;
  EXPECT_TRUE(contains(out, "[Inferior 1 (Remote target) detached]")) << out;
  // After the detach the program ran to its end; the debugger's reads left
  // no trace on the bus: the MMIO trace has the program's accesses only,
  // those of a run without the debugger. (The simulated time the program
  // reads may differ by an instruction's time: a watchpoint stop ends the
  // engine's block, docs/guides/firmware.md.)
  EXPECT_TRUE(contains(read_file(path("vp.err")), "returned 0")) << read_file(path("vp.err"));
  const auto plain = vp({"--firmware", elf, "--trace-mmio", "plain.jsonl"});
  ASSERT_EQ(plain.exit_code, 0) << describe(plain);
  const auto accesses = [](std::vector<json> records) {
    std::vector<json> out;
    for (json& r : untimed(records)) {
      if (r.value("reg", "").rfind("simctl.TIME_NS", 0) == 0 || r.value("reg", "") == "simctl.PUTC")
        r.erase("value");
      out.push_back(r);
    }
    return out;
  };
  EXPECT_EQ(accesses(read_jsonl(path("mmio.jsonl"))), accesses(read_jsonl(path("plain.jsonl"))));
}

TEST_F(Aarch64Gdb, TheDebuggerIsForElfFirmwareOnly) {
  const auto r = vp({"--firmware", "memset_sync", "--gdb", "1234"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "--gdb needs an AArch64 ELF firmware")) << r.err;
}

}  // namespace
}  // namespace e2e
