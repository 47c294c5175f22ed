// `pccx-vp replay FILE.memh`: a valid stream with DMA descriptors and a
// preload retires every word; a malformed line is rejected before the run
// as FILE:LINE; an illegal word is reported by the NPU's decoder against
// its line, and --keep-going reports every one; a descriptor the channel
// drops is reported against its JSON pointer, with the word left waiting;
// a DMA file with a mistake names its JSON pointer.
#include "e2e_util.h"

namespace e2e {
namespace {

using Replay = E2E;

TEST_F(Replay, ValidStreamRetiresEveryWord) {
  const auto r = vp({"replay", data_file("replay_ok.memh"), "--dma", data_file("replay_ok.json"),
                     "--json", "r.json", "--trace-instructions", "instr.jsonl"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const json j = json::parse(read_file(path("r.json")));
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["words"], 13);
  EXPECT_EQ(j["instructions_retired"], 13);
  EXPECT_EQ(j["words_sent"], 13);
  EXPECT_EQ(j["descriptors"], 2);
  EXPECT_EQ(j["preloads"], 1);
  EXPECT_TRUE(j["npu_errors"].empty()) << j.dump(2);
  EXPECT_TRUE(j["dma_errors"].empty()) << j.dump(2);
  EXPECT_GT(j["stream_ns"].get<double>(), 0);
  EXPECT_GE(j["sim_time_ns"].get<double>(), j["stream_ns"].get<double>());
  // Per-instruction timing, each word with its line.
  ASSERT_EQ(j["instructions"].size(), 13u) << j.dump(2);
  EXPECT_EQ(j["instructions"][0]["line"], 2);
  EXPECT_EQ(j["instructions"][1]["line"], 4);
  EXPECT_EQ(j["instructions"][12]["line"], 16);
  EXPECT_TRUE(j["instructions"][1].contains("retire_ns")) << j["instructions"][1].dump();
  EXPECT_TRUE(contains(r.out, "instructions retired: 13 of 13")) << r.out;
  EXPECT_TRUE(contains(r.out, "MEMCPY host->L2")) << r.out;
  // The MMIO path: every word is an INSTR_LO/INSTR_HI pair from the CPU.
  const auto mmio = vp({"replay", data_file("replay_ok.memh"), "--dma", data_file("replay_ok.json"),
                        "--trace-mmio", "mmio.jsonl"});
  ASSERT_EQ(mmio.exit_code, 0) << describe(mmio);
  // Each INSTR_HI names the word its pair issued, disassembled as the
  // instruction trace has it.
  std::size_t hi = 0;
  for (const auto& rec : without_markers(read_jsonl(path("mmio.jsonl")))) {
    if (rec.value("reg", "") != "npu.INSTR_HI") continue;
    ASSERT_LT(hi, j["instructions"].size());
    EXPECT_EQ(rec["word"], j["instructions"][hi]["word"]) << rec.dump();
    EXPECT_EQ(rec["disasm"], j["instructions"][hi]["disasm"]) << rec.dump();
    ++hi;
  }
  EXPECT_EQ(hi, 13u);
}

TEST_F(Replay, MalformedLineIsRejectedWithItsLine) {
  const std::string file = data_file("replay_malformed.memh");
  const auto r = vp({"replay", file, "--json", "r.json"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, file + ":3: expected 16 hex digits, got 15")) << r.err;
  EXPECT_FALSE(contains(r.err, "instructions retired")) << r.err;  // nothing ran
  const json j = json::parse(read_file(path("r.json")));
  EXPECT_EQ(j["status"], "bad_input");
  EXPECT_TRUE(contains(j["error"], ":3:")) << j.dump();
}

TEST_F(Replay, IllegalWordIsReportedAgainstItsLine) {
  const std::string file = data_file("replay_illegal.memh");
  const auto r = vp({"replay", file, "--json", "r.json"});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "replay failed: " + file + ":5: ERR_UNKNOWN_OPCODE")) << r.err;
  EXPECT_TRUE(contains(r.out, "NPU error at " + file + ":5 (word 2): ERR_UNKNOWN_OPCODE")) << r.out;
  const json j = json::parse(read_file(path("r.json")));
  EXPECT_EQ(j["status"], "failed");
  ASSERT_EQ(j["npu_errors"].size(), 1u) << j.dump(2);
  EXPECT_EQ(j["npu_errors"][0]["line"], 5);
  EXPECT_EQ(j["npu_errors"][0]["seq"], 2);
  EXPECT_EQ(j["npu_errors"][0]["code"], 1);
  EXPECT_EQ(j["npu_errors"][0]["name"], "ERR_UNKNOWN_OPCODE");
  EXPECT_EQ(j["instructions_retired"], 2);
  EXPECT_TRUE(j["stopped"].get<bool>());

  // --keep-going clears each error: both illegal words, the rest retire.
  const auto all = vp({"replay", file, "--keep-going", "--json", "k.json"});
  EXPECT_EQ(all.exit_code, 1) << describe(all);
  const json k = json::parse(read_file(path("k.json")));
  ASSERT_EQ(k["npu_errors"].size(), 2u) << k.dump(2);
  EXPECT_EQ(k["npu_errors"][0]["line"], 5);
  EXPECT_EQ(k["npu_errors"][1]["line"], 6);
  EXPECT_EQ(k["npu_errors"][1]["name"], "ERR_RESERVED_BITS");
  EXPECT_EQ(k["instructions_retired"], 3);

  // Strict mode ends the run at the error; the line is still reported.
  const auto strict = vp({"replay", file, "--strict"});
  EXPECT_EQ(strict.exit_code, 1) << describe(strict);
  EXPECT_TRUE(contains(strict.err, file + ":5: ERR_UNKNOWN_OPCODE")) << strict.err;
}

TEST_F(Replay, DmaFaultIsReportedAgainstItsDescriptor) {
  // The ACP_FMAP descriptor is misaligned: the channel drops it, and the
  // MEMCPY that waits for its bytes never completes.
  write_file(path("dma.json"), R"([{"channel": "ACP_FMAP", "addr": "0x10000008", "bytes": 128},
      {"channel": "ACP_RESULT", "addr": "0x10001000", "bytes": 128}])");
  const std::string file = data_file("replay_ok.memh");
  const auto r = vp({"replay", file, "--dma", "dma.json", "--json", "r.json"});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "replay failed: dma.json: /0: ACP_FMAP descriptor: ERR_ALIGN_ADDR"))
      << r.err;
  const json j = json::parse(read_file(path("r.json")));
  ASSERT_EQ(j["dma_errors"].size(), 1u) << j.dump(2);
  EXPECT_EQ(j["dma_errors"][0]["pointer"], "/0");
  EXPECT_EQ(j["dma_errors"][0]["reasons"][0], "ERR_ALIGN_ADDR");
  EXPECT_EQ(j["first_pending"]["line"], 4) << j.dump(2);
  EXPECT_FALSE(j["idle"].get<bool>());
}

TEST_F(Replay, DmaFileMistakesNameTheirPointer) {
  write_file(path("bad.json"),
             R"({"descriptors": [{"channel": "ACP_FMAPP", "addr": "0x1000", "bytes": 128},)"
             R"( {"channel": "HP0", "bytes": 64, "before_line": 3}],)"
             R"( "preload": [{"addr": "0x0", "hex": "0g"}]})");
  const auto r = vp({"replay", data_file("replay_ok.memh"), "--dma", "bad.json"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "invalid DMA file:")) << r.err;
  EXPECT_TRUE(contains(r.err, "bad.json: /descriptors/0/channel: expected one of")) << r.err;
  EXPECT_TRUE(contains(r.err, "bad.json: /descriptors/1/addr: missing")) << r.err;

  write_file(path("lines.json"),
             R"([{"channel": "HP0", "addr": 0, "bytes": 64, "before_line": 3}])");
  const auto l = vp({"replay", data_file("replay_ok.memh"), "--dma", "lines.json"});
  EXPECT_EQ(l.exit_code, 2) << describe(l);
  EXPECT_TRUE(contains(l.err, "lines.json: /0/before_line: line 3 of")) << l.err;
  EXPECT_TRUE(contains(l.err, "holds no instruction word")) << l.err;
}

}  // namespace
}  // namespace e2e
