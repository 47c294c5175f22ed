// Bandwidth statistics: the windowed CSV adds up to the bytes moved per port
// and per class, the totals CSV and the JSON summary agree, and the
// per-transaction trace has one record per transaction.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>

#include "ddr_test_bench.h"
#include "traces/jsonl_trace.h"

namespace pccx::test {
namespace {

using mem::ddr_port;
using mem::traffic_class;

constexpr uint64_t kMiB = 1024 * 1024;

std::string temp_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("pccx_ddr_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

std::vector<std::vector<std::string>> read_csv(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

// Four streams of different ports, classes and directions, started at
// different times so the windows see changing mixes.
void mixed_traffic(ddr_system& sys) {
  stream_job job;
  job.bytes = 3 * kMiB + 1234 * 16;
  job.block_bytes = 4096;
  job.cls = traffic_class::weights;
  sys.add(job);
  job.port = ddr_port::hp2;
  job.cls = traffic_class::kv_read;
  job.address = 16 * kMiB;
  job.block_bytes = 1536;
  job.start_at = sc_time(37, SC_US);
  sys.add(job);
  job.port = ddr_port::acp;
  job.cls = traffic_class::kv_write;
  job.write = true;
  job.address = 32 * kMiB;
  job.bytes = 1 * kMiB;
  job.block_bytes = 64;
  job.start_at = sc_time(100, SC_US);
  sys.add(job);
  job.port = ddr_port::cpu;
  job.cls = traffic_class::host;
  job.address = 48 * kMiB;
  job.bytes = 200000;
  job.block_bytes = 100;
  job.start_at = sc_time(5, SC_US);
  sys.add(job);
}

TEST(DdrRecorder, WindowedCsvAddsUpToBytesMoved) {
  ddr_system sys({"stats.window_ns=7000"});
  mixed_traffic(sys);
  run_all();

  std::map<std::string, uint64_t> moved_port, moved_class;
  for (const auto& s : sys.streams) {
    ASSERT_TRUE(s->done && !s->failed);
    moved_port[mem::ddr_port_name(s->job.port)] += s->bytes_done;
    moved_class[mem::traffic_class_name(s->job.cls)] += s->bytes_done;
  }

  const std::string dir = temp_dir("csv");
  sys.ddr->write_csv(dir);
  const auto rows = read_csv(dir + "/ddr_bandwidth.csv");
  ASSERT_GT(rows.size(), 10u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"window_start_ns", "window_end_ns", "kind", "name",
                                               "bytes", "gbps"}));
  std::map<std::string, uint64_t> csv_port, csv_class;
  for (size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 6u);
    const double lo = std::stod(rows[i][0]), hi = std::stod(rows[i][1]);
    EXPECT_DOUBLE_EQ(hi - lo, 7000.0);
    const uint64_t bytes = std::stoull(rows[i][4]);
    EXPECT_NEAR(std::stod(rows[i][5]), bytes / 7000.0, 1e-6);
    (rows[i][2] == "port" ? csv_port : csv_class)[rows[i][3]] += bytes;
  }
  EXPECT_EQ(csv_port, moved_port);
  EXPECT_EQ(csv_class, moved_class);

  // Totals: CSV, JSON summary and the initiators agree.
  const auto summary = sys.ddr->recorder().summary();
  const auto totals = read_csv(dir + "/ddr_totals.csv");
  ASSERT_EQ(totals.size(), 1u + mem::kDdrPorts + mem::kTrafficClasses + 1u);
  uint64_t all = 0;
  for (size_t i = 1; i < totals.size(); ++i) {
    const auto& r = totals[i];
    const std::string kind = r[0], name = r[1];
    const uint64_t bytes = std::stoull(r[3]);
    if (kind == "total") {
      EXPECT_EQ(bytes, summary["total"]["bytes"].get<uint64_t>());
      continue;
    }
    const auto& j = summary[kind == "port" ? "ports" : "classes"][name];
    EXPECT_EQ(bytes, j["bytes"].get<uint64_t>()) << name;
    EXPECT_EQ(bytes, (kind == "port" ? moved_port : moved_class)[name]) << name;
    EXPECT_EQ(std::stoull(r[2]), j["transactions"].get<uint64_t>()) << name;
    EXPECT_NEAR(std::stod(r[9]), j["avg_gbps"].get<double>(), 1e-6) << name;
    if (kind == "port") all += bytes;
  }
  EXPECT_EQ(all, summary["total"]["bytes"].get<uint64_t>());
  EXPECT_EQ(summary["ports"]["hp0"]["transactions"].get<uint64_t>(),
            (3 * kMiB + 1234 * 16 + 4095) / 4096);
  EXPECT_EQ(summary["ports"]["acp"]["write_bytes"].get<uint64_t>(), 1 * kMiB);
  // Average = bytes / (last completion - first arrival).
  const auto& hp2 = summary["ports"]["hp2"];
  EXPECT_NEAR(hp2["avg_gbps"].get<double>(),
              hp2["bytes"].get<double>() /
                  (hp2["last_completion_ns"].get<double>() - hp2["first_arrival_ns"].get<double>()),
              1e-9);
  EXPECT_DOUBLE_EQ(hp2["first_arrival_ns"].get<double>(), 37000.0);
  EXPECT_LE(summary["total"]["peak_gbps"].get<double>(),
            summary["effective_gbps"].get<double>() * 1.01);
  std::filesystem::remove_all(dir);
}

// The peaks of the summary and of the totals CSV are the busiest window of
// each series, and for the total of the ports' sum, window by window.
TEST(DdrRecorder, PeaksAreTheBusiestWindowOfEachSeries) {
  ddr_system sys({"stats.window_ns=7000"});
  mixed_traffic(sys);
  run_all();
  const auto& rec = sys.ddr->recorder();
  ASSERT_GT(rec.window_count(), 10u);
  std::map<std::string, uint64_t> busiest;
  uint64_t busiest_sum = 0;
  for (size_t w = 0; w < rec.window_count(); ++w) {
    uint64_t sum = 0;
    for (size_t p = 0; p < mem::kDdrPorts; ++p) {
      const auto port = static_cast<ddr_port>(p);
      const uint64_t b = rec.window_bytes(port, w);
      busiest[mem::ddr_port_name(port)] = std::max(busiest[mem::ddr_port_name(port)], b);
      sum += b;
    }
    for (size_t c = 0; c < mem::kTrafficClasses; ++c) {
      const auto cl = static_cast<traffic_class>(c);
      const uint64_t b = rec.window_bytes(cl, w);
      busiest[mem::traffic_class_name(cl)] = std::max(busiest[mem::traffic_class_name(cl)], b);
    }
    busiest_sum = std::max(busiest_sum, sum);
  }
  // Mixed traffic: the ports' peaks fall in different windows.
  EXPECT_LT(busiest_sum, busiest["hp0"] + busiest["hp2"] + busiest["acp"] + busiest["cpu"]);

  const auto summary = rec.summary();
  const std::string dir = temp_dir("peaks");
  sys.ddr->write_csv(dir);
  const auto totals = read_csv(dir + "/ddr_totals.csv");
  ASSERT_EQ(totals.size(), 1u + mem::kDdrPorts + mem::kTrafficClasses + 1u);
  for (size_t i = 1; i < totals.size(); ++i) {
    const std::string kind = totals[i][0], name = totals[i][1];
    const uint64_t bytes = kind == "total" ? busiest_sum : busiest.at(name);
    const auto& j = kind == "total"  ? summary["total"]
                    : kind == "port" ? summary["ports"][name]
                                     : summary["classes"][name];
    EXPECT_DOUBLE_EQ(j["peak_gbps"].get<double>(), bytes / 7000.0) << name;
    EXPECT_NEAR(std::stod(totals[i][10]), bytes / 7000.0, 1e-9 * (1 + bytes)) << name;
  }
  EXPECT_DOUBLE_EQ(rec.peak_gbps(ddr_port::hp2), busiest["hp2"] / 7000.0);
  EXPECT_DOUBLE_EQ(rec.peak_gbps(traffic_class::kv_write), busiest["kv_write"] / 7000.0);
  EXPECT_DOUBLE_EQ(rec.peak_gbps_total(), busiest_sum / 7000.0);
  std::filesystem::remove_all(dir);
}

TEST(DdrRecorder, TraceHasOneRecordPerTransaction) {
  ddr_system sys;
  const std::string dir = temp_dir("trace");
  std::filesystem::create_directories(dir);
  auto trace = std::make_unique<trace::jsonl_trace>(dir + "/ddr.jsonl");
  sys.ddr->set_trace(trace.get());
  stream_job job;
  job.bytes = 64 * 1024;
  job.cls = traffic_class::kv_metadata;
  job.address = 0x2000;
  sys.add(job);
  run_all();
  EXPECT_EQ(trace->records(), 16u);
  sys.ddr->set_trace(nullptr);
  trace->close();  // the file in place
  trace.reset();

  std::ifstream in(dir + "/ddr.jsonl");
  std::string line;
  std::getline(in, line);
  const auto r = nlohmann::json::parse(line);
  EXPECT_EQ(r["t_ns"], 0.0);
  EXPECT_EQ(r["port"], "hp0");
  EXPECT_EQ(r["class"], "kv_metadata");
  EXPECT_EQ(r["dir"], "R");
  EXPECT_EQ(r["addr"], "0x2000");
  EXPECT_EQ(r["bytes"], 4096);
  EXPECT_EQ(r["start_ns"], 0.0);
  EXPECT_EQ(r["end_ns"], 1024.0);
  EXPECT_EQ(r["latency_ns"], 1134.0);
  EXPECT_EQ(r["queueing_ns"], 0.0);
  EXPECT_EQ(r["port_wait_ns"], 0.0);
  std::filesystem::remove_all(dir);
}

TEST(DdrRecorder, SummaryCarriesTheEfficiencyBreakdown) {
  ddr_system sys;
  const auto s = sys.ddr->summary();
  EXPECT_EQ(s["mode"], "functional");
  EXPECT_EQ(s["arbitration"], "round_robin");
  EXPECT_NEAR(s["capacity"]["effective_gbps"].get<double>(), 10.971, 0.001);
  EXPECT_NEAR(s["capacity"]["peak_gbps"].get<double>(), 19.2, 1e-9);
  EXPECT_TRUE(s["capacity"].contains("little_gbps"));
  EXPECT_TRUE(s["dram"]["time_ns"].contains("turnaround"));
  EXPECT_TRUE(s["bandwidth"]["ports"].contains("cpu"));
  EXPECT_EQ(s["store"]["allocated_pages"], 0);
}

// A window too fine for the run's length is coarsened by powers of two, so
// the series stays within kMaxWindows; no byte is lost and the summary says
// which window was asked for.
// The plots' series: a cap of a few windows makes the window follow the
// run's length, short run or long, every byte kept.
// Transfers mostly inside one window, some across several and some back in
// an earlier one: each window holds the bytes moved in it (the bytes moved
// by the end of a window rounded down, the rest in the last).
TEST(BandwidthRecorder, EveryTransferLandsInTheWindowsItSpans) {
  const uint64_t window_ticks = sc_core::sc_time(100, sc_core::SC_NS).value();
  mem::bandwidth_recorder rec(sc_core::sc_time(100, sc_core::SC_NS), 19.2e9, 10.97e9);
  std::map<uint64_t, uint64_t> expected;  // window -> bytes of hp0
  std::mt19937_64 rng(5);
  uint64_t t = 0;
  for (int i = 0; i < 5000; ++i) {
    const uint64_t pick = rng() % 10;
    uint64_t start = t + rng() % (window_ticks / 8);
    if (pick == 0 && start > 3 * window_ticks) start -= 3 * window_ticks;  // an earlier window
    const uint64_t span = pick == 1 ? window_ticks * (1 + rng() % 3) : rng() % (window_ticks / 4);
    const uint64_t end = start + span;
    const uint64_t bytes = 16 + rng() % 4096;
    t = std::max(t, start);
    mem::ddr_access a;
    a.port = ddr_port::hp0;
    a.cls = traffic_class::weights;
    a.bytes = bytes;
    a.arrival = a.start = sc_core::sc_time::from_value(start);
    a.end = a.completion = sc_core::sc_time::from_value(end);
    rec.record(a);
    const uint64_t first = start / window_ticks,
                   last = (end > start ? end - 1 : start) / window_ticks;
    uint64_t given = 0;
    for (uint64_t w = first; w <= last; ++w) {
      const uint64_t upto =
          w == last ? bytes
                    : static_cast<uint64_t>(static_cast<unsigned __int128>(bytes) *
                                            ((w + 1) * window_ticks - start) / (end - start));
      expected[w] += upto - given;
      given = upto;
    }
  }
  ASSERT_EQ(rec.window(), sc_core::sc_time(100, sc_core::SC_NS));  // not coarsened
  for (size_t w = 0; w < rec.window_count(); ++w) {
    const auto it = expected.find(w);
    ASSERT_EQ(rec.window_bytes(ddr_port::hp0, w), it == expected.end() ? 0 : it->second) << w;
    ASSERT_EQ(rec.window_bytes(traffic_class::weights, w), it == expected.end() ? 0 : it->second)
        << w;
  }
  // After a reset the same windows start from nothing.
  rec.reset();
  mem::ddr_access a;
  a.port = ddr_port::hp0;
  a.cls = traffic_class::weights;
  a.bytes = 64;
  a.arrival = a.start = sc_core::sc_time(10, sc_core::SC_NS);
  a.end = a.completion = sc_core::sc_time(20, sc_core::SC_NS);
  rec.record(a);
  EXPECT_EQ(rec.window_count(), 1u);
  EXPECT_EQ(rec.window_bytes(ddr_port::hp0, 0), 64u);
}

// A recorder that only plots keeps the same windows and byte counts as a
// full one, so its ddr_bandwidth_plot.csv is the same file.
TEST(BandwidthRecorder, TheSeriesAloneAreTheFullRecordersSeries) {
  const sc_core::sc_time window(100, sc_core::SC_NS);
  mem::bandwidth_recorder full(window, 19.2e9, 10.97e9), series(window, 19.2e9, 10.97e9);
  std::mt19937_64 rng(9);
  uint64_t t = 0;
  for (int i = 0; i < 3000; ++i) {
    mem::ddr_access a;
    a.port = static_cast<ddr_port>(rng() % mem::kDdrPorts);
    a.cls = static_cast<traffic_class>(rng() % mem::kTrafficClasses);
    a.bytes = rng() % 8 == 0 ? 0 : 16 + rng() % 4096;
    t += rng() % 20000;
    a.arrival = a.start = sc_core::sc_time::from_value(t);
    a.end = a.completion = sc_core::sc_time::from_value(t + rng() % 300000);
    full.record(a);
    series.record_series(a);
  }
  ASSERT_EQ(series.window_count(), full.window_count());
  for (size_t w = 0; w < full.window_count(); ++w) {
    for (size_t p = 0; p < mem::kDdrPorts; ++p)
      ASSERT_EQ(series.window_bytes(static_cast<ddr_port>(p), w),
                full.window_bytes(static_cast<ddr_port>(p), w));
    for (size_t c = 0; c < mem::kTrafficClasses; ++c)
      ASSERT_EQ(series.window_bytes(static_cast<traffic_class>(c), w),
                full.window_bytes(static_cast<traffic_class>(c), w));
  }
  EXPECT_EQ(series.total().bytes, full.total().bytes);
  EXPECT_GT(full.total().bytes, 0u);
  const std::filesystem::path dir = temp_dir("series");
  std::filesystem::create_directories(dir);
  full.write_series_csv((dir / "full.csv").string());
  series.write_series_csv((dir / "series.csv").string());
  const auto text = [](const std::filesystem::path& f) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  const std::string a = text(dir / "full.csv"), b = text(dir / "series.csv");
  std::filesystem::remove_all(dir);
  EXPECT_GT(a.size(), 100u);
  EXPECT_EQ(a, b);
}

// The series CSV's numbers are printf's %.10g text, line by line, with a
// window whose bounds and rates are not whole numbers.
TEST(BandwidthRecorder, TheSeriesNumbersArePrintfsText) {
  const sc_core::sc_time window(333, sc_core::SC_PS);
  mem::bandwidth_recorder rec(window, 19.2e9, 10.97e9);
  std::mt19937_64 rng(13);
  uint64_t t = 0;
  for (int i = 0; i < 2000; ++i) {
    mem::ddr_access a;
    a.port = static_cast<ddr_port>(rng() % 2);
    a.cls = static_cast<traffic_class>(rng() % 2);
    a.bytes = 1 + rng() % 70000;
    t += rng() % 2000;
    a.arrival = a.start = sc_core::sc_time::from_value(t);
    a.end = a.completion = sc_core::sc_time::from_value(t + rng() % 5000);
    rec.record(a);
  }
  const std::filesystem::path dir = temp_dir("printf");
  std::filesystem::create_directories(dir);
  rec.write_series_csv((dir / "s.csv").string());
  const auto rows = read_csv((dir / "s.csv").string());
  std::filesystem::remove_all(dir);
  ASSERT_GT(rows.size(), 1000u);
  const double window_ns = 0.333;
  const auto g = [](double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    return std::string(buf);
  };
  for (size_t r = 1; r < rows.size(); ++r) {
    ASSERT_EQ(rows[r].size(), 6u) << r;
    const double lo = std::stod(rows[r][0]);
    const auto w = static_cast<uint64_t>(std::llround(lo / window_ns));
    EXPECT_EQ(rows[r][0], g(static_cast<double>(w) * window_ns)) << r;
    EXPECT_EQ(rows[r][1], g(static_cast<double>(w + 1) * window_ns)) << r;
    EXPECT_EQ(rows[r][5], g(std::stod(rows[r][4]) / window_ns)) << r;
  }
}

TEST(BandwidthRecorder, ASmallWindowCapMakesTheWindowFollowTheRunsLength) {
  for (const double end_us : {2.0, 700.0, 300000.0}) {
    mem::bandwidth_recorder rec(sc_core::sc_time(10, sc_core::SC_NS), 19.2e9, 10.97e9, 2048);
    mem::ddr_access a;
    a.port = ddr_port::hp0;
    a.cls = traffic_class::kv_read;
    a.bytes = 64;
    a.arrival = a.start = sc_core::sc_time(end_us * 0.5, sc_core::SC_US);
    a.end = a.completion = sc_core::sc_time(end_us, sc_core::SC_US);
    rec.record(a);
    EXPECT_LE(rec.window_count(), 2048u) << end_us;
    EXPECT_GE(rec.window_count(), 200u) << end_us;  // fine enough to show a shape
    uint64_t in_windows = 0;
    for (size_t w = 0; w < rec.window_count(); ++w) in_windows += rec.window_bytes(ddr_port::hp0, w);
    EXPECT_EQ(in_windows, 64u) << end_us;
  }
}

TEST(BandwidthRecorder, AFineWindowOverALongRunIsCoarsenedNotUnbounded) {
  const sc_core::sc_time window(1, sc_core::SC_NS);
  mem::bandwidth_recorder rec(window, 19.2e9, 10.97e9);
  const uint64_t span_ns = 4 * mem::bandwidth_recorder::kMaxWindows;  // 4 x the cap at 1 ns
  uint64_t bytes = 0;
  // 64 transfers spread over the span, the last one ending at its last ns.
  for (uint64_t k = 0; k < 64; ++k) {
    const uint64_t t = k == 63 ? span_ns - 201 : k * (span_ns / 64);
    mem::ddr_access a;
    a.port = ddr_port::hp2;
    a.cls = traffic_class::weights;
    a.bytes = 4096;
    a.arrival = a.start = sc_core::sc_time(static_cast<double>(t), sc_core::SC_NS);
    a.end = a.completion = a.start + sc_core::sc_time(200, sc_core::SC_NS);
    rec.record(a);
    bytes += a.bytes;
  }
  EXPECT_LE(rec.window_count(), mem::bandwidth_recorder::kMaxWindows);
  // 1 ns doubled twice: the last window, (4 x cap - 2) / 4, is the cap's last.
  EXPECT_EQ(rec.window(), sc_core::sc_time(4, sc_core::SC_NS));
  uint64_t in_windows = 0;
  for (size_t w = 0; w < rec.window_count(); ++w) in_windows += rec.window_bytes(ddr_port::hp2, w);
  EXPECT_EQ(in_windows, bytes);
  const auto j = rec.summary();
  EXPECT_EQ(j["window_ns"].get<double>(), 4.0);
  EXPECT_EQ(j["window_requested_ns"].get<double>(), 1.0);
  rec.reset();
  EXPECT_EQ(rec.window(), window);
}

}  // namespace
}  // namespace pccx::test
