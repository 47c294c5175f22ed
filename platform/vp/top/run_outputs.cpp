#include "platform/vp/top/run_outputs.h"

#include <array>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
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
constexpr int kMarkerTid = 0, kWaitTid = 1;
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

struct run_outputs::perfetto {
  explicit perfetto(const std::string& path) : file(path) {
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
  }

  void instruction(const npu::command_processor::retire_record& r, const std::string& disasm) {
    const engine e = engine_of(r.unit);
    // MEMSET's work is the issue stage itself; a unit's starts at dispatch.
    const sc_time start = e == kCmd ? r.issued : r.started;
    nlohmann::ordered_json args = {
        {"seq", r.seq},
        {"word", hex_word(r.word)},
        {"queued_ns", trace::to_ns(r.queued)},
        {"issued_ns", trace::to_ns(r.issued)},
        {"started_ns", trace::to_ns(r.started)},
        {"retired_ns", trace::to_ns(r.retired)},
        {"status", r.err == PCCX_ERR_NONE ? std::string("ok") : isa::error_name(r.err)}};
    file.complete(kNpuPid, engine_tid(e), disasm, r.unit, start, since(start, r.retired), args);
  }

  void descriptor(const mem::dma_channel::descriptor_record& d) {
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
    file.complete(kDmaPid, static_cast<int>(d.page) + 1, mem::traffic_class_name(d.cls),
                  d.to_ddr ? "dma write" : "dma read", start, since(start, d.end), args);
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

  void markers(const std::vector<std::string>& text, const std::vector<double>& at_ns) {
    for (size_t i = 0; i < text.size() && i < at_ns.size(); ++i)
      file.instant(kFirmwarePid, kMarkerTid, text[i], "marker", sc_time(at_ns[i], sc_core::SC_NS));
  }

  trace::perfetto_trace file;
  std::array<sc_time, PCCX_DMA_CHANNELS> channel_end{};
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
    perfetto_ =
        open(kPerfettoFile, [](const std::string& p) { return std::make_unique<perfetto>(p); });
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
  if (perfetto_)
    top.simctl.counters.subscribe([this](const sim_control::counter_sample& c) {
      perfetto_->counter(c.name, c.value, c.at);
    });
  if (vcd_) top.ddr.accesses.subscribe([this](const mem::ddr_access& a) { vcd_->access(a); });
}

run_outputs::~run_outputs() = default;

void run_outputs::finish() {
  try {
    if (perfetto_) {
      perfetto_->markers(top_.simctl.markers(), top_.simctl.marker_times_ns());
      perfetto_->ddr_counters(top_.ddr.recorder());
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
