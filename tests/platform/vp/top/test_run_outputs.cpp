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
  std::set<int> process_sorted;
  std::set<std::pair<int, int>> thread_sorted;
  std::vector<json> events;  // every event, in file order
  std::vector<json> complete, instants, counters, flows;
};

perfetto_trace parse_perfetto(const fs::path& p) {
  const json t = json::parse(read_file(p));
  EXPECT_EQ(t.value("displayTimeUnit", ""), "ns");
  perfetto_trace out;
  for (const auto& e : t.at("traceEvents")) {
    out.events.push_back(e);
    const std::string ph = e.at("ph");
    if (ph == "M" && e["name"] == "process_name") out.processes[e["pid"]] = e["args"]["name"];
    if (ph == "M" && e["name"] == "thread_name")
      out.threads[{e["pid"].get<int>(), e["tid"].get<int>()}] = e["args"]["name"];
    if (ph == "M" && e["name"] == "process_sort_index")
      out.process_sorted.insert(e["pid"].get<int>());
    if (ph == "M" && e["name"] == "thread_sort_index")
      out.thread_sorted.insert({e["pid"].get<int>(), e["tid"].get<int>()});
    if (ph == "X") out.complete.push_back(e);
    if (ph == "i") out.instants.push_back(e);
    if (ph == "C") out.counters.push_back(e);
    if (ph == "s" || ph == "f") out.flows.push_back(e);
  }
  return out;
}

// A ts or dur (microseconds, written with the exact decimals of a tick
// count in picoseconds) in picoseconds.
int64_t ps(const json& us) {
  return std::llround(us.get<double>() * 1e6);
}

using track = std::pair<int, int>;  // (pid, tid)
track track_of(const json& e) {
  return {e["pid"].get<int>(), e["tid"].get<int>()};
}

// The slices of each track as (start, end, index into t.complete), in file
// order.
struct slice_span {
  int64_t start, end;
  int index;
};
std::map<track, std::vector<slice_span>> slices_by_track(const perfetto_trace& t) {
  std::map<track, std::vector<slice_span>> out;
  for (size_t i = 0; i < t.complete.size(); ++i) {
    const json& e = t.complete[i];
    const int64_t start = ps(e["ts"]);
    out[track_of(e)].push_back({start, start + ps(e["dur"]), static_cast<int>(i)});
  }
  return out;
}

// The innermost slice (an index into t.complete) of a track, its slices in
// order of start, that encloses `at`; -1 if none.
int enclosing_slice(const std::vector<slice_span>& slices, int64_t at) {
  auto it = std::upper_bound(slices.begin(), slices.end(), at,
                             [](int64_t a, const slice_span& s) { return a < s.start; });
  while (it != slices.begin()) {
    --it;
    if (it->start <= at && at <= it->end) return it->index;
  }
  return -1;
}

// A flow as bound: the slices (indexes into t.complete) of its start and finish.
struct bound_flow {
  std::string name;
  int from = -1, to = -1;
};

// The rules every trace.perfetto.json keeps (docs/reference/traces.md):
// - every pid an event uses has a process_name and a process_sort_index,
//   every (pid, tid) of a slice, instant or flow a thread_name and a
//   thread_sort_index;
// - on each (pid, tid) the slices, in the order the file holds them, start
//   at non-decreasing times and form a proper stack: a slice either lies
//   inside the one before it that is still open (equal times allowed) or
//   starts at or after its end;
// - each flow id has exactly one start ("s") and one finish ("f", "bp":"e"),
//   with the same name and category, the start not after the finish, and
//   each binds to a slice of its (pid, tid) that encloses its time;
// - every counter sample has an object of numeric args.
// Returns the flows by id.
std::map<uint64_t, bound_flow> expect_valid_trace(const perfetto_trace& t) {
  for (const json& e : t.events) {
    if (e["ph"] == "M" || !e.contains("pid")) continue;
    const int pid = e["pid"];
    EXPECT_TRUE(t.processes.count(pid)) << "no process_name for pid " << pid << ": " << e;
    EXPECT_TRUE(t.process_sorted.count(pid)) << "no process_sort_index for pid " << pid;
    if (!e.contains("tid")) continue;
    EXPECT_TRUE(t.threads.count(track_of(e))) << "no thread_name for " << e;
    EXPECT_TRUE(t.thread_sorted.count(track_of(e))) << "no thread_sort_index for " << e;
  }

  std::map<track, std::vector<std::pair<int64_t, int64_t>>> stacks;
  std::map<track, int64_t> last_start;
  for (const json& e : t.complete) {
    const track tr = track_of(e);
    const int64_t start = ps(e["ts"]), end = start + ps(e["dur"]);
    EXPECT_GE(ps(e["dur"]), 0) << e;
    auto [it, first] = last_start.emplace(tr, start);
    if (!first) {
      EXPECT_GE(start, it->second)
          << "slices out of order on " << tr.first << "/" << tr.second << ": " << e;
      it->second = start;
    }
    auto& stack = stacks[tr];
    while (!stack.empty() && !(stack.back().first <= start && end <= stack.back().second)) {
      EXPECT_GE(start, stack.back().second)
          << "slice overlaps the one before it without nesting in it on " << tr.first << "/"
          << tr.second << ": " << e;
      stack.pop_back();
    }
    stack.emplace_back(start, end);
  }

  auto tracks = slices_by_track(t);  // in order of start, as checked above
  std::map<uint64_t, std::vector<json>> starts, finishes;
  for (const json& f : t.flows) (f["ph"] == "s" ? starts : finishes)[f["id"]].push_back(f);
  std::map<uint64_t, bound_flow> flows;
  for (const auto& [id, s] : starts) {
    EXPECT_EQ(s.size(), 1u) << "flow " << id << " starts " << s.size() << " times";
    const auto f = finishes.find(id);
    if (f == finishes.end()) {
      ADD_FAILURE() << "flow " << id << " never finishes";
      continue;
    }
    EXPECT_EQ(f->second.size(), 1u)
        << "flow " << id << " finishes " << f->second.size() << " times";
    const json& a = s[0];
    const json& b = f->second[0];
    EXPECT_EQ(a["name"], b["name"]) << id;
    EXPECT_EQ(a["cat"], b["cat"]) << id;
    EXPECT_EQ(b.value("bp", ""), "e") << b;
    EXPECT_LE(ps(a["ts"]), ps(b["ts"])) << "flow " << id << " finishes before it starts";
    bound_flow bf{a["name"], enclosing_slice(tracks[track_of(a)], ps(a["ts"])),
                  enclosing_slice(tracks[track_of(b)], ps(b["ts"]))};
    EXPECT_GE(bf.from, 0) << "flow start binds to no slice: " << a;
    EXPECT_GE(bf.to, 0) << "flow finish binds to no slice: " << b;
    flows[id] = bf;
  }
  for (const auto& [id, f] : finishes)
    EXPECT_TRUE(starts.count(id)) << "flow " << id << " finishes without a start";

  for (const json& c : t.counters) {
    EXPECT_TRUE(c["args"].is_object() && !c["args"].empty()) << c;
    for (const auto& [k, v] : c["args"].items()) EXPECT_TRUE(v.is_number()) << c;
  }
  return flows;
}

// A counter's samples, (ts in ps, value of `series`), in file order.
std::vector<std::pair<int64_t, double>> samples(const perfetto_trace& t, int pid,
                                                const std::string& name,
                                                const std::string& series) {
  std::vector<std::pair<int64_t, double>> out;
  for (const auto& c : t.counters)
    if (c["pid"] == pid && c["name"] == name) {
      EXPECT_TRUE(c["args"].contains(series)) << c;
      out.emplace_back(ps(c["ts"]), c["args"].value(series, -1.0));
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
  const std::map<std::pair<int, int>, std::string> threads = {
      {{1, 1}, "cmd (MEMSET)"},
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
      {{4, 1}, "uca_hal_wait_idle"},
      {{4, 2}, "decode: tokens and layers"}};
  EXPECT_EQ(t.threads, threads);
  expect_valid_trace(t);

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

// The decode's markers as slices on their own track: per token, the token
// from "token T" to "token T end" and inside it entry, layer 0 .. 9 and exit,
// each from its marker to the next, tiling the token.
TEST(RunOutputs, PerfettoTokenAndLayerSlicesOfADecode) {
  config::platform_config cfg;
  cfg.output.dir = out_dir();
  cfg.output.perfetto = true;
  const auto rep = tiny_decode(cfg);
  const vp::run_result& r = rep.run;
  const auto t = parse_perfetto(fs::path(cfg.output.dir) / vp::run_outputs::kPerfettoFile);
  expect_valid_trace(t);
  auto marker_ps = [&](const std::string& text) -> int64_t {
    for (size_t i = 0; i < r.markers.size(); ++i)
      if (r.markers[i] == text) return std::llround(r.marker_times_ns[i] * 1000.0);
    ADD_FAILURE() << "no marker " << text;
    return -1;
  };

  std::vector<json> slices;
  for (const auto& e : t.complete)
    if (track_of(e) == track{4, 2}) slices.push_back(e);
  ASSERT_EQ(slices.size(), 2u * (1 + 1 + 10 + 1));  // token, entry, 10 layers, exit
  size_t k = 0;
  for (uint64_t token = 0; token < 2; ++token) {
    const std::string tok = "decode: token " + std::to_string(token);
    const json& ts = slices[k++];
    EXPECT_EQ(ts["name"], "token " + std::to_string(token));
    EXPECT_EQ(ts["cat"], "token");
    EXPECT_EQ(ts["args"]["token"], token);
    EXPECT_FALSE(ts["args"].contains("unfinished"));
    const int64_t start = ps(ts["ts"]), end = start + ps(ts["dur"]);
    EXPECT_EQ(start, marker_ps(tok));
    EXPECT_EQ(end, marker_ps(tok + " end"));
    std::vector<std::string> parts = {"entry"};
    for (int l = 0; l < 10; ++l) parts.push_back("layer " + std::to_string(l));
    parts.push_back("exit");
    int64_t at = start;  // the parts tile the token
    for (size_t p = 0; p < parts.size(); ++p) {
      const json& ps_ = slices[k++];
      EXPECT_EQ(ps_["name"], parts[p]);
      EXPECT_EQ(ps_["cat"], "part");
      EXPECT_EQ(ps_["args"]["token"], token);
      EXPECT_EQ(ps(ps_["ts"]), at) << parts[p];
      if (p >= 1 && p <= 10) {
        EXPECT_EQ(ps_["args"]["layer"], p - 1);
        EXPECT_EQ(ps(ps_["ts"]), marker_ps(tok + " layer " + std::to_string(p - 1)));
      }
      if (parts[p] == "exit") {
        EXPECT_EQ(ps(ps_["ts"]), marker_ps(tok + " exit"));
      }
      at = ps(ps_["ts"]) + ps(ps_["dur"]);
      EXPECT_GT(ps(ps_["dur"]), 0) << parts[p];
    }
    EXPECT_EQ(at, end);
  }
}

// Counter tracks beside the DDR's: each unit's busy fraction (NPU process)
// and each used stream FIFO's level (DMA process) per window, and the
// bandwidth of each traffic class the decode moves.
TEST(RunOutputs, PerfettoCounterTracksOfADecode) {
  config::platform_config cfg;
  cfg.output.dir = out_dir();
  cfg.output.perfetto = true;
  const auto rep = tiny_decode(cfg);
  const vp::run_result& r = rep.run;
  const auto t = parse_perfetto(fs::path(cfg.output.dir) / vp::run_outputs::kPerfettoFile);
  expect_valid_trace(t);
  const int64_t end = std::llround(r.sim_time_ns * 1000.0);
  const int64_t window = std::llround(cfg.stats.window_ns * 1000.0);
  ASSERT_LT(end / window, 2048);  // the tiny decode needs no coarser window

  for (const char* cls : {"weights", "kv_read", "kv_write", "activations"})
    EXPECT_FALSE(samples(t, 3, std::string("class ") + cls, "GB/s").empty()) << cls;

  // Busy fractions: per window, from t = 0, down to 0 at the end; their
  // area is the time the unit's slices cover (each window rounded to 1e-4).
  const std::map<std::string, int> unit_tid = {
      {"gemv", 2}, {"gemm", 3}, {"sfu", 4}, {"dma (MEMCPY)", 5}};
  for (const auto& [unit, tid] : unit_tid) {
    const auto s = samples(t, 1, unit, "busy");
    ASSERT_GE(s.size(), 2u) << unit;
    EXPECT_EQ(s.front().first, 0) << unit;
    EXPECT_EQ(s.back(), (std::pair<int64_t, double>{end, 0.0})) << unit;
    double area = 0;  // ps
    for (size_t i = 0; i + 1 < s.size(); ++i) {
      EXPECT_GE(s[i].second, 0.0) << unit;
      EXPECT_LE(s[i].second, 1.0) << unit;
      EXPECT_EQ(s[i].first % window, 0) << unit << ": a sample off the window grid";
      EXPECT_LT(s[i].first, s[i + 1].first) << unit;
      area += s[i].second * static_cast<double>(s[i + 1].first - s[i].first);
    }
    double busy = 0;
    for (const auto& e : t.complete)
      if (track_of(e) == track{1, tid}) busy += static_cast<double>(ps(e["dur"]));
    EXPECT_NEAR(area, busy, 1e-4 * static_cast<double>(end) + 1) << unit;
    if (unit == "gemm") {
      EXPECT_EQ(busy, 0.0);
    } else {
      EXPECT_GT(busy, 0.0) << unit;
    }
  }

  // FIFO levels: whole bytes, never above the FIFO, for the channels that
  // moved bytes (the decode leaves HP0 and HP1 unused).
  for (int ch = 0; ch < 6; ++ch) {
    const std::string name = std::string(kChannels[ch]) + " fifo";
    const auto s = samples(t, 2, name, "bytes");
    if (r.memory["dma"][kChannels[ch]]["bytes_done"].get<uint64_t>() == 0) {
      EXPECT_TRUE(s.empty()) << name;
      continue;
    }
    ASSERT_FALSE(s.empty()) << name;
    const double capacity = ch <= 3 ? cfg.dma.weight_fifo_bytes : cfg.dma.acp_fifo_bytes;
    double peak = 0;
    for (const auto& [at, bytes] : s) {
      EXPECT_EQ(bytes, std::floor(bytes)) << name;
      EXPECT_GE(bytes, 0.0) << name;
      EXPECT_LE(bytes, capacity) << name;
      EXPECT_LE(at, end) << name;
      peak = std::max(peak, bytes);
    }
    EXPECT_EQ(s.back().first, end) << name;
    if (ch == 2 || ch == 3) {
      EXPECT_GT(peak, 0.0) << name;  // GEMV weights wait in the FIFO
    }
  }
}

// Flow arrows between each DMA descriptor and the instructions that took
// its bytes from the FIFO (GEMVs from HP2/HP3, MEMCPY host->L2 from
// ACP_FMAP) or put them there (MEMCPY L2->host into ACP_RESULT).
TEST(RunOutputs, PerfettoFlowsFromDescriptorsToInstructions) {
  config::platform_config cfg;
  cfg.output.dir = out_dir();
  cfg.output.perfetto = true;
  const auto rep = tiny_decode(cfg);
  const vp::run_result& r = rep.run;
  const auto t = parse_perfetto(fs::path(cfg.output.dir) / vp::run_outputs::kPerfettoFile);
  const auto flows = expect_valid_trace(t);
  ASSERT_FALSE(flows.empty());

  // Instructions' FIFO bytes add up to each channel's bytes.
  std::map<std::string, uint64_t> fifo_bytes;
  for (const auto& e : t.complete)
    if (e["pid"] == 1 && e["args"].contains("fifo_bytes"))
      for (const auto& [ch, b] : e["args"]["fifo_bytes"].items())
        fifo_bytes[ch] += b.get<uint64_t>();
  for (const char* ch : kChannels)
    EXPECT_EQ(fifo_bytes[ch], r.memory["dma"][ch]["bytes_done"].get<uint64_t>()) << ch;

  // Each flow joins a descriptor of its channel and an instruction of the
  // unit at that FIFO's NPU side which moved bytes through it, starting on
  // the one that begins first.
  const std::map<std::string, int> unit_of = {
      {"hp2", 2}, {"hp3", 2}, {"acp_fmap", 5}, {"acp_result", 5}};
  std::set<std::pair<int, std::string>> linked;  // (slice, channel)
  for (const auto& [id, f] : flows) {
    ASSERT_GE(f.from, 0);
    ASSERT_GE(f.to, 0);
    const json& a = t.complete[f.from];
    const json& b = t.complete[f.to];
    EXPECT_LE(ps(a["ts"]), ps(b["ts"])) << id;
    const json& d = a["pid"] == 2 ? a : b;
    const json& i = a["pid"] == 2 ? b : a;
    ASSERT_TRUE(unit_of.count(f.name)) << f.name;
    int ch = 0;
    while (kChannels[ch] != f.name) ++ch;
    EXPECT_EQ(track_of(d), (track{2, ch + 1})) << id;
    EXPECT_EQ(track_of(i), (track{1, unit_of.at(f.name)})) << id;
    EXPECT_GT(i["args"]["fifo_bytes"].value(f.name, 0u), 0u) << id;
    linked.insert({f.from, f.name});
    linked.insert({f.to, f.name});
  }
  // Every descriptor that moved bytes has one, and so has every instruction
  // on each FIFO it moved bytes through.
  std::map<std::string, int> per_channel;
  for (size_t k = 0; k < t.complete.size(); ++k) {
    const json& e = t.complete[k];
    const int i = static_cast<int>(k);
    if (e["pid"] == 2 && e["args"]["bytes"].get<uint64_t>() > 0) {
      EXPECT_TRUE(linked.count({i, kChannels[e["tid"].get<int>() - 1]})) << "no flow for " << e;
    }
    if (e["pid"] == 1 && e["args"].contains("fifo_bytes"))
      for (const auto& [ch, b] : e["args"]["fifo_bytes"].items()) {
        EXPECT_TRUE(linked.count({i, ch})) << "no " << ch << " flow for " << e;
      }
  }
  for (const auto& [id, f] : flows) ++per_channel[f.name];
  for (const char* ch : {"hp2", "hp3", "acp_fmap", "acp_result"})
    EXPECT_GE(per_channel[ch],
              static_cast<int>(r.memory["dma"][ch]["descriptors_done"].get<uint64_t>()))
        << ch;
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
  expect_valid_trace(t);
  EXPECT_FALSE(t.threads.count({4, 2}));  // no token markers: no token track
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

namespace {

void npu_step() {
  uca_memset(0, 1, 2, 3, 4);
  uca_sync(100);
}

// Token markers of a made-up firmware, one token without its end.
int marks_tokens(void) {
  pccx_simctl_marker("prog: token 7");
  npu_step();
  pccx_simctl_marker("prog: token 7 layer 0");
  npu_step();
  pccx_simctl_marker("something else");  // not a token marker: no boundary
  npu_step();
  pccx_simctl_marker("prog: token 7 layer 1");
  npu_step();
  pccx_simctl_marker("prog: token 9 layer 0");  // not the open token's: left out
  npu_step();
  pccx_simctl_marker("prog: token 7 exit");
  npu_step();
  pccx_simctl_marker("prog: token 7 end");
  npu_step();
  pccx_simctl_marker("prog: token 8");
  npu_step();
  pccx_simctl_marker("prog: token 8 layer 0");
  npu_step();
  return 0;
}

}  // namespace

// Any firmware's "<prefix>token T ..." markers become token slices; a token
// without its end marker ends with the run and says so.
TEST(RunOutputs, PerfettoTokenSlicesFromAnyFirmwaresMarkers) {
  config::platform_config cfg;
  cfg.output.dir = out_dir();
  cfg.output.perfetto = true;
  const auto r = vp::run_simulation(cfg, test_firmware(&marks_tokens, "tokens"), nullptr);
  ASSERT_EQ(r.exit_code, 0) << r.message;
  const auto t = parse_perfetto(fs::path(cfg.output.dir) / vp::run_outputs::kPerfettoFile);
  expect_valid_trace(t);
  EXPECT_EQ(t.threads.at({4, 2}), "prog: tokens and layers");
  auto at = [&](const std::string& text) {
    for (size_t i = 0; i < r.markers.size(); ++i)
      if (r.markers[i] == text) return std::llround(r.marker_times_ns[i] * 1000.0);
    ADD_FAILURE() << "no marker " << text;
    return -1ll;
  };
  const long long end = std::llround(r.sim_time_ns * 1000.0);
  struct expected {
    std::string name;
    long long from, to;
  };
  const std::vector<expected> want = {
      {"token 7", at("prog: token 7"), at("prog: token 7 end")},
      {"entry", at("prog: token 7"), at("prog: token 7 layer 0")},
      {"layer 0", at("prog: token 7 layer 0"), at("prog: token 7 layer 1")},
      {"layer 1", at("prog: token 7 layer 1"), at("prog: token 7 exit")},
      {"exit", at("prog: token 7 exit"), at("prog: token 7 end")},
      {"token 8", at("prog: token 8"), end},
      {"entry", at("prog: token 8"), at("prog: token 8 layer 0")},
      {"layer 0", at("prog: token 8 layer 0"), end}};
  std::vector<json> got;
  for (const auto& e : t.complete)
    if (track_of(e) == track{4, 2}) got.push_back(e);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i]["name"], want[i].name) << i;
    EXPECT_EQ(ps(got[i]["ts"]), want[i].from) << i;
    EXPECT_EQ(ps(got[i]["ts"]) + ps(got[i]["dur"]), want[i].to) << i;
  }
  EXPECT_LT(at("prog: token 7 layer 0"), at("prog: token 7 layer 1"));  // time passed
  EXPECT_FALSE(got[0]["args"].contains("unfinished"));
  EXPECT_EQ(got[5]["args"]["unfinished"], true);
  EXPECT_EQ(got[5]["args"]["token"], 8);
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
