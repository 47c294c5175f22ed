#include "models/memory/ddr/bandwidth_recorder.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "infra/io/output_file.h"
#include "infra/time/share_of_span.h"
#include "infra/trace/trace_hub.h"

namespace pccx::mem {

using trace::to_ns;

double traffic_totals::span_ns() const {
  return transactions ? to_ns(last_completion) - to_ns(first_arrival) : 0.0;
}

double traffic_totals::avg_gbps() const {
  const double span = span_ns();
  return span > 0 ? static_cast<double>(bytes) / span : 0.0;
}

double traffic_totals::avg_latency_ns() const {
  return transactions ? latency_sum_ns / static_cast<double>(transactions) : 0.0;
}

double traffic_totals::avg_queueing_ns() const {
  return transactions ? queueing_sum_ns / static_cast<double>(transactions) : 0.0;
}

double traffic_totals::avg_port_wait_ns() const {
  return transactions ? port_wait_sum_ns / static_cast<double>(transactions) : 0.0;
}

bandwidth_recorder::bandwidth_recorder(const sc_core::sc_time& window, double peak_bytes_per_s,
                                       double effective_bytes_per_s, size_t max_windows)
    : window_(window),
      window_ticks_(window.value()),
      window_ns_(to_ns(window)),
      requested_window_(window),
      max_windows_(std::max<size_t>(max_windows, 2)),
      peak_bytes_per_s_(peak_bytes_per_s),
      effective_bytes_per_s_(effective_bytes_per_s) {
  if (window_ticks_ == 0) throw std::invalid_argument("bandwidth_recorder: window must be > 0");
}

void bandwidth_recorder::window_series::grow_to(size_t n) {
  while (blocks_.size() * kBlockRows < n) blocks_.emplace_back(kBlockRows, window_row{});
  size_ = std::max(size_, n);
}

void bandwidth_recorder::window_series::clear() {
  blocks_.clear();
  size_ = 0;
}

void bandwidth_recorder::reset() {
  ports_ = {};
  classes_ = {};
  total_ = {};
  windows_.clear();
  window_ = requested_window_;
  window_ticks_ = window_.value();
  window_ns_ = to_ns(window_);
  forget_last_window();
}

void bandwidth_recorder::coarsen() {
  window_series merged;
  merged.grow_to((windows_.size() + 1) / 2);
  for (size_t w = 0; w < windows_.size(); ++w)
    for (size_t s = 0; s < kSeries; ++s) merged[w / 2][s] += windows_[w][s];
  windows_ = std::move(merged);
  window_ = window_ * 2.0;
  window_ticks_ *= 2;
  window_ns_ *= 2.0;
  forget_last_window();
}

void bandwidth_recorder::record(const ddr_access& a) {
  if (a.bytes == 0) return;
  const double latency_ns = ns_(a.latency());
  const double queueing_ns = ns_(a.queueing);
  const double port_wait_ns = ns_(a.port_wait);
  const size_t p = static_cast<size_t>(a.port);
  const size_t c = static_cast<size_t>(a.cls);
  ports_[p].add(a, latency_ns, queueing_ns, port_wait_ns);
  classes_[c].add(a, latency_ns, queueing_ns, port_wait_ns);
  total_.add(a, latency_ns, queueing_ns, port_wait_ns);
  spread(p, kDdrPorts + c, a.start.value(), a.end.value(), a.bytes);
}

void bandwidth_recorder::record_series(const ddr_access& a) {
  if (a.bytes == 0) return;
  const size_t p = static_cast<size_t>(a.port);
  const size_t c = static_cast<size_t>(a.cls);
  ports_[p].bytes += a.bytes;
  classes_[c].bytes += a.bytes;
  total_.bytes += a.bytes;
  spread(p, kDdrPorts + c, a.start.value(), a.end.value(), a.bytes);
}

void bandwidth_recorder::spread(size_t port_series, size_t class_series, uint64_t start,
                                uint64_t end, uint64_t bytes) {
  // Most transfers fall in the window of the one before: no division.
  const uint64_t tail = end > start ? end - 1 : start;
  if (start >= last_window_start_ && tail - last_window_start_ < window_ticks_ &&
      last_window_ < windows_.size()) {
    windows_[last_window_][port_series] += bytes;
    windows_[last_window_][class_series] += bytes;
    return;
  }
  while (tail / window_ticks_ >= max_windows_) coarsen();
  const uint64_t first = start / window_ticks_;
  const uint64_t last = tail / window_ticks_;
  if (windows_.size() <= last) windows_.grow_to(last + 1);
  uint64_t given = 0;
  for (uint64_t w = first; w <= last; ++w) {
    uint64_t upto = bytes;
    if (w != last) {
      // Bytes moved by the end of window w, rounded down.
      const uint64_t until = (w + 1) * window_ticks_;
      upto = share_of_span(bytes, until - start, end - start);
    }
    windows_[w][port_series] += upto - given;
    windows_[w][class_series] += upto - given;
    given = upto;
  }
  last_window_ = last;
  last_window_start_ = last * window_ticks_;
}

uint64_t bandwidth_recorder::window_bytes(ddr_port p, size_t w) const {
  return w < windows_.size() ? windows_[w][static_cast<size_t>(p)] : 0;
}

uint64_t bandwidth_recorder::window_bytes(traffic_class c, size_t w) const {
  return w < windows_.size() ? windows_[w][kDdrPorts + static_cast<size_t>(c)] : 0;
}

bandwidth_recorder::window_peaks bandwidth_recorder::peaks() const {
  window_peaks best;
  for (size_t w = 0; w < windows_.size(); ++w) {
    const window_row& row = windows_[w];
    uint64_t sum = 0;
    for (size_t s = 0; s < kSeries; ++s) {
      best.series[s] = std::max(best.series[s], row[s]);
      if (s < kDdrPorts) sum += row[s];
    }
    best.total = std::max(best.total, sum);
  }
  return best;
}

double bandwidth_recorder::peak_gbps(ddr_port p) const {
  return gbps_of_window(peaks().series[static_cast<size_t>(p)]);
}

double bandwidth_recorder::peak_gbps(traffic_class c) const {
  return gbps_of_window(peaks().series[kDdrPorts + static_cast<size_t>(c)]);
}

double bandwidth_recorder::peak_gbps_total() const {
  return gbps_of_window(peaks().total);
}

nlohmann::json bandwidth_recorder::totals_json(const traffic_totals& t, double peak_gbps) const {
  const double avg = t.avg_gbps();
  nlohmann::json j;
  j["transactions"] = t.transactions;
  j["bytes"] = t.bytes;
  j["read_bytes"] = t.read_bytes;
  j["write_bytes"] = t.write_bytes;
  j["first_arrival_ns"] = t.transactions ? to_ns(t.first_arrival) : 0.0;
  j["last_completion_ns"] = t.transactions ? to_ns(t.last_completion) : 0.0;
  j["span_ns"] = t.span_ns();
  j["avg_gbps"] = avg;
  j["peak_gbps"] = peak_gbps;
  j["util_peak"] = avg * 1e9 / peak_bytes_per_s_;
  j["util_effective"] = avg * 1e9 / effective_bytes_per_s_;
  j["avg_latency_ns"] = t.avg_latency_ns();
  j["max_latency_ns"] = t.latency_max_ns;
  j["avg_queueing_ns"] = t.avg_queueing_ns();
  j["max_queueing_ns"] = t.queueing_max_ns;
  j["avg_port_wait_ns"] = t.avg_port_wait_ns();
  return j;
}

nlohmann::json bandwidth_recorder::summary() const {
  nlohmann::json j;
  j["window_ns"] = window_ns_;
  // A series coarsened to stay bounded says so.
  if (window_ != requested_window_) j["window_requested_ns"] = to_ns(requested_window_);
  j["peak_gbps"] = peak_bytes_per_s_ / 1e9;
  j["effective_gbps"] = effective_bytes_per_s_ / 1e9;
  const window_peaks peak = peaks();
  j["total"] = totals_json(total_, gbps_of_window(peak.total));
  for (size_t p = 0; p < kDdrPorts; ++p)
    j["ports"][ddr_port_name(static_cast<ddr_port>(p))] =
        totals_json(ports_[p], gbps_of_window(peak.series[p]));
  for (size_t c = 0; c < kTrafficClasses; ++c)
    j["classes"][traffic_class_name(static_cast<traffic_class>(c))] =
        totals_json(classes_[c], gbps_of_window(peak.series[kDdrPorts + c]));
  return j;
}

namespace {

// A number as printf's %.10g writes it, at `at`, returning its end.
// std::to_chars in the general format with a precision gives that text at
// a fraction of snprintf's cost (a 32K token's series is a third of a
// million lines); printf's own spelling is kept for NaN and infinities.
// 32 characters are enough.
char* put_num(char* at, double v) {
  if (!std::isfinite(v)) return at + std::snprintf(at, 32, "%.10g", v);
  return std::to_chars(at, at + 32, v, std::chars_format::general, 10).ptr;
}

std::string num(double v) {
  char buf[32];
  return std::string(buf, put_num(buf, v));
}

}  // namespace

void bandwidth_recorder::write_series_csv(const std::string& path) const {
  std::array<const char*, kSeries> kind{};
  std::array<const char*, kSeries> name{};
  std::array<bool, kSeries> active{};
  for (size_t p = 0; p < kDdrPorts; ++p) {
    kind[p] = "port";
    name[p] = ddr_port_name(static_cast<ddr_port>(p));
    active[p] = ports_[p].bytes > 0;
  }
  for (size_t c = 0; c < kTrafficClasses; ++c) {
    kind[kDdrPorts + c] = "class";
    name[kDdrPorts + c] = traffic_class_name(static_cast<traffic_class>(c));
    active[kDdrPorts + c] = classes_[c].bytes > 0;
  }

  io::output_file file(path, "CSV file");
  std::ostream& out = file.stream();

  out << "window_start_ns,window_end_ns,kind,name,bytes,gbps\n";
  size_t first = 0;
  while (first < windows_.size() && total_.bytes > 0) {
    const auto& row = windows_[first];
    if (std::any_of(row.begin(), row.end(), [](uint64_t b) { return b > 0; })) break;
    ++first;
  }
  // The lines are formatted into a buffer and written in blocks.
  std::array<size_t, kSeries> kind_len{}, name_len{};
  for (size_t s = 0; s < kSeries; ++s) {
    kind_len[s] = std::strlen(kind[s]);
    name_len[s] = std::strlen(name[s]);
  }
  std::string text;
  char bounds[80], line[160];
  for (size_t w = first; w < windows_.size(); ++w) {
    char* e = put_num(bounds, static_cast<double>(w) * window_ns_);
    *e++ = ',';
    e = put_num(e, static_cast<double>(w + 1) * window_ns_);
    *e++ = ',';
    const auto bounds_len = static_cast<size_t>(e - bounds);
    for (size_t s = 0; s < kSeries; ++s) {
      if (!active[s]) continue;
      const uint64_t b = windows_[w][s];
      char* p = line;
      p = std::copy_n(bounds, bounds_len, p);
      p = std::copy_n(kind[s], kind_len[s], p);
      *p++ = ',';
      p = std::copy_n(name[s], name_len[s], p);
      *p++ = ',';
      p = std::to_chars(p, p + 24, b).ptr;
      *p++ = ',';
      p = put_num(p, static_cast<double>(b) / window_ns_);
      *p++ = '\n';
      text.append(line, static_cast<size_t>(p - line));
    }
    if (text.size() >= (1u << 16)) {
      out.write(text.data(), static_cast<std::streamsize>(text.size()));
      text.clear();
    }
  }
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  file.commit();
}

void bandwidth_recorder::write_csv(const std::string& dir) const {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create '" + dir + "': " + ec.message());

  write_series_csv((std::filesystem::path(dir) / "ddr_bandwidth.csv").string());
  {
    io::output_file file((std::filesystem::path(dir) / "ddr_totals.csv").string(), "CSV file");
    std::ostream& out = file.stream();
    out << "kind,name,transactions,bytes,read_bytes,write_bytes,first_arrival_ns,"
           "last_completion_ns,span_ns,avg_gbps,peak_gbps,util_peak,util_effective,"
           "avg_latency_ns,max_latency_ns,avg_queueing_ns,max_queueing_ns,avg_port_wait_ns\n";
    const auto row = [&](const char* k, const char* n, const traffic_totals& t, double peak) {
      const nlohmann::json j = totals_json(t, peak);
      out << k << ',' << n << ',' << t.transactions << ',' << t.bytes << ',' << t.read_bytes << ','
          << t.write_bytes;
      for (const char* f :
           {"first_arrival_ns", "last_completion_ns", "span_ns", "avg_gbps", "peak_gbps",
            "util_peak", "util_effective", "avg_latency_ns", "max_latency_ns", "avg_queueing_ns",
            "max_queueing_ns", "avg_port_wait_ns"})
        out << ',' << num(j[f].get<double>());
      out << '\n';
    };
    const window_peaks peak = peaks();
    for (size_t p = 0; p < kDdrPorts; ++p)
      row("port", ddr_port_name(static_cast<ddr_port>(p)), ports_[p],
          gbps_of_window(peak.series[p]));
    for (size_t c = 0; c < kTrafficClasses; ++c)
      row("class", traffic_class_name(static_cast<traffic_class>(c)), classes_[c],
          gbps_of_window(peak.series[kDdrPorts + c]));
    row("total", "all", total_, gbps_of_window(peak.total));
    file.commit();
  }
}

}  // namespace pccx::mem
