#include "platform/vp/top/run_outputs.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <optional>
#include <regex>
#include <stdexcept>
#include <vector>

#include "infra/text/hex.h"
#include "platform/vp/top/platform_top.h"
#include "platform/vp/top/simulation.h"
#include "traces/pccx_session.h"
#include "traces/perfetto_trace.h"
#include "traces/timed_level.h"
#include "traces/vcd_signals.h"

#ifndef PCCX_VP_VERSION
#define PCCX_VP_VERSION "0"
#endif

namespace pccx::vp {

using sc_core::sc_time;

namespace {

const char* const kChannelNames[PCCX_DMA_CHANNELS] = {"hp0", "hp1",      "hp2",
                                                      "hp3", "acp_fmap", "acp_result"};
constexpr npu::unit_kind kUnits[] = {npu::unit_kind::gemv, npu::unit_kind::gemm,
                                     npu::unit_kind::sfu, npu::unit_kind::dma};

using text::hex;
using text::hex_word;

sc_time since(const sc_time& from, const sc_time& to) {
  return to > from ? to - from : sc_core::SC_ZERO_TIME;
}

sc_time window_start(const sc_time& window, size_t w) {
  return sc_time::from_value(window.value() * w);
}

// Engines by the instruction trace's unit name: MEMSET retires at the
// command processor ("cmd"), the rest at their unit.
enum engine : uint32_t { kGemv = 0, kGemm, kSfu, kMemcpy, kCmd, kEngines };
engine engine_of(const char* unit) {
  const std::string u(unit);
  if (u == "gemv") return kGemv;
  if (u == "gemm") return kGemm;
  if (u == "sfu") return kSfu;
  if (u == "dma") return kMemcpy;
  return kCmd;
}
const char* const kEngineTrack[kEngines] = {"gemv", "gemm", "sfu", "dma (MEMCPY)", "cmd (MEMSET)"};

// Perfetto layout: processes, and the threads of the NPU and DMA ones.
constexpr int kNpuPid = 1, kDmaPid = 2, kDdrPid = 3, kFirmwarePid = 4;
constexpr int kMarkerTid = 0, kWaitTid = 1, kTokenTid = 2;
int engine_tid(engine e) {
  return e == kCmd ? 1 : static_cast<int>(e) + 2;  // cmd first, then the units
}

// .pccx core ids: the engines, then the DMA channels, then the CPU's waits.
constexpr uint32_t kChannelCore0 = kEngines;
constexpr uint32_t kCpuCore = kChannelCore0 + PCCX_DMA_CHANNELS;

std::string input_what(const std::string& file, const std::exception& e) {
  return std::string(e.what()) + " (" + file + ")";
}

}  // namespace

// ---------------------------------------------------------------- Perfetto

namespace {

// Sums per window of simulated time, from t = 0, for a few series: at most
// kMaxWindows windows, so a long run doubles the window width (merging
// pairs) instead of growing.
class window_sums {
 public:
  static constexpr size_t kMaxWindows = 2048;

  window_sums(uint64_t width_ticks, size_t series)
      : width_(std::max<uint64_t>(1, width_ticks)), series_(series) {}

  uint64_t width() const { return width_; }
  size_t windows() const { return sums_.size() / series_; }
  double at(size_t w, size_t s) const { return sums_[w * series_ + s]; }

  // Makes the windows reach tick `end` (exclusive).
  void cover(uint64_t end) {
    if (end == 0) return;
    while ((end - 1) / width_ + 1 > kMaxWindows) coarsen();
    const size_t need = static_cast<size_t>((end - 1) / width_ + 1);
    if (need > windows()) sums_.resize(need * series_, 0.0);
  }

  // Adds `weight` x the ticks of [from, to) that fall in each window.
  void add(size_t s, uint64_t from, uint64_t to, double weight) {
    if (to <= from || weight == 0) return;
    cover(to);
    for (uint64_t w = from / width_; w * width_ < to; ++w) {
      const uint64_t lo = std::max(from, w * width_), hi = std::min(to, (w + 1) * width_);
      sums_[w * series_ + s] += weight * static_cast<double>(hi - lo);
    }
  }

 private:
  void coarsen() {
    const size_t n = windows();
    for (size_t w = 0; w < (n + 1) / 2; ++w)
      for (size_t s = 0; s < series_; ++s) {
        double v = sums_[2 * w * series_ + s];
        if (2 * w + 1 < n) v += sums_[(2 * w + 1) * series_ + s];
        sums_[w * series_ + s] = v;
      }
    sums_.resize((n + 1) / 2 * series_);
    width_ *= 2;
  }

  uint64_t width_;
  size_t series_;
  std::vector<double> sums_;
};

// A slice as the trace draws it: its track and [start, end].
struct slice_ref {
  int pid = 0, tid = 0;
  sc_time start, end;
};

// A run of a stream FIFO's bytes, numbered from the FIFO's first byte, and
// the slice that moved them at one side of the FIFO.
struct stream_piece {
  uint64_t from = 0, to = 0;
  slice_ref slice;
};

// "<prefix>token <T>", "<prefix>token <T> layer <L>", "... exit", "... end".
const std::regex& token_marker() {
  static const std::regex re("^(.*)token ([0-9]{1,9})(?: layer ([0-9]{1,9})| (exit|end))?$");
  return re;
}

}  // namespace

struct run_outputs::perfetto {
  // Series of the per-window sums: the four units' busy time, then each
  // FIFO's level x time.
  static constexpr size_t kUnitSeries = kCmd;  // gemv, gemm, sfu, dma (MEMCPY)
  static constexpr size_t kFifoSeries0 = kUnitSeries;

  perfetto(const std::string& path, platform_top& top, const std::vector<uint32_t>& gemv_fifos)
      : file(path),
        top(top),
        sums(top.ddr.recorder().window().value(), kUnitSeries + PCCX_DMA_CHANNELS) {
    file.process_name(kNpuPid, "NPU", 1);
    for (uint32_t e = 0; e < kEngines; ++e)
      file.thread_name(kNpuPid, engine_tid(static_cast<engine>(e)), kEngineTrack[e],
                       engine_tid(static_cast<engine>(e)));
    file.process_name(kDmaPid, "DMA channels", 2);
    for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch)
      file.thread_name(kDmaPid, static_cast<int>(ch) + 1, kChannelNames[ch],
                       static_cast<int>(ch) + 1);
    file.process_name(kDdrPid, "DDR", 3);
    file.process_name(kFirmwarePid, "Firmware", 4);
    file.thread_name(kFirmwarePid, kMarkerTid, "markers", 0);
    file.thread_name(kFirmwarePid, kWaitTid, "uca_hal_wait_idle", 1);

    // The unit at the NPU side of each stream FIFO: the GEMM reads HP0 and
    // HP1, the GEMV its weight FIFOs (npu.gemv.weight_fifos), the MEMCPY unit
    // reads ACP_FMAP and fills ACP_RESULT.
    fifo_unit.fill(kCmd);
    fifo_unit[PCCX_DMA_HP0] = fifo_unit[PCCX_DMA_HP0 + 1] = kGemm;
    for (uint32_t ch : gemv_fifos)
      if (ch < PCCX_DMA_CHANNELS) fifo_unit[ch] = kGemv;
    fifo_unit[PCCX_DMA_ACP_FMAP] = fifo_unit[PCCX_DMA_ACP_RESULT] = kMemcpy;
    for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch) {
      fifos[ch] = &top.fifo(ch);
      to_ddr[ch] = top.dma[ch]->params().direction == mem::dma_direction::stream_to_ddr;
    }
  }

  // The FIFOs' levels as the kernel sees them now; the previous levels held
  // since the previous look.
  void observe() {
    const uint64_t now = sc_core::sc_time_stamp().value();
    if (now > observed_at) {
      for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch)
        sums.add(kFifoSeries0 + ch, observed_at, now, static_cast<double>(level[ch]));
      observed_at = now;
    }
    for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch) level[ch] = fifos[ch]->level();
  }

  // Bytes the NPU side has moved through FIFO `ch` so far: popped from an
  // input FIFO, pushed into ACP_RESULT's.
  uint64_t npu_side_bytes(unsigned ch) const {
    const auto& s = fifos[ch]->statistics();
    return to_ddr[ch] ? s.bytes_pushed : s.bytes_popped;
  }

  void instruction(const npu::command_processor::retire_record& r, const std::string& disasm) {
    observe();
    const engine e = engine_of(r.unit);
    // MEMSET's work is the issue stage itself; a unit's starts at dispatch.
    const sc_time start = e == kCmd ? r.issued : r.started;
    const sc_time dur = since(start, r.retired);
    nlohmann::ordered_json args = {
        {"seq", r.seq},
        {"word", hex_word(r.word)},
        {"queued_ns", trace::to_ns(r.queued)},
        {"issued_ns", trace::to_ns(r.issued)},
        {"started_ns", trace::to_ns(r.started)},
        {"retired_ns", trace::to_ns(r.retired)},
        {"status", r.err == PCCX_ERR_NONE ? std::string("ok") : isa::error_name(r.err)}};
    // A unit runs one instruction at a time and retires it as soon as it is
    // done, so the bytes it moved through its FIFOs since its previous
    // retirement are this instruction's.
    std::array<stream_piece, PCCX_DMA_CHANNELS> moved{};
    if (e != kCmd) {
      sums.add(e, start.value(), r.retired.value(), 1.0);
      nlohmann::ordered_json fifo_bytes;
      for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch) {
        if (fifo_unit[ch] != e) continue;
        const uint64_t at = npu_side_bytes(ch);
        uint64_t& from = npu_side[ch];
        if (at <= from) continue;
        moved[ch] = {from, at, {kNpuPid, engine_tid(e), start, start + dur}};
        fifo_bytes[kChannelNames[ch]] = at - from;
        from = at;
      }
      if (!fifo_bytes.empty()) args["fifo_bytes"] = fifo_bytes;
    }
    file.complete(kNpuPid, engine_tid(e), disasm, r.unit, start, dur, args);
    for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch)
      if (moved[ch].to > moved[ch].from) {
        instruction_pieces[ch].push_back(moved[ch]);
        match(ch);
      }
  }

  void descriptor(const mem::dma_channel::descriptor_record& d) {
    observe();
    // A descriptor is taken while the previous one's last blocks are still
    // in flight: start the span where that one ends, so spans on a channel
    // never overlap (start_ns keeps the true start).
    sc_time& prev_end = channel_end.at(d.page);
    const sc_time start = std::max(d.start, prev_end);
    prev_end = std::max(prev_end, d.end);
    nlohmann::ordered_json args = {{"seq", d.seq},
                                   {"tag", d.tag},
                                   {"address", hex(d.addr)},
                                   {"bytes", d.bytes},
                                   {"class", mem::traffic_class_name(d.cls)},
                                   {"direction", d.to_ddr ? "write" : "read"},
                                   {"start_ns", trace::to_ns(d.start)},
                                   {"end_ns", trace::to_ns(d.end)}};
    if (d.bytes != d.requested) args["requested_bytes"] = d.requested;
    if (d.errors != 0) args["errors"] = hex(d.errors);
    const sc_time dur = since(start, d.end);
    file.complete(kDmaPid, static_cast<int>(d.page) + 1, mem::traffic_class_name(d.cls),
                  d.to_ddr ? "dma write" : "dma read", start, dur, args);
    // The channel's side of the FIFO: its descriptors' bytes in order.
    if (d.bytes == 0) return;
    uint64_t& from = channel_side.at(d.page);
    descriptor_pieces[d.page].push_back(
        {from, from + d.bytes, {kDmaPid, static_cast<int>(d.page) + 1, start, start + dur}});
    from += d.bytes;
    match(d.page);
  }

  // A flow from every descriptor to every instruction whose bytes on FIFO
  // `ch` overlap (for ACP_RESULT, from the instruction to the descriptor),
  // written once both slices are known; each piece is dropped once no later
  // piece of the other side can overlap it.
  void match(unsigned ch) {
    auto& ds = descriptor_pieces[ch];
    auto& is = instruction_pieces[ch];
    while (!ds.empty() && !is.empty()) {
      const stream_piece& d = ds.front();
      const stream_piece& i = is.front();
      if (std::max(d.from, i.from) < std::min(d.to, i.to)) flow(ch, d.slice, i.slice);
      if (d.to <= i.to)
        ds.pop_front();
      else
        is.pop_front();
    }
  }

  // The start on the slice that begins first, the finish on the other, at
  // two times inside both where they overlap (a third and two thirds into
  // the overlap), else in the middle of each: never the finish before the
  // start, which a reader would not match.
  void flow(unsigned ch, const slice_ref& a, const slice_ref& b) {
    const bool b_first = b.start < a.start;
    const slice_ref& first = b_first ? b : a;
    const slice_ref& second = b_first ? a : b;
    const sc_time lo = std::max(a.start, b.start), hi = std::min(a.end, b.end);
    sc_time s_at, f_at;
    auto mid = [](const slice_ref& s) {
      return s.start + sc_time::from_value((s.end - s.start).value() / 2);
    };
    if (hi > lo) {
      const uint64_t span = (hi - lo).value();
      s_at = lo + sc_time::from_value(span / 3);
      f_at = lo + sc_time::from_value(span - span / 3);
    } else {
      s_at = mid(first);  // first ends where or before second starts
      f_at = std::max(s_at, mid(second));
    }
    ++flows;
    file.flow_start(first.pid, first.tid, kChannelNames[ch], "fifo", flows, s_at);
    file.flow_finish(second.pid, second.tid, kChannelNames[ch], "fifo", flows, f_at);
  }

  void wait_idle(const sc_time& from, const sc_time& to, int result) {
    file.complete(kFirmwarePid, kWaitTid, "uca_hal_wait_idle", "firmware", from, since(from, to),
                  {{"result", result}});
  }

  void counter(const std::string& name, uint64_t value, const sc_time& at) {
    file.counter(kFirmwarePid, name, at, "value", static_cast<double>(value));
  }

  // The DDR bandwidth windows as counters (GB/s), per port and class that
  // moved bytes and in total, from the first active window; a sample is
  // written only where the value changes, and the series drop to 0 after
  // the last window.
  void ddr_counters(const mem::bandwidth_recorder& rec) {
    const size_t n = rec.window_count();
    size_t first = n;
    for (size_t w = 0; w < n && first == n; ++w)
      for (size_t p = 0; p < mem::kDdrPorts; ++p)
        if (rec.window_bytes(static_cast<mem::ddr_port>(p), w) != 0) {
          first = w;
          break;
        }
    if (first == n) return;
    const sc_time window = rec.window();
    const double window_ns = trace::to_ns(window);
    auto series = [&](const std::string& name, auto bytes_of, uint64_t total) {
      if (total == 0) return;
      double last = -1;
      for (size_t w = first; w < n; ++w) {
        const double gbps = static_cast<double>(bytes_of(w)) / window_ns;
        if (gbps != last) file.counter(kDdrPid, name, window_start(window, w), "GB/s", gbps);
        last = gbps;
      }
      file.counter(kDdrPid, name, window_start(window, n), "GB/s", 0.0);
    };
    for (size_t p = 0; p < mem::kDdrPorts; ++p) {
      const auto port = static_cast<mem::ddr_port>(p);
      series(
          std::string("port ") + mem::ddr_port_name(port),
          [&](size_t w) { return rec.window_bytes(port, w); }, rec.port(port).bytes);
    }
    for (size_t c = 0; c < mem::kTrafficClasses; ++c) {
      const auto cls = static_cast<mem::traffic_class>(c);
      series(
          std::string("class ") + mem::traffic_class_name(cls),
          [&](size_t w) { return rec.window_bytes(cls, w); }, rec.cls(cls).bytes);
    }
    series(
        "total",
        [&](size_t w) {
          uint64_t b = 0;
          for (size_t p = 0; p < mem::kDdrPorts; ++p)
            b += rec.window_bytes(static_cast<mem::ddr_port>(p), w);
          return b;
        },
        rec.total().bytes);
  }

  // Each unit's busy fraction and each used FIFO's mean level per window
  // (stats.window_ns, doubled until the run has at most 2,048 windows),
  // written where the value changes; at the end of the run the units drop
  // to 0 and the FIFOs show the bytes left in them.
  void unit_counters() {
    observe();
    const uint64_t end = sc_core::sc_time_stamp().value();
    if (end == 0) return;
    sums.cover(end);
    const uint64_t width = sums.width();
    const size_t n = static_cast<size_t>((end - 1) / width + 1);
    const sc_time end_time = sc_time::from_value(end);
    auto mean = [&](size_t w, size_t s) {
      const uint64_t from = w * width;
      return sums.at(w, s) / static_cast<double>(std::min(width, end - from));
    };
    for (size_t e = 0; e < kUnitSeries; ++e) {
      double last = -1;
      for (size_t w = 0; w < n; ++w) {
        const double busy = std::min(1.0, std::round(mean(w, e) * 1e4) / 1e4);
        if (busy != last)
          file.counter(kNpuPid, kEngineTrack[e], sc_time::from_value(w * width), "busy", busy);
        last = busy;
      }
      file.counter(kNpuPid, kEngineTrack[e], end_time, "busy", 0.0);
    }
    for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch) {
      if (fifos[ch]->statistics().bytes_pushed == 0) continue;
      const std::string name = std::string(kChannelNames[ch]) + " fifo";
      uint64_t last = ~uint64_t{0};
      for (size_t w = 0; w < n; ++w) {
        const auto bytes = static_cast<uint64_t>(std::llround(mean(w, kFifoSeries0 + ch)));
        if (bytes != last)
          file.counter(kDmaPid, name, sc_time::from_value(w * width), "bytes", bytes);
        last = bytes;
      }
      file.counter(kDmaPid, name, end_time, "bytes", static_cast<uint64_t>(fifos[ch]->level()));
    }
  }

  void markers(const std::vector<std::string>& text, const std::vector<double>& at_ns) {
    for (size_t i = 0; i < text.size() && i < at_ns.size(); ++i)
      file.instant(kFirmwarePid, kMarkerTid, text[i], "marker", sc_time(at_ns[i], sc_core::SC_NS));
  }

  // Token and layer slices from the markers "<prefix>token T" ...
  // "<prefix>token T end" on one track: the token, and inside it its parts
  // (entry up to the first layer marker, each layer up to the next marker of
  // the token, exit up to the end marker). A token without its end marker
  // ends where the next token starts or the run ends ("unfinished": true).
  void token_slices(const std::vector<std::string>& text, const std::vector<double>& at_ns) {
    struct span {
      std::string name;
      sc_time start;
      nlohmann::ordered_json args;
    };
    std::optional<span> token, part;
    uint64_t token_no = 0;
    std::vector<std::pair<span, sc_time>> parts;
    bool named = false;
    auto close_part = [&](const sc_time& at) {
      if (part) parts.emplace_back(std::move(*part), at);
      part.reset();
    };
    auto close_token = [&](const sc_time& at, bool finished) {
      close_part(at);
      if (!finished) token->args["unfinished"] = true;
      file.complete(kFirmwarePid, kTokenTid, token->name, "token", token->start,
                    since(token->start, at), token->args);
      for (const auto& [p, to] : parts)
        file.complete(kFirmwarePid, kTokenTid, p.name, "part", p.start, since(p.start, to), p.args);
      parts.clear();
      token.reset();
    };
    sc_time last;
    for (size_t i = 0; i < text.size() && i < at_ns.size(); ++i) {
      std::smatch m;
      if (!std::regex_match(text[i], m, token_marker())) continue;
      const sc_time at = std::max(last, sc_time(at_ns[i], sc_core::SC_NS));
      last = at;
      const uint64_t t = std::stoull(m[2].str());
      if (!m[3].matched && !m[4].matched) {
        if (token) close_token(at, false);
        if (!named) {
          file.thread_name(kFirmwarePid, kTokenTid, m[1].str() + "tokens and layers", -1);
          named = true;
        }
        token = span{"token " + std::to_string(t), at, {{"token", t}}};
        token_no = t;
        part = span{"entry", at, {{"token", t}}};
        continue;
      }
      if (!token || token_no != t) continue;  // not the open token's
      close_part(at);
      if (m[3].matched) {
        const uint64_t l = std::stoull(m[3].str());
        part = span{"layer " + std::to_string(l), at, {{"token", t}, {"layer", l}}};
      } else if (m[4].str() == "exit") {
        part = span{"exit", at, {{"token", t}}};
      } else {
        close_token(at, true);
      }
    }
    if (token) close_token(std::max(last, sc_core::sc_time_stamp()), false);
  }

  trace::perfetto_trace file;
  platform_top& top;
  std::array<sc_time, PCCX_DMA_CHANNELS> channel_end{};
  // Counters.
  window_sums sums;
  std::array<const mem::stream_fifo*, PCCX_DMA_CHANNELS> fifos{};
  std::array<uint64_t, PCCX_DMA_CHANNELS> level{};
  uint64_t observed_at = 0;
  // Flows.
  std::array<engine, PCCX_DMA_CHANNELS> fifo_unit{};
  std::array<bool, PCCX_DMA_CHANNELS> to_ddr{};
  std::array<uint64_t, PCCX_DMA_CHANNELS> npu_side{}, channel_side{};
  std::array<std::deque<stream_piece>, PCCX_DMA_CHANNELS> descriptor_pieces, instruction_pieces;
  uint64_t flows = 0;
};

// ---------------------------------------------------------------- VCD

struct run_outputs::vcd {
  vcd(const std::string& path, platform_top& top)
      : file(path),
        inflight("vcd_ddr_inflight"),
        // Transfer rates in bytes per microsecond (MB/s), as per mille of
        // the effective bandwidth.
        util("vcd_ddr_util", 1000,
             std::max<uint64_t>(1, static_cast<uint64_t>(
                                       top.ddr.capacity().effective_bytes_per_s / 1e6 + 0.5))) {
    for (unsigned p = 0; p < mem::kDdrPorts; ++p)
      port_inflight[p] = std::make_unique<trace::timed_level>(
          (std::string("vcd_ddr_") + mem::ddr_port_name(static_cast<mem::ddr_port>(p))).c_str());
    for (auto k : kUnits)
      file.add(top.npu.cmd().unit_busy_flag(k),
               std::string("npu.") + npu::unit_kind_name(k) + "_busy");
    for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch)
      file.add(top.fifo(ch).level_variable(), std::string("fifo.") + kChannelNames[ch] + "_bytes",
               32);
    file.add(inflight.value(), "ddr.inflight_bytes", 32);
    for (unsigned p = 0; p < mem::kDdrPorts; ++p)
      file.add(port_inflight[p]->value(),
               std::string("ddr.") + mem::ddr_port_name(static_cast<mem::ddr_port>(p)) +
                   "_inflight_bytes",
               32);
    file.add(util.value(), "ddr.util_permille", 16);
  }

  void access(const mem::ddr_access& a) {
    inflight.add(a.arrival, a.completion, a.bytes);
    port_inflight[static_cast<size_t>(a.port)]->add(a.arrival, a.completion, a.bytes);
    const uint64_t ticks = (a.end - a.start).value();
    if (ticks == 0) return;
    static const double ticks_per_us = 1e-6 / sc_core::sc_get_time_resolution().to_seconds();
    const auto rate = static_cast<uint64_t>(
        static_cast<double>(a.bytes) * ticks_per_us / static_cast<double>(ticks) + 0.5);
    util.add(a.start, a.end, rate);
  }

  trace::vcd_signals file;
  trace::timed_level inflight;
  std::array<std::unique_ptr<trace::timed_level>, mem::kDdrPorts> port_inflight;
  trace::timed_level util;
};

// ---------------------------------------------------------------- .pccx

struct run_outputs::session {
  session(const std::string& path, const config::platform_config& cfg, const runtime_params& rt)
      : writer(path),
        period(rt.npu.core_period),
        issue_stage(rt.npu.core_period * static_cast<double>(rt.npu.section.issue_cycles)) {
    info.producer = std::string("pccx-vp ") + PCCX_VP_VERSION;
    info.mac_rows = 32;  // the GEMM array
    info.mac_cols = 32;
    info.isa_version = "pccx v002";
    const double macs_per_clock =
        double(cfg.npu.gemv_cores) * cfg.npu.gemv.macs_per_core_per_cycle + 32.0 * 32.0 * 2.0;
    info.peak_tops = macs_per_clock * 2.0 * cfg.clocks.core_mhz * 1e6 / 1e12;
    info.cores = kCpuCore + 1;
    info.clock_mhz = cfg.clocks.core_mhz;
  }

  uint64_t cycle(const sc_time& t) const { return t.value() / period.value(); }

  void add(uint32_t core, const sc_time& from, const sc_time& to, const char* type,
           const std::string& name) {
    const uint64_t c0 = cycle(from), c1 = cycle(std::max(from, to));
    writer.add(core, c0, c1 - c0, type, &name);
  }

  void instruction(const npu::command_processor::retire_record& r, const std::string& disasm) {
    const engine e = engine_of(r.unit);
    const bool mac = e == kGemv || e == kGemm;
    // Past the issue stage, the instruction waited for its unit or an older
    // instruction's L2 range.
    const sc_time ready = r.issued + issue_stage;
    if (e != kCmd && r.started > ready)
      add(kCmd, ready, r.started, "SYSTOLIC_STALL",
          "issue of #" + std::to_string(r.seq) + " waits for " + r.unit);
    add(e, e == kCmd ? r.issued : r.started, r.retired, mac ? "MAC_COMPUTE" : "API_CALL", disasm);
  }

  void descriptor(const mem::dma_channel::descriptor_record& d) {
    add(kChannelCore0 + d.page, d.start, d.end, d.to_ddr ? "DMA_WRITE" : "DMA_READ",
        std::string(kChannelNames[d.page]) + " " + mem::traffic_class_name(d.cls) + " " +
            std::to_string(d.bytes) + " B at " + hex(d.addr));
  }

  void wait_idle(const sc_time& from, const sc_time& to) {
    add(kCpuCore, from, to, "BARRIER_SYNC", "uca_hal_wait_idle");
  }

  trace::pccx_session_writer writer;
  sc_time period;
  sc_time issue_stage;
  trace::pccx_session_info info;
};

// ---------------------------------------------------------------- wiring

run_outputs::run_outputs(const config::platform_config& cfg, const runtime_params& rt,
                         platform_top& top)
    : top_(top) {
  const auto& out = cfg.output;
  if (!out.perfetto && !out.vcd && !out.pccx) return;
  // Loading refuses this; a configuration built in code is checked here.
  if (out.dir.empty())
    throw input_error("output.perfetto, output.vcd or output.pccx is on but output.dir is empty");
  const std::filesystem::path dir(out.dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  auto open = [&](const char* file, auto make) {
    try {
      return make((dir / file).string());
    } catch (const std::exception& e) {
      throw input_error(input_what("output.dir", e));
    }
  };
  if (out.perfetto)
    perfetto_ = open(kPerfettoFile, [&](const std::string& p) {
      return std::make_unique<perfetto>(p, top, cfg.npu.gemv.weight_fifos);
    });
  if (out.vcd)
    vcd_ = open(kVcdFile, [&](const std::string& p) { return std::make_unique<vcd>(p, top); });
  if (out.pccx)
    session_ = open(kPccxFile,
                    [&](const std::string& p) { return std::make_unique<session>(p, cfg, rt); });

  // The writers subscribe to the models' analysis ports beside any other
  // observer of the run.
  if (perfetto_ || session_) {
    top.npu.cmd().retirements.subscribe(
        [this, limits = rt.npu.limits()](const npu::command_processor::retire_record& r) {
          const std::string disasm = isa::disassemble(r.word, limits);
          if (perfetto_) perfetto_->instruction(r, disasm);
          if (session_) session_->instruction(r, disasm);
        });
    for (auto& ch : top.dma)
      ch->descriptors.subscribe([this](const mem::dma_channel::descriptor_record& d) {
        if (perfetto_) perfetto_->descriptor(d);
        if (session_) session_->descriptor(d);
      });
    top.cpu.idle_waits.subscribe([this](const firmware_cpu::wait_idle_record& w) {
      if (perfetto_) perfetto_->wait_idle(w.from, w.to, w.result);
      if (session_) session_->wait_idle(w.from, w.to);
    });
  }
  if (perfetto_) {
    top.simctl.counters.subscribe([this](const sim_control::counter_sample& c) {
      perfetto_->counter(c.name, c.value, c.at);
    });
    // The FIFO levels are looked at whenever the DDR serves a transaction
    // (besides each retirement and descriptor).
    top.ddr.accesses.subscribe([this](const mem::ddr_access&) { perfetto_->observe(); });
  }
  if (vcd_) top.ddr.accesses.subscribe([this](const mem::ddr_access& a) { vcd_->access(a); });
}

run_outputs::~run_outputs() = default;

void run_outputs::finish() {
  try {
    if (perfetto_) {
      perfetto_->markers(top_.simctl.markers(), top_.simctl.marker_times_ns());
      perfetto_->token_slices(top_.simctl.markers(), top_.simctl.marker_times_ns());
      perfetto_->ddr_counters(top_.ddr.recorder());
      perfetto_->unit_counters();
      perfetto_->file.close();
    }
    if (vcd_) vcd_->file.close();
    if (session_)
      session_->writer.finish(session_->info, session_->cycle(sc_core::sc_time_stamp()));
  } catch (const std::runtime_error& e) {
    throw input_error(input_what("output.dir", e));
  }
}

}  // namespace pccx::vp
