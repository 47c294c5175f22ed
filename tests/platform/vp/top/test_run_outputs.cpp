// The run's trace outputs (docs/reference/traces.md) from a decode of the tiny model
// in timing mode and from small firmware written here:
// trace.perfetto.json against the run's own counts and summary,
// signals.vcd's declarations and value changes, and session.pccx read back
// through read_pccx_session, with a corrupted copy caught by its checksum.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "pccx_simctl.h"
#include "pccx_uca_ext.h"
#include "platform/vp/top/run_outputs.h"
#include "platform/workload/decode_runner.h"
#include "platform/workload/llm/model_config.h"
#include "platform_test_util.h"
#include "traces/pccx_session.h"

using namespace pccx;
using namespace pccx::test;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const char* const kChannels[] = {"hp0", "hp1", "hp2", "hp3", "acp_fmap", "acp_result"};

// A fresh output folder per test.
std::string out_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir =
      fs::path(::testing::TempDir()) /
      (std::string("pccx_outputs_") + info->test_suite_name() + "_" + info->name());
  fs::remove_all(dir);
  return dir.string();
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Two tokens of configs/models/tiny.json after 16 of context, timing mode.
workload::decode_report tiny_decode(config::platform_config cfg) {
  cfg.simulation.mode = pccx::config::sim_mode::timing;
  const auto m = llm::load_model(std::string(PCCX_SOURCE_DIR) + "/configs/models/tiny.json");
  workload::decode_options o;
  o.context = 16;
  o.tokens = 2;
  auto rep = workload::run_decode(cfg, m, o);
  EXPECT_EQ(rep.run.exit_code, 0) << rep.run.message;
  return rep;
}

struct perfetto_trace {
  std::map<int, std::string> processes;
  std::map<std::pair<int, int>, std::string> threads;
  std::vector<json> complete, instants, counters;
};

perfetto_trace parse_perfetto(const fs::path& p) {
  const json t = json::parse(read_file(p));
  EXPECT_EQ(t.value("displayTimeUnit", ""), "ns");
  perfetto_trace out;
  for (const auto& e : t.at("traceEvents")) {
    const std::string ph = e.at("ph");
    if (ph == "M" && e["name"] == "process_name") out.processes[e["pid"]] = e["args"]["name"];
    if (ph == "M" && e["name"] == "thread_name")
      out.threads[{e["pid"].get<int>(), e["tid"].get<int>()}] = e["args"]["name"];
    if (ph == "X") out.complete.push_back(e);
    if (ph == "i") out.instants.push_back(e);
    if (ph == "C") out.counters.push_back(e);
  }
  return out;
}

// Bytes under a counter's GB/s step function: GB/s x ns.
double integrate_gbps(const std::vector<json>& counters, int pid, const std::string& name) {
  std::vector<std::pair<double, double>> samples;  // (ts us, GB/s)
  for (const auto& c : counters)
    if (c["pid"] == pid && c["name"] == name) samples.emplace_back(c["ts"], c["args"]["GB/s"]);
  double bytes = 0;
  for (size_t i = 0; i + 1 < samples.size(); ++i)
    bytes += samples[i].second * (samples[i + 1].first - samples[i].first) * 1000.0;
  EXPECT_FALSE(samples.empty()) << "no counter " << name;
  if (!samples.empty()) {
    EXPECT_EQ(samples.back().second, 0.0) << name << " does not end at 0";
  }
  return bytes;
}

}  // namespace

TEST(RunOutputs, PerfettoTraceOfADecode) {
  config::platform_config cfg;
  cfg.output.dir = out_dir();
  cfg.output.perfetto = true;
  const auto rep = tiny_decode(cfg);
  const vp::run_result& r = rep.run;
  const auto t = parse_perfetto(fs::path(cfg.output.dir) / vp::run_outputs::kPerfettoFile);

  // Tracks: a process per part of the platform, a thread per engine and channel.
  EXPECT_EQ(t.processes, (std::map<int, std::string>{
                             {1, "NPU"}, {2, "DMA channels"}, {3, "DDR"}, {4, "Firmware"}}));
  const std::map<std::pair<int, int>, std::string> threads = {{{1, 1}, "cmd (MEMSET)"},
                                                              {{1, 2}, "gemv"},
                                                              {{1, 3}, "gemm"},
                                                              {{1, 4}, "sfu"},
                                                              {{1, 5}, "dma (MEMCPY)"},
                                                              {{2, 1}, "hp0"},
                                                              {{2, 2}, "hp1"},
                                                              {{2, 3}, "hp2"},
                                                              {{2, 4}, "hp3"},
                                                              {{2, 5}, "acp_fmap"},
                                                              {{2, 6}, "acp_result"},
                                                              {{4, 0}, "markers"},
                                                              {{4, 1}, "uca_hal_wait_idle"}};
  EXPECT_EQ(t.threads, threads);

  // One span per retired instruction, on its engine's track, every
  // sequence number once, named by its disassembly.
  std::map<int, uint64_t> per_tid;
  std::set<uint64_t> seqs;
  for (const auto& e : t.complete) {
    if (e["pid"] != 1) continue;
    ++per_tid[e["tid"]];
    seqs.insert(e["args"]["seq"].get<uint64_t>());
    EXPECT_EQ(e["args"]["status"], "ok");
    EXPECT_GE(e["dur"].get<double>(), 0.0);
    EXPECT_FALSE(e["name"].get<std::string>().empty());
  }
  ASSERT_GT(r.instructions_retired, 3000u);
  uint64_t spans = 0;
  for (const auto& [tid, n] : per_tid) spans += n;
  EXPECT_EQ(spans, r.instructions_retired);
  EXPECT_EQ(seqs.size(), r.instructions_retired);
  EXPECT_EQ(*seqs.rbegin(), r.instructions_retired - 1);
  EXPECT_EQ(per_tid[2], counter(r, "gemv_instructions"));
  EXPECT_EQ(per_tid[3], counter(r, "gemm_instructions"));
  EXPECT_EQ(per_tid[4], counter(r, "sfu_instructions"));
  EXPECT_EQ(per_tid[5], counter(r, "dma_instructions"));
  EXPECT_GT(per_tid[1], 0u);

  // DMA spans per channel add up to the channel's bytes and descriptors.
  std::map<int, uint64_t> bytes, descriptors;
  for (const auto& e : t.complete)
    if (e["pid"] == 2) {
      bytes[e["tid"]] += e["args"]["bytes"].get<uint64_t>();
      ++descriptors[e["tid"]];
    }
  for (int ch = 0; ch < 6; ++ch) {
    const auto& s = r.memory["dma"][kChannels[ch]];
    EXPECT_EQ(bytes[ch + 1], s["bytes_done"].get<uint64_t>()) << kChannels[ch];
    EXPECT_EQ(descriptors[ch + 1], s["descriptors_done"].get<uint64_t>()) << kChannels[ch];
  }
  EXPECT_GT(bytes[3], 0u);  // hp2: GEMV weights
  EXPECT_GT(bytes[6], 0u);  // acp_result: KV appends and logits

  // Every firmware marker, in order, at its time.
  ASSERT_EQ(t.instants.size(), r.markers.size());
  ASSERT_GE(r.markers.size(), 2u * (1 + 10 + 2));  // token, 10 layers, exit, end
  for (size_t i = 0; i < r.markers.size(); ++i) {
    EXPECT_EQ(t.instants[i]["name"], r.markers[i]);
    EXPECT_EQ(t.instants[i]["s"], "g");
    EXPECT_NEAR(t.instants[i]["ts"].get<double>() * 1000.0, r.marker_times_ns[i], 1e-6);
  }
  EXPECT_EQ(t.instants[0]["name"], "decode: token 0");

  // The DDR counters carry the bytes summary.json reports.
  const json summary = json::parse(read_file(fs::path(cfg.output.dir) / "summary.json"));
  const json& bw = summary["memory"]["ddr"]["bandwidth"];
  for (const auto& [port, totals] : bw["ports"].items()) {
    const double b = totals["bytes"].get<double>();
    if (b == 0) continue;
    EXPECT_NEAR(integrate_gbps(t.counters, 3, "port " + port), b, 1e-9 * b) << port;
  }
  for (const auto& [cls, totals] : bw["classes"].items()) {
    const double b = totals["bytes"].get<double>();
    if (b == 0) continue;
    EXPECT_NEAR(integrate_gbps(t.counters, 3, "class " + cls), b, 1e-9 * b) << cls;
  }
  const double total = bw["total"]["bytes"].get<double>();
  EXPECT_GT(total, 0.0);
  EXPECT_NEAR(integrate_gbps(t.counters, 3, "total"), total, 1e-9 * total);

  // The decode reports its KV rings' valid tokens once per token: the
  // global ring holds the context and every new token, the local one its
  // window of 8.
  std::vector<double> kv;
  for (const auto& c : t.counters)
    if (c["pid"] == 4 && c["name"] == "kv tokens") kv.push_back(c["args"]["value"]);
  EXPECT_EQ(kv, (std::vector<double>{17 + 8, 18 + 8}));
}

TEST(RunOutputs, VcdOfADecode) {
  config::platform_config cfg;
  cfg.output.dir = out_dir();
  cfg.output.vcd = true;
  tiny_decode(cfg);
  const std::string vcd = read_file(fs::path(cfg.output.dir) / vp::run_outputs::kVcdFile);
  const size_t defs_end = vcd.find("$enddefinitions");
  ASSERT_NE(defs_end, std::string::npos);

  // Declarations: full names (scope.name) -> (width, identifier).
  std::map<std::string, std::pair<int, std::string>> vars;
  std::vector<std::string> scope;
  std::istringstream head(vcd.substr(0, defs_end));
  std::string tok;
  while (head >> tok) {
    if (tok == "$scope") {
      std::string kind, name;
      head >> kind >> name;
      scope.push_back(name);
    } else if (tok == "$upscope") {
      if (!scope.empty()) scope.pop_back();
    } else if (tok == "$var") {
      std::string type, id, name;
      int width = 0;
      head >> type >> width >> id >> name;
      std::string full;
      for (const auto& s : scope) full += s + ".";
      vars[full + name] = {width, id};
    }
  }
  auto var = [&](const std::string& name) -> std::pair<int, std::string> {
    for (const auto& [full, v] : vars)
      if (full.size() >= name.size() &&
          full.compare(full.size() - name.size(), name.size(), name) == 0)
        return v;
    ADD_FAILURE() << "no $var " << name << " in\n" << vcd.substr(0, defs_end);
    return {0, ""};
  };
  for (const char* u : {"gemv", "gemm", "sfu", "dma"})
    EXPECT_EQ(var(std::string("npu.") + u + "_busy").first, 1) << u;
  for (const char* ch : kChannels) EXPECT_EQ(var(std::string("fifo.") + ch + "_bytes").first, 32);
  EXPECT_EQ(var("ddr.inflight_bytes").first, 32);
  for (const char* p : {"hp0", "hp1", "hp2", "hp3", "acp", "cpu"})
    EXPECT_EQ(var(std::string("ddr.") + p + "_inflight_bytes").first, 32);
  EXPECT_EQ(var("ddr.util_permille").first, 16);

  // Value changes after the definitions: the GEMV busy, weights in the HP2
  // FIFO, DDR bytes in flight and a utilisation above zero, at times > 0.
  std::map<std::string, std::set<std::string>> values;  // identifier -> values seen after t = 0
  std::istringstream body(vcd.substr(defs_end));
  std::string line;
  bool after_zero = false;
  while (std::getline(body, line)) {
    if (line.empty()) continue;
    if (line[0] == '#') {
      after_zero = std::stoull(line.substr(1)) > 0;
    } else if (after_zero && line[0] == 'b') {
      const size_t sp = line.find(' ');
      values[line.substr(sp + 1)].insert(line.substr(1, sp - 1));
    } else if (after_zero && (line[0] == '0' || line[0] == '1')) {
      values[line.substr(1)].insert(line.substr(0, 1));
    }
  }
  auto nonzero = [&](const std::string& name) {
    for (const auto& v : values[var(name).second])
      if (v.find('1') != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(nonzero("npu.gemv_busy"));
  EXPECT_TRUE(nonzero("npu.sfu_busy"));
  EXPECT_FALSE(nonzero("npu.gemm_busy"));  // a decode has no GEMM
  EXPECT_TRUE(nonzero("fifo.hp2_bytes"));
  EXPECT_TRUE(nonzero("ddr.inflight_bytes"));
  EXPECT_TRUE(nonzero("ddr.hp2_inflight_bytes"));
  EXPECT_TRUE(nonzero("ddr.util_permille"));

  // No wall-clock date in the header: the same run gives the same bytes.
  const size_t date = vcd.find("$date");
  ASSERT_NE(date, std::string::npos);
  const std::string date_text = vcd.substr(date + 5, vcd.find("$end", date) - date - 5);
  EXPECT_EQ(date_text.find_first_not_of(" \n"), std::string::npos) << date_text;
}

TEST(RunOutputs, PccxSessionOfADecode) {
  config::platform_config cfg;
  cfg.output.dir = out_dir();
  cfg.output.pccx = true;
  const auto rep = tiny_decode(cfg);
  const vp::run_result& r = rep.run;
  const fs::path file = fs::path(cfg.output.dir) / vp::run_outputs::kPccxFile;
  EXPECT_FALSE(fs::exists(file.string() + ".part"));
  const auto s = trace::read_pccx_session(file.string());

  EXPECT_EQ(s.major, 1);
  EXPECT_EQ(s.minor, 1);
  EXPECT_TRUE(s.checksum_ok());
  EXPECT_TRUE(s.warnings.empty());
  const json& h = s.header;
  EXPECT_EQ(h["pccx_lab_version"].get<std::string>().rfind("pccx-vp ", 0), 0u);
  EXPECT_EQ(h["arch"]["mac_dims"], json::array({32, 32}));
  EXPECT_EQ(h["arch"]["isa_version"], "pccx v002");
  EXPECT_NEAR(h["arch"]["peak_tops"].get<double>(), 2176 * 2 * 400e6 / 1e12, 1e-12);
  // 400 MHz: 2.5 ns per core cycle.
  const uint64_t cycles = static_cast<uint64_t>(r.sim_time_ns / 2.5);
  EXPECT_EQ(s.total_cycles, cycles);
  EXPECT_EQ(h["trace"]["cycles"], cycles);
  EXPECT_EQ(h["trace"]["cores"], 12);
  EXPECT_TRUE(h["trace"]["clock_mhz"].is_number_integer());
  EXPECT_EQ(h["trace"]["clock_mhz"], 400);
  EXPECT_EQ(h["payload"]["encoding"], "bincode");
  EXPECT_EQ(h["payload"]["byte_length"], s.payload_bytes);
  EXPECT_TRUE(h["payload"]["checksum_fnv64"].is_number_unsigned());
  EXPECT_EQ(h["format_minor"], 1);

  std::map<std::string, uint64_t> by_type;
  for (const auto& e : s.events) {
    ++by_type[e.event_type];
    EXPECT_LT(e.core_id, 12u);
    EXPECT_LE(e.start_cycle + e.duration, s.total_cycles);
    ASSERT_TRUE(e.api_name.has_value());
  }
  const uint64_t mac = counter(r, "gemv_instructions") + counter(r, "gemm_instructions");
  EXPECT_EQ(by_type["MAC_COMPUTE"], mac);
  EXPECT_EQ(by_type["API_CALL"], r.instructions_retired - mac);
  uint64_t reads = 0;
  for (int ch = 0; ch < 5; ++ch)
    reads += r.memory["dma"][kChannels[ch]]["descriptors_done"].get<uint64_t>();
  EXPECT_EQ(by_type["DMA_READ"], reads);
  EXPECT_EQ(by_type["DMA_WRITE"],
            r.memory["dma"]["acp_result"]["descriptors_done"].get<uint64_t>());
  EXPECT_GE(by_type["BARRIER_SYNC"], 2u);  // at least one uca_sync per token
  EXPECT_GT(by_type["SYSTOLIC_STALL"], 0u);
  uint64_t n = 0;
  for (const auto& [type, count] : by_type) n += count;
  EXPECT_EQ(n, s.events.size());
  EXPECT_EQ(by_type.size(), 6u);

  // A flipped payload byte (a GEMV's duration) is caught by the checksum.
  std::string bytes = read_file(file);
  const uint64_t header_len = bytes.size() - 16 - s.payload_bytes;
  const size_t first_event = 16 + header_len + 16;
  bytes[first_event + 4 + 8] ^= 0x01;  // core_id, start_cycle, then duration's low byte
  const fs::path bad = fs::path(cfg.output.dir) / "corrupt.pccx";
  std::ofstream(bad, std::ios::binary) << bytes;
  const auto c = trace::read_pccx_session(bad.string());
  EXPECT_FALSE(c.checksum_ok());
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("checksum mismatch"), std::string::npos) << c.warnings[0];
  EXPECT_EQ(c.events.size(), s.events.size());
  EXPECT_NE(c.events[0].duration, s.events[0].duration);
}

TEST(RunOutputs, SessionRoundTripsThroughTheReader) {
  const std::string dir = out_dir();
  fs::create_directories(dir);
  const std::string path = dir + "/rt.pccx";
  trace::pccx_session_writer w(path);
  const std::string api = "uca_gemv";
  w.add(0, 10, 20, "MAC_COMPUTE", nullptr);
  w.add(7, 0, 1ull << 40, "DMA_READ", &api);
  w.add(4294967295u, ~0ull, 0, "", nullptr);
  trace::pccx_session_info info;
  info.producer = "test";
  info.isa_version = "pccx v002";
  info.peak_tops = 1.5;
  info.cores = 8;
  info.clock_mhz = 412.5;
  w.finish(info, 123456789012ull);
  EXPECT_FALSE(fs::exists(path + ".part"));

  const std::string bytes = read_file(path);
  ASSERT_GT(bytes.size(), 16u);
  EXPECT_EQ(bytes.substr(0, 4), "PCCX");
  EXPECT_EQ(bytes[4], 1);
  EXPECT_EQ(bytes[5], 1);
  EXPECT_EQ(bytes[6], 0);
  EXPECT_EQ(bytes[7], 0);
  uint64_t header_len = 0;
  for (int i = 0; i < 8; ++i) header_len |= uint64_t(uint8_t(bytes[8 + i])) << (8 * i);
  const json h = json::parse(bytes.substr(16, header_len));
  const std::string payload = bytes.substr(16 + header_len);
  EXPECT_EQ(h["payload"]["byte_length"], payload.size());
  EXPECT_EQ(h["payload"]["checksum_fnv64"].get<uint64_t>(),
            trace::fnv1a64(payload.data(), payload.size()));
  EXPECT_EQ(h["trace"]["clock_mhz"], 412.5);
  // bincode: total_cycles, the event count, then the first event.
  EXPECT_EQ(payload.size(), 8 + 8 + (4 + 8 + 8 + 8 + 11 + 1) + (4 + 8 + 8 + 8 + 8 + 1 + 8 + 8) +
                                (4 + 8 + 8 + 8 + 0 + 1));
  EXPECT_EQ(uint8_t(payload[16]), 0u);
  EXPECT_EQ(uint8_t(payload[20]), 10u);

  const auto s = trace::read_pccx_session(path);
  EXPECT_TRUE(s.checksum_ok());
  EXPECT_EQ(s.total_cycles, 123456789012ull);
  ASSERT_EQ(s.events.size(), 3u);
  EXPECT_EQ(s.events[0].event_type, "MAC_COMPUTE");
  EXPECT_FALSE(s.events[0].api_name);
  EXPECT_EQ(s.events[1].core_id, 7u);
  EXPECT_EQ(s.events[1].duration, 1ull << 40);
  EXPECT_EQ(s.events[1].api_name.value_or(""), "uca_gemv");
  EXPECT_EQ(s.events[2].core_id, 4294967295u);
  EXPECT_EQ(s.events[2].start_cycle, ~0ull);

  // FNV-1a-64 reference values.
  EXPECT_EQ(trace::fnv1a64("", 0), 0xcbf29ce484222325ull);
  EXPECT_EQ(trace::fnv1a64("a", 1), 0xaf63dc4c8601ec8cull);

  // Not a session: wrong magic, wrong major version, cut short.
  auto write_and_read = [&](std::string b) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << b;
    try {
      trace::read_pccx_session(path);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("read without error");
  };
  std::string b = bytes;
  b[0] = 'Q';
  EXPECT_NE(write_and_read(b).find("magic"), std::string::npos);
  b = bytes;
  b[4] = 2;
  EXPECT_NE(write_and_read(b).find("major version 1"), std::string::npos);
  EXPECT_NE(write_and_read(bytes.substr(0, bytes.size() - 3)).find("payload of"),
            std::string::npos);
  // An event count that does not fit: the decode fails and says the checksum does not match.
  b = bytes;
  b[16 + header_len + 8] = 9;
  const std::string why = write_and_read(b);
  EXPECT_NE(why.find("does not decode"), std::string::npos) << why;
  EXPECT_NE(why.find("checksum mismatch"), std::string::npos) << why;
}

namespace {

int counts_marks_and_waits(void) {
  pccx_simctl_counter("fill level", 5);
  uca_memset(0, 1, 2, 3, 4);
  uca_sync(100);
  pccx_simctl_marker("after sync");
  pccx_simctl_counter("fill level", 0x123456789ull);
  return 0;
}

}  // namespace

TEST(RunOutputs, FirmwareCountersWaitsAndMarkers) {
  config::platform_config cfg;
  cfg.output.dir = out_dir();
  cfg.output.perfetto = true;
  const auto r =
      vp::run_simulation(cfg, test_firmware(&counts_marks_and_waits, "counters"), nullptr);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  const auto t = parse_perfetto(fs::path(cfg.output.dir) / vp::run_outputs::kPerfettoFile);
  std::vector<std::pair<double, double>> fill;
  for (const auto& c : t.counters)
    if (c["name"] == "fill level") {
      EXPECT_EQ(c["pid"], 4);
      fill.emplace_back(c["ts"], c["args"]["value"]);
    }
  ASSERT_EQ(fill.size(), 2u);
  EXPECT_EQ(fill[0].second, 5.0);
  EXPECT_EQ(fill[1].second, double(0x123456789ull));
  EXPECT_LT(fill[0].first, fill[1].first);
  // The uca_sync is a wait span on the firmware's track; the MEMSET is on cmd.
  uint64_t waits = 0, memsets = 0;
  for (const auto& e : t.complete) {
    if (e["pid"] == 4 && e["tid"] == 1) {
      ++waits;
      EXPECT_EQ(e["name"], "uca_hal_wait_idle");
      EXPECT_EQ(e["args"]["result"], 0);
    }
    if (e["pid"] == 1 && e["tid"] == 1) {
      ++memsets;
      EXPECT_EQ(e["name"], "MEMSET fmap_shape[1] <- (2, 3, 4)");
    }
  }
  EXPECT_GE(waits, 1u);
  EXPECT_EQ(memsets, 1u);
  ASSERT_EQ(t.instants.size(), 1u);
  EXPECT_EQ(t.instants[0]["name"], "after sync");
  EXPECT_GT(t.instants[0]["ts"].get<double>(), fill[0].first);
}

TEST(RunOutputs, OutputsThatAreOffWriteNothing) {
  config::platform_config cfg;
  cfg.output.dir = out_dir();
  tiny_decode(cfg);
  EXPECT_TRUE(fs::exists(fs::path(cfg.output.dir) / "summary.json"));
  for (const char* f :
       {vp::run_outputs::kPerfettoFile, vp::run_outputs::kVcdFile, vp::run_outputs::kPccxFile})
    EXPECT_FALSE(fs::exists(fs::path(cfg.output.dir) / f)) << f;
}

TEST(RunOutputs, AFolderThatCannotBeCreatedIsBadInput) {
  const std::string dir = out_dir();
  fs::create_directories(dir);
  std::ofstream(dir + "/file") << "x";
  config::platform_config cfg;
  cfg.output.dir = dir + "/file/sub";
  cfg.output.pccx = true;
  try {
    vp::run_simulation(cfg, test_firmware(&counts_marks_and_waits, "counters"), nullptr);
    FAIL() << "expected an input_error";
  } catch (const vp::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("session.pccx"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("output.dir"), std::string::npos) << e.what();
  }
}
