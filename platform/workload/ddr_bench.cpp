#include "platform/workload/ddr_bench.h"

#include <tlm_utils/simple_initiator_socket.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <systemc>
#include <tlm>

#include "models/memory/ddr/ddr_controller.h"
#include "platform/vp/top/memory_params.h"

namespace pccx::workload {

using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

std::optional<mem::ddr_port> parse_port(const std::string& name) {
  for (size_t p = 0; p < mem::kDdrPorts; ++p)
    if (name == mem::ddr_port_name(static_cast<mem::ddr_port>(p)))
      return static_cast<mem::ddr_port>(p);
  return std::nullopt;
}

// "64", "4KiB", "64MiB", "4GiB", "1K", "0x1000".
uint64_t parse_bytes(const std::string& key, const std::string& v) {
  size_t used = 0;
  uint64_t n = 0;
  try {
    n = std::stoull(v, &used, 0);
  } catch (const std::exception&) {
    throw std::invalid_argument(key + "=" + v + ": expected a byte count such as 64, 4KiB or 1GiB");
  }
  const std::string unit = v.substr(used);
  const std::pair<const char*, uint64_t> units[] = {
      {"", 1},          {"B", 1},          {"K", 1ull << 10}, {"KiB", 1ull << 10},
      {"M", 1ull << 20}, {"MiB", 1ull << 20}, {"G", 1ull << 30}, {"GiB", 1ull << 30}};
  for (const auto& [u, scale] : units)
    if (unit == u) {
      if (n > UINT64_MAX / scale) throw std::invalid_argument(key + "=" + v + ": too large");
      return n * scale;
    }
  throw std::invalid_argument(key + "=" + v + ": unknown unit '" + unit +
                              "' (use B, KiB, MiB or GiB)");
}

double parse_number(const std::string& key, const std::string& v) {
  size_t used = 0;
  double d = 0;
  try {
    d = std::stod(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || !std::isfinite(d))
    throw std::invalid_argument(key + "=" + v + ": expected a number");
  return d;
}

std::string gbps(double bytes_per_ns) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(2) << bytes_per_ns << " GB/s";
  return s.str();
}

// Issues one stream's transactions: each at the latest of its predecessor's
// issue plus the rate gap and the completion of the request `outstanding`
// places back, running ahead of the kernel by at most a quantum.
class traffic_generator : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(traffic_generator);
  tlm_utils::simple_initiator_socket<traffic_generator> socket;

  struct figures {
    uint64_t transactions = 0, bytes = 0, read_bytes = 0, write_bytes = 0;
    double first_issue_ns = -1, last_end_ns = 0;
    double latency_sum_ns = 0, latency_max_ns = 0;
  };

  traffic_generator(sc_core::sc_module_name name, const ddr_bench_stream& s,
                    std::vector<ddr_request> replay, uint32_t replay_outstanding,
                    const sc_time& quantum)
      : sc_core::sc_module(name),
        socket("socket"),
        stream_(s),
        replay_(std::move(replay)),
        outstanding_(replay_.empty() ? s.outstanding : replay_outstanding),
        quantum_(quantum) {
    SC_THREAD(run);
  }

  const figures& result() const { return figures_; }
  const ddr_bench_stream& stream() const { return stream_; }
  bool replays() const { return !replay_.empty(); }

 private:
  struct request {
    uint64_t address;
    uint32_t bytes;
    bool write;
    double not_before_ns;
  };

  uint64_t count() const {
    return replay_.empty() ? (stream_.bytes + stream_.size - 1) / stream_.size : replay_.size();
  }

  request next(uint64_t i) {
    if (!replay_.empty()) {
      const ddr_request& r = replay_[i];
      return {r.address, r.bytes, r.write, r.time_ns};
    }
    const uint64_t slots = stream_.span / stream_.size;
    uint64_t offset = 0;
    switch (stream_.pattern) {
      case access_pattern::sequential: offset = (i % slots) * stream_.size; break;
      case access_pattern::strided: offset = (i * stream_.stride) % (slots * stream_.size); break;
      case access_pattern::random: offset = (rng_() % slots) * stream_.size; break;
    }
    // Writes spread evenly: transaction i writes when the running count of
    // writes owed, i x (1 - reads), passes a whole number.
    const double w = 1.0 - stream_.reads;
    const bool write = std::floor((i + 1) * w + 1e-9) > std::floor(i * w + 1e-9);
    return {stream_.base + offset, stream_.size, write, 0.0};
  }

  void run() {
    rng_.seed(stream_.seed);
    const uint64_t n = count();
    std::vector<double> done(outstanding_, 0.0);  // completions, a ring
    double issue_ns = 0;
    std::vector<uint8_t> data;
    tlm::tlm_generic_payload tx;
    mem::ddr_traffic ext(stream_.port, stream_.cls);
    tx.set_extension(&ext);
    for (uint64_t i = 0; i < n; ++i) {
      const request r = next(i);
      if (i > 0 && stream_.rate_gbps > 0) issue_ns += r.bytes / stream_.rate_gbps;
      issue_ns = std::max({issue_ns, done[i % outstanding_], r.not_before_ns});
      const double now_ns = sc_core::sc_time_stamp().to_seconds() * 1e9;
      if (issue_ns - now_ns > quantum_.to_seconds() * 1e9) wait(sc_time(issue_ns - now_ns, SC_NS));
      const double base_ns = sc_core::sc_time_stamp().to_seconds() * 1e9;
      issue_ns = std::max(issue_ns, base_ns);
      data.resize(r.bytes);
      tx.set_command(r.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      tx.set_address(r.address);
      tx.set_data_ptr(data.data());
      tx.set_data_length(r.bytes);
      tx.set_streaming_width(r.bytes);
      tx.set_byte_enable_ptr(nullptr);
      tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      sc_time delay(std::max(0.0, issue_ns - base_ns), SC_NS);
      socket->b_transport(tx, delay);
      if (tx.get_response_status() != tlm::TLM_OK_RESPONSE) {
        tx.clear_extension(&ext);
        throw std::invalid_argument(std::string(name()) + ": the DDR refused the " +
                                    (r.write ? "write" : "read") + " of " +
                                    std::to_string(r.bytes) + " bytes at offset " +
                                    std::to_string(r.address) + " (" +
                                    tx.get_response_string() + ")");
      }
      const double completion_ns = base_ns + delay.to_seconds() * 1e9;
      done[i % outstanding_] = completion_ns;
      figures_.transactions++;
      figures_.bytes += r.bytes;
      (r.write ? figures_.write_bytes : figures_.read_bytes) += r.bytes;
      if (figures_.first_issue_ns < 0) figures_.first_issue_ns = issue_ns;
      figures_.last_end_ns =
          std::max(figures_.last_end_ns, ext.transfer_end.to_seconds() * 1e9);
      const double latency = completion_ns - issue_ns;
      figures_.latency_sum_ns += latency;
      figures_.latency_max_ns = std::max(figures_.latency_max_ns, latency);
    }
    tx.clear_extension(&ext);
    const double now_ns = sc_core::sc_time_stamp().to_seconds() * 1e9;
    const double last = *std::max_element(done.begin(), done.end());
    if (last > now_ns) wait(sc_time(last - now_ns, SC_NS));
  }

  ddr_bench_stream stream_;
  std::vector<ddr_request> replay_;
  uint32_t outstanding_;
  sc_time quantum_;
  std::mt19937_64 rng_;
  figures figures_;
};

nlohmann::ordered_json figures_json(const traffic_generator::figures& f) {
  nlohmann::ordered_json j;
  const double span = f.last_end_ns - std::max(0.0, f.first_issue_ns);
  j["transactions"] = f.transactions;
  j["bytes"] = f.bytes;
  j["read_bytes"] = f.read_bytes;
  j["write_bytes"] = f.write_bytes;
  j["gbps"] = span > 0 ? static_cast<double>(f.bytes) / span : 0.0;
  j["latency_mean_ns"] = f.transactions ? f.latency_sum_ns / f.transactions : 0.0;
  j["latency_max_ns"] = f.latency_max_ns;
  return j;
}

const char* pattern_name(access_pattern p) {
  switch (p) {
    case access_pattern::sequential: return "sequential";
    case access_pattern::strided: return "strided";
    case access_pattern::random: return "random";
  }
  return "?";
}

}  // namespace

ddr_bench_stream parse_stream(const std::string& spec) {
  ddr_bench_stream s;
  std::stringstream in(spec);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw std::invalid_argument("--stream " + spec + ": '" + item + "' is not KEY=VALUE");
    const std::string k = item.substr(0, eq), v = item.substr(eq + 1);
    if (k == "port") {
      auto p = parse_port(v);
      if (!p) throw std::invalid_argument("port=" + v + ": expected hp0, hp1, hp2, hp3, acp or cpu");
      s.port = *p;
    } else if (k == "pattern") {
      if (v == "sequential") s.pattern = access_pattern::sequential;
      else if (v == "strided") s.pattern = access_pattern::strided;
      else if (v == "random") s.pattern = access_pattern::random;
      else throw std::invalid_argument("pattern=" + v + ": expected sequential, strided or random");
    } else if (k == "class") {
      auto c = mem::parse_traffic_class(v);
      if (!c) throw std::invalid_argument("class=" + v + ": not a traffic class");
      s.cls = *c;
    } else if (k == "base") {
      s.base = parse_bytes(k, v);
    } else if (k == "span") {
      s.span = parse_bytes(k, v);
    } else if (k == "stride") {
      s.stride = parse_bytes(k, v);
    } else if (k == "size") {
      const uint64_t n = parse_bytes(k, v);
      if (n == 0 || n > (1u << 20)) throw std::invalid_argument("size=" + v + ": from 1 B to 1 MiB");
      s.size = static_cast<uint32_t>(n);
    } else if (k == "bytes") {
      s.bytes = parse_bytes(k, v);
    } else if (k == "reads") {
      s.reads = parse_number(k, v);
      if (s.reads < 0 || s.reads > 1) throw std::invalid_argument("reads=" + v + ": from 0 to 1");
    } else if (k == "rate") {
      s.rate_gbps = parse_number(k, v);
      if (s.rate_gbps < 0) throw std::invalid_argument("rate=" + v + ": GB/s, at least 0");
    } else if (k == "outstanding") {
      const double n = parse_number(k, v);
      if (n < 1 || n > 4096 || n != std::floor(n))
        throw std::invalid_argument("outstanding=" + v + ": a whole number from 1 to 4096");
      s.outstanding = static_cast<uint32_t>(n);
    } else if (k == "seed") {
      s.seed = parse_bytes(k, v);
    } else {
      throw std::invalid_argument("--stream: unknown key '" + k +
                                  "' (port, pattern, class, base, span, stride, size, bytes, "
                                  "reads, rate, outstanding, seed)");
    }
  }
  if (s.span < s.size)
    throw std::invalid_argument("--stream " + spec + ": span " + std::to_string(s.span) +
                                " is smaller than one transaction of " + std::to_string(s.size));
  if (s.bytes == 0) throw std::invalid_argument("--stream " + spec + ": bytes must be > 0");
  if (s.bytes / s.size > (1ull << 32))
    throw std::invalid_argument("--stream " + spec + ": more than 2^32 transactions");
  return s;
}

std::vector<ddr_request> read_requests(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open");
  std::vector<ddr_request> out;
  std::string line;
  size_t n = 0;
  double last_time = 0;
  while (std::getline(in, line)) {
    ++n;
    const std::string where = path + ":" + std::to_string(n) + ": ";
    if (line.find('\0') != std::string::npos) throw std::invalid_argument(where + "NUL byte");
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream f(line);
    std::string t, port, addr, bytes, dir, extra;
    if (!(f >> t)) continue;
    if (!(f >> port >> addr >> bytes >> dir) || (f >> extra))
      throw std::invalid_argument(where + "expected TIME_NS PORT ADDRESS BYTES R|W");
    ddr_request r;
    r.time_ns = parse_number("time", t);
    if (r.time_ns < last_time || r.time_ns < 0)
      throw std::invalid_argument(where + "time " + t + " is earlier than the line before");
    last_time = r.time_ns;
    auto p = parse_port(port);
    if (!p) throw std::invalid_argument(where + "port '" + port + "' (hp0..hp3, acp, cpu)");
    r.port = *p;
    r.address = parse_bytes("address", addr);
    const uint64_t b = parse_bytes("bytes", bytes);
    if (b == 0 || b > (1u << 20)) throw std::invalid_argument(where + "bytes from 1 to 1 MiB");
    r.bytes = static_cast<uint32_t>(b);
    if (dir != "R" && dir != "W") throw std::invalid_argument(where + "direction '" + dir + "' (R or W)");
    r.write = dir == "W";
    out.push_back(r);
    if (out.size() > (1u << 26)) throw std::invalid_argument(where + "more than 2^26 requests");
  }
  return out;
}

ddr_bench_result run_ddr_bench(const config::platform_config& cfg, const ddr_bench_options& o) {
  const mem::ddr_params params = vp::make_ddr_params(cfg);
  for (const ddr_bench_stream& s : o.streams)
    if (s.base + s.span > params.size || s.base + s.span < s.base)
      throw std::invalid_argument("a stream's addresses [" + std::to_string(s.base) + ", " +
                                  std::to_string(s.base + s.span) +
                                  ") leave the DDR of memory_map.ddr_size " +
                                  std::to_string(params.size));
  mem::ddr_controller ddr("ddr", params);
  const sc_time quantum(static_cast<double>(cfg.simulation.quantum_ns), SC_NS);
  std::vector<std::unique_ptr<traffic_generator>> gens;
  size_t index = 0;
  for (const ddr_bench_stream& s : o.streams) {
    gens.push_back(std::make_unique<traffic_generator>(
        ("stream" + std::to_string(index++)).c_str(), s, std::vector<ddr_request>{},
        o.replay_outstanding, quantum));
  }
  for (size_t p = 0; p < mem::kDdrPorts; ++p) {
    std::vector<ddr_request> mine;
    for (const ddr_request& r : o.requests)
      if (static_cast<size_t>(r.port) == p) {
        if (r.address + r.bytes > params.size)
          throw std::invalid_argument("replayed request at " + std::to_string(r.address) +
                                      " leaves the DDR");
        mine.push_back(r);
      }
    if (mine.empty()) continue;
    ddr_bench_stream s;
    s.port = static_cast<mem::ddr_port>(p);
    s.cls = mem::traffic_class::host;
    gens.push_back(std::make_unique<traffic_generator>(
        (std::string("replay_") + mem::ddr_port_name(s.port)).c_str(), s, std::move(mine),
        o.replay_outstanding, quantum));
  }
  if (gens.empty()) throw std::invalid_argument("ddr-bench: no streams and no requests");
  // Ports are single sockets: two generators on one port are merged by the
  // controller's port model, so each binds to its port through a fan-in.
  std::array<std::vector<traffic_generator*>, mem::kDdrPorts> on_port;
  for (auto& g : gens) on_port[static_cast<size_t>(g->stream().port)].push_back(g.get());
  for (size_t p = 0; p < mem::kDdrPorts; ++p)
    if (on_port[p].size() > 1)
      throw std::invalid_argument(std::string("ddr-bench: two streams on port ") +
                                  mem::ddr_port_name(static_cast<mem::ddr_port>(p)) +
                                  " (one stream per port)");
  for (auto& g : gens) g->socket.bind(ddr.port(g->stream().port));

  sc_core::sc_start();
  ddr.drain_writes();

  ddr_bench_result r;
  nlohmann::ordered_json streams = nlohmann::ordered_json::array();
  uint64_t bytes = 0;
  double first = -1, last = 0;
  for (auto& g : gens) {
    const auto& f = g->result();
    const ddr_bench_stream& s = g->stream();
    nlohmann::ordered_json j;
    j["port"] = mem::ddr_port_name(s.port);
    if (g->replays()) {
      j["pattern"] = "replay";
    } else {
      j["pattern"] = pattern_name(s.pattern);
      j["class"] = mem::traffic_class_name(s.cls);
      j["size"] = s.size;
      j["span"] = s.span;
      if (s.pattern == access_pattern::strided) j["stride"] = s.stride;
      j["reads"] = s.reads;
      j["rate_gbps"] = s.rate_gbps;
      j["outstanding"] = s.outstanding;
      if (s.pattern == access_pattern::random) j["seed"] = s.seed;
    }
    j["result"] = figures_json(f);
    streams.push_back(j);
    bytes += f.bytes;
    if (f.transactions) {
      first = first < 0 ? f.first_issue_ns : std::min(first, f.first_issue_ns);
      last = std::max(last, f.last_end_ns);
    }
  }
  const nlohmann::json ddr_summary = ddr.summary();
  const double span = last - std::max(0.0, first);
  const double delivered = span > 0 ? static_cast<double>(bytes) / span : 0.0;
  r.json["streams"] = streams;
  r.json["total"] = {{"bytes", bytes},
                     {"elapsed_ns", span},
                     {"gbps", delivered},
                     {"peak_gbps", ddr.capacity().peak_bytes_per_s / 1e9},
                     {"share_of_peak", delivered / (ddr.capacity().peak_bytes_per_s / 1e9)}};
  r.json["ddr"] = nlohmann::ordered_json::parse(ddr_summary.dump());
  return r;
}

std::string ddr_bench_result::text() const {
  std::ostringstream out;
  out << std::fixed;
  const auto& t = json["total"];
  out << "ddr-bench: " << json["streams"].size() << " stream(s)\n";
  for (const auto& s : json["streams"]) {
    const auto& f = s["result"];
    out << "  " << s["port"].get<std::string>() << "  " << s["pattern"].get<std::string>();
    if (s.contains("size"))
      out << ", " << s["size"].get<uint64_t>() << " B, reads " << std::setprecision(2)
          << s["reads"].get<double>();
    out << ": " << gbps(f["gbps"].get<double>()) << ", latency mean " << std::setprecision(1)
        << f["latency_mean_ns"].get<double>() << " ns, max " << f["latency_max_ns"].get<double>()
        << " ns\n";
  }
  out << "delivered " << gbps(t["gbps"].get<double>()) << " (" << std::setprecision(1)
      << 100.0 * t["share_of_peak"].get<double>() << " % of " << std::setprecision(2)
      << t["peak_gbps"].get<double>() << " GB/s peak), " << t["bytes"].get<uint64_t>()
      << " bytes in " << std::setprecision(1) << t["elapsed_ns"].get<double>() / 1000.0 << " us\n";
  const auto& ddr = json["ddr"];
  if (ddr.contains("dram")) {
    const auto& d = ddr["dram"];
    const auto& tm = d["time_ns"];
    const double elapsed = tm["elapsed"].get<double>();
    out << "DRAM time:";
    for (const char* k : {"data", "refresh", "row_miss", "activate_limit", "bank_group",
                          "turnaround", "idle"})
      out << ' ' << k << ' ' << std::setprecision(1)
          << (elapsed > 0 ? 100.0 * tm[k].get<double>() / elapsed : 0.0) << " %";
    out << '\n';
    out << "rows:";
    for (const auto& [port, r] : d["ports"].items())
      out << ' ' << port << " hit rate " << std::setprecision(1)
          << 100.0 * r["row_hit_rate"].get<double>() << " %";
    out << '\n';
    const double mj = d["energy"]["total_mj"].get<double>();
    const double bits = 8.0 * t["bytes"].get<double>();
    out << "DRAM energy " << std::setprecision(3) << mj << " mJ, " << std::setprecision(1)
        << (bits > 0 ? mj * 1e9 / bits : 0.0) << " pJ/bit\n";
  }
  return out.str();
}

}  // namespace pccx::workload
