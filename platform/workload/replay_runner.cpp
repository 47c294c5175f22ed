#include "platform/workload/replay_runner.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "infra/config/layered_json.h"
#include "infra/text/hex.h"
#include "models/npu/isa/instruction.h"
#include "pccx_dma.h"
#include "pccx_host_mem.h"
#include "pccx_replay.h"
#include "models/npu/npu_config.h"
#include "platform/vp/top/platform_top.h"
#include "platform/vp/top/runtime_params.h"
#include "platform/workload/decode_report_json.h"
#include "platform/workload/json_input.h"
#include "platform/workload/table_format.h"

namespace pccx::workload {

namespace {

namespace fs = std::filesystem;

constexpr uint32_t kAutoTag = 0xFFFFFFFFu;
// before_line when the key is absent: before the stream (0 is no line either).
constexpr uint64_t kNoLine = ~uint64_t{0};
const char* const kChannels[] = {"HP0", "HP1", "HP2", "HP3", "ACP_FMAP", "ACP_RESULT"};
const char* const kClasses[] = {"weights",     "kv_read",     "kv_write",
                                "kv_metadata", "activations", "host"};
const char* const kDmaErrors[] = {"ERR_RANGE",     "ERR_ZERO_LENGTH", "ERR_ALIGN_ADDR",
                                  "ERR_ALIGN_LEN", "ERR_BUS",         "ERR_CLASS"};

struct descriptor_schema {
  std::string channel, cls;
  uint64_t addr = 0;
  uint32_t bytes = 0, tag = kAutoTag;
  uint64_t before_line = kNoLine;
  template <class V>
  void visit(V& v) {
    v.field("channel", channel, "DMA channel",
            config::one_of({"HP0", "HP1", "HP2", "HP3", "ACP_FMAP", "ACP_RESULT"}));
    v.field("addr", addr, "DDR address of the descriptor", config::hex());
    v.field("bytes", bytes, "Bytes the descriptor moves", config::hex());
    v.field(
        "class", cls, "Traffic class (default: the channel's, weights or activations)",
        config::one_of({"weights", "kv_read", "kv_write", "kv_metadata", "activations", "host"}));
    v.field("tag", tag, "Status tag 0..15 (default: the descriptor's index mod 16)");
    v.field("before_line", before_line,
            "The .memh line of the word it is submitted before (default: before the stream)");
  }
};

struct preload_schema {
  uint64_t addr = 0, offset = 0, bytes = 0;
  uint32_t fill = 0;
  std::string hex, file;
  template <class V>
  void visit(V& v) {
    v.field("addr", addr, "DDR address the bytes go to", config::hex());
    v.field("hex", hex, "The bytes as hex digits (spaces allowed)");
    v.field("file", file, "A file of bytes, relative to the DMA file's folder");
    v.field("offset", offset, "With file: the first byte taken", config::hex());
    v.field("bytes", bytes, "With file: how many bytes (default: to the end); with fill: how many",
            config::hex());
    v.field("fill", fill, "Every byte this value", config::range(0u, 255u, "one byte"));
  }
};

struct dma_file_schema {
  std::vector<descriptor_schema> descriptors;
  std::vector<preload_schema> preload;
  template <class V>
  void visit(V& v) {
    v.field("descriptors", descriptors, "DMA descriptors, in submission order");
    v.field("preload", preload, "Bytes written into DDR before the stream");
  }
};

unsigned index_of(const char* const* names, std::size_t n, const std::string& s) {
  for (std::size_t i = 0; i < n; ++i)
    if (s == names[i]) return static_cast<unsigned>(i);
  return 0;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The bytes of one preload entry, or a problem reported to diag.
std::vector<uint8_t> preload_bytes(const preload_schema& p, const nlohmann::json& raw,
                                   const std::string& at, const std::string& file,
                                   const fs::path& folder, config::diagnostics& diag) {
  const int kinds =
      int(raw.contains("hex")) + int(raw.contains("file")) + int(raw.contains("fill"));
  if (kinds != 1) {
    diag.report(file, at, "expected exactly one of \"hex\", \"file\" and \"fill\"");
    return {};
  }
  std::vector<uint8_t> out;
  if (raw.contains("hex")) {
    int high = -1;
    for (char c : p.hex) {
      if (c == ' ' || c == '\t' || c == '\n') continue;
      const int d = hex_digit(c);
      if (d < 0) {
        diag.report(file, pointer(at, "hex"), std::string("non-hex character '") + c + "'");
        return {};
      }
      if (high < 0) {
        high = d;
      } else {
        out.push_back(static_cast<uint8_t>(high << 4 | d));
        high = -1;
      }
    }
    if (high >= 0 || out.empty())
      diag.report(file, pointer(at, "hex"),
                  "expected whole bytes: an even, nonzero number of digits");
    return out;
  }
  if (raw.contains("fill")) {
    if (p.bytes == 0)
      diag.report(file, pointer(at, "bytes"), "with fill: how many bytes, at least 1");
    return std::vector<uint8_t>(p.bytes, static_cast<uint8_t>(p.fill));
  }
  const fs::path path = fs::path(p.file).is_absolute() ? fs::path(p.file) : folder / p.file;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diag.report(file, pointer(at, "file"), "cannot open " + path.string());
    return {};
  }
  std::vector<uint8_t> all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (p.offset > all.size() || (raw.contains("bytes") && p.bytes > all.size() - p.offset)) {
    diag.report(file, at,
                "offset " + std::to_string(p.offset) + " and bytes " + std::to_string(p.bytes) +
                    " run past the end of " + path.string() + " (" + std::to_string(all.size()) +
                    " bytes)");
    return {};
  }
  const uint64_t n = raw.contains("bytes") ? p.bytes : all.size() - p.offset;
  if (n == 0) diag.report(file, pointer(at, "file"), "no bytes to write");
  return std::vector<uint8_t>(all.begin() + p.offset, all.begin() + p.offset + n);
}

// ---- the run ---------------------------------------------------------------------

// The replay program's input, for the firmware entry below.
std::vector<uint8_t> g_block;
const std::vector<replay_preload>* g_preloads = nullptr;

int host_then_replay(void) {
  // Host data goes into DDR through the CPU first, as a driver's loader
  // would put it there.
  for (const auto& p : *g_preloads)
    for (std::size_t at = 0; at < p.bytes.size(); at += 1u << 20) {
      const std::size_t n = std::min<std::size_t>(p.bytes.size() - at, 1u << 20);
      pccx_host_write(p.addr + at, p.bytes.data() + at, static_cast<uint32_t>(n));
    }
  return pccx_replay_run(g_block.data(), static_cast<uint32_t>(g_block.size()));
}

// n objects at byte `at` of b, as they are in memory: the block is little
// endian, and so are the platform and the board.
template <class T>
void put(std::vector<uint8_t>& b, std::size_t at, const T* v, std::size_t n = 1) {
  if (n != 0) std::memcpy(b.data() + at, v, n * sizeof(T));
}

std::vector<uint8_t> make_block(const replay_input& in, uint64_t deadline_ns, bool keep_going) {
  const std::size_t desc_off = sizeof(pccx_replay_header);
  const std::size_t desc_end = desc_off + in.descriptors.size() * sizeof(pccx_replay_descriptor);
  const std::size_t word_off =
      (desc_end + sizeof(uint64_t) - 1) / sizeof(uint64_t) * sizeof(uint64_t);
  pccx_replay_header h{};
  h.magic = PCCX_REPLAY_MAGIC;
  h.bytes = static_cast<uint32_t>(word_off + sizeof(uint64_t) * in.words.size());
  h.words = static_cast<uint32_t>(in.words.size());
  h.descriptors = static_cast<uint32_t>(in.descriptors.size());
  h.flags = keep_going ? PCCX_REPLAY_F_KEEP_GOING : 0u;
  h.descriptors_offset = static_cast<uint32_t>(desc_off);
  h.words_offset = static_cast<uint32_t>(word_off);
  h.deadline_ns = deadline_ns;
  // load_replay keeps channel, class and tag in range: each fits its byte.
  std::vector<pccx_replay_descriptor> descs(in.descriptors.size(), pccx_replay_descriptor{});
  for (std::size_t k = 0; k < descs.size(); ++k) {
    const replay_descriptor& d = in.descriptors[k];
    descs[k].addr = d.addr;
    descs[k].bytes = d.bytes;
    descs[k].before = static_cast<uint32_t>(d.before_word);
    descs[k].channel = static_cast<uint8_t>(d.channel);
    descs[k].cls = static_cast<uint8_t>(d.cls);
    descs[k].tag = static_cast<uint8_t>(d.tag);
  }
  std::vector<uint64_t> words;
  for (const auto& w : in.words) words.push_back(w.word);
  std::vector<uint8_t> b(word_off + sizeof(uint64_t) * words.size(), 0);
  put(b, 0, &h);
  put(b, desc_off, descs.data(), descs.size());
  put(b, word_off, words.data(), words.size());
  return b;
}

// The words after `key` in a printed line, or "" when it does not start so.
bool field_after(const std::string& line, const std::string& key, std::string& rest) {
  if (line.rfind(key, 0) != 0) return false;
  rest = line.substr(key.size());
  return true;
}

using text::hex_word;

std::size_t line_of(const replay_input& in, uint64_t seq) {
  return seq < in.words.size() ? in.words[seq].line : 0;
}

}  // namespace

replay_input load_replay(const std::string& memh, const std::string& dma_file,
                         const config::platform_config& cfg) {
  replay_input in;
  in.file = memh;
  in.words = isa::read_memh_lines(memh);
  in.dma_file = dma_file;
  if (dma_file.empty()) return in;

  config::diagnostics diag([&](const std::string&) { return config::source_ref{dma_file, 1}; });
  auto parsed = config::read_json_file(dma_file, diag);
  diag.throw_if_any();
  // A list is the descriptors alone.
  nlohmann::json doc = parsed->is_array() ? nlohmann::json{{"descriptors", *parsed}} : *parsed;
  const std::string base = parsed->is_array() ? "" : "/descriptors";
  auto desc_pointer = [&](std::size_t i) {
    return parsed->is_array() ? index_pointer("", i) : index_pointer("/descriptors", i);
  };
  dma_file_schema raw;
  if (!doc.is_object()) {
    diag.report(dma_file, "",
                "expected a list of descriptors or an object with \"descriptors\" and \"preload\", "
                "found " +
                    config::detail::json_text(doc));
    diag.throw_if_any();
  }
  if (parsed->is_array()) {
    // Pointers into a list start at the top; bind each element where it is.
    for (std::size_t i = 0; i < parsed->size(); ++i) {
      raw.descriptors.emplace_back();
      config::decode_struct((*parsed)[i], raw.descriptors.back(), desc_pointer(i), diag);
    }
  } else {
    config::decode_struct(doc, raw, "", diag);
  }
  for (const char* list : {"descriptors", "preload"}) {
    if (!doc.contains(list) || !doc[list].is_array()) continue;
    const bool descriptors = std::string(list) == "descriptors";
    for (std::size_t i = 0; i < doc[list].size(); ++i)
      if (descriptors)
        require(doc[list][i], desc_pointer(i), {"channel", "addr", "bytes"}, dma_file, diag);
      else
        require(doc[list][i], index_pointer("/preload", i), {"addr"}, dma_file, diag);
  }
  diag.throw_if_any();

  std::map<std::size_t, std::size_t> word_at_line;
  for (std::size_t w = 0; w < in.words.size(); ++w) word_at_line[in.words[w].line] = w;
  for (std::size_t i = 0; i < raw.descriptors.size(); ++i) {
    const descriptor_schema& r = raw.descriptors[i];
    replay_descriptor d;
    d.index = i;
    d.pointer = desc_pointer(i);
    d.channel = index_of(kChannels, 6, r.channel);
    d.cls = !r.cls.empty()                  ? index_of(kClasses, 6, r.cls)
            : d.channel < PCCX_DMA_ACP_FMAP ? PCCX_DMA_CLASS_WEIGHTS
                                            : PCCX_DMA_CLASS_ACTIVATIONS;
    if (r.tag != kAutoTag && r.tag > PCCX_DMA_TAG_MASK)
      diag.report(dma_file, pointer(d.pointer, "tag"),
                  "expected a tag from 0 to 15, found " + std::to_string(r.tag));
    d.tag = r.tag == kAutoTag ? static_cast<unsigned>(i % 16) : r.tag;
    d.addr = r.addr;
    d.bytes = r.bytes;
    d.before_word = 0;
    if (r.before_line != kNoLine) {
      const auto it = word_at_line.find(r.before_line);
      if (it == word_at_line.end()) {
        diag.report(
            dma_file, pointer(d.pointer, "before_line"),
            "line " + std::to_string(r.before_line) + " of " + memh + " holds no instruction word");
        continue;
      }
      d.before_word = it->second;
      d.before_line = r.before_line;
    }
    in.descriptors.push_back(std::move(d));
  }
  // Submission order: by place in the stream, the file's order within one place.
  std::stable_sort(in.descriptors.begin(), in.descriptors.end(),
                   [](const replay_descriptor& a, const replay_descriptor& b) {
                     return a.before_word < b.before_word;
                   });
  if (in.descriptors.size() > PCCX_REPLAY_MAX_DESCRIPTORS)
    diag.report(dma_file, base,
                "more than " + std::to_string(PCCX_REPLAY_MAX_DESCRIPTORS) + " descriptors");

  const fs::path folder = fs::path(dma_file).parent_path();
  const uint64_t ddr_lo = cfg.memory_map.ddr_base, ddr_hi = ddr_lo + cfg.memory_map.ddr_size;
  for (std::size_t i = 0; i < raw.preload.size(); ++i) {
    const std::string at = index_pointer("/preload", i);
    replay_preload p;
    p.pointer = at;
    p.addr = raw.preload[i].addr;
    p.bytes = preload_bytes(raw.preload[i], doc["preload"][i], at, dma_file, folder, diag);
    if (p.bytes.empty()) continue;
    if (p.addr < ddr_lo || p.addr > ddr_hi || p.bytes.size() > ddr_hi - p.addr)
      diag.report(dma_file, pointer(at, "addr"),
                  "[" + hex_word(p.addr) + ", +" + std::to_string(p.bytes.size()) +
                      ") is not inside DDR [" + hex_word(ddr_lo) + ", " + hex_word(ddr_hi) +
                      ") (memory_map.ddr_base, ddr_size)");
    in.preloads.push_back(std::move(p));
  }
  diag.throw_if_any();
  return in;
}

replay_report run_replay(const config::platform_config& cfg, const replay_input& in,
                         bool keep_going) {
  replay_report rep;
  rep.file = in.file;
  rep.dma_file = in.dma_file;
  rep.words = in.words.size();
  rep.descriptors = in.descriptors.size();
  rep.preloads = in.preloads.size();

  // The waits give up a little before the simulated-time limit, so the
  // program itself says what it was waiting for.
  const uint64_t limit_ns = cfg.simulation.max_time_ms * 1000000ull;
  const uint64_t margin = std::min<uint64_t>(10000, limit_ns / 2);
  g_block = make_block(in, limit_ns - margin, keep_going);
  g_preloads = &in.preloads;
  vp::firmware_image fw;
  fw.name = "replay";
  fw.origin = "replay of " + in.file;
  fw.entry = &host_then_replay;

  // Every error the NPU latches, with the decoder's detail (the registers
  // hold the first; a strict run ends at it).
  std::map<uint64_t, npu::npu_error> latched;
  // Which words completed, to name the first one that did not.
  std::vector<bool> completed(in.words.size(), false);
  auto probe = [&](vp::platform_top& top) {
    top.npu.cmd().errors.subscribe(
        [&latched](const npu::npu_error& e) { latched.emplace(e.seq, e); });
    top.npu.cmd().retirements.subscribe(
        [&completed](const npu::command_processor::retire_record& r) {
          if (r.seq < completed.size()) completed[r.seq] = true;
        });
  };
  rep.run = vp::run_simulation(cfg, fw, nullptr, probe);
  const vp::run_result& r = rep.run;
  rep.instructions_retired = r.instructions_retired;
  rep.sim_time_ns = r.sim_time_ns;
  rep.words_sent = in.words.size();
  const isa::decode_limits limits = config::decode_limits_of(cfg.npu, cfg.simulation.strict);

  auto npu_error = [&](uint64_t seq, uint32_t code, uint64_t word) {
    replay_npu_error e;
    e.seq = seq;
    e.code = code;
    e.word = word;
    e.line = line_of(in, seq);
    e.name = isa::error_name(code);
    e.disasm = isa::disassemble(word, limits);
    const auto it = latched.find(seq);
    if (it != latched.end()) e.detail = it->second.detail;
    rep.npu_errors.push_back(std::move(e));
  };
  bool not_idle = false;
  std::string bad_block;
  for (const auto& line : r.printed) {
    std::string rest;
    if (field_after(line, "replay: npu-error seq ", rest)) {
      unsigned long long seq = 0, word = 0;
      unsigned code = 0;
      if (std::sscanf(rest.c_str(), "%llu code %u word %llx", &seq, &code, &word) == 3)
        npu_error(seq, code, word);
    } else if (field_after(line, "replay: stopped after ", rest)) {
      rep.stopped = true;
      rep.words_sent = std::stoull(rest);
    } else if (field_after(line, "replay: dma-error descriptor ", rest) ||
               field_after(line, "replay: dma-pending descriptor ", rest) ||
               field_after(line, "replay: dma-blocked descriptor ", rest)) {
      unsigned long k = 0, bits = 0;
      const bool pending = line.find("dma-pending") != std::string::npos;
      const bool blocked = line.find("dma-blocked") != std::string::npos;
      if (std::sscanf(rest.c_str(), "%lu errors %lx", &k, &bits) < 1 || k >= in.descriptors.size())
        continue;
      const replay_descriptor& d = in.descriptors[k];
      replay_dma_problem p;
      p.descriptor = d.index;
      p.pointer = d.pointer;
      p.channel = kChannels[d.channel];
      p.errors = static_cast<uint32_t>(bits);
      for (unsigned b = 0; b < 6; ++b)
        if (bits & (1u << b)) p.reasons.push_back(kDmaErrors[b]);
      if (pending) p.reasons.push_back("no status: it never completed");
      if (blocked)
        p.reasons.push_back(
            "not submitted: the channel's status queue is full (dma.status_depth) and its oldest "
            "descriptor never completes; a before_line next to the words that use each "
            "descriptor keeps the queue moving");
      // The one that could not be submitted explains the others.
      if (blocked)
        rep.dma_errors.insert(rep.dma_errors.begin(), std::move(p));
      else
        rep.dma_errors.push_back(std::move(p));
    } else if (line == "replay: not-idle") {
      not_idle = true;
    } else if (field_after(line, "replay: bad block: ", rest)) {
      bad_block = rest;
    }
  }
  // A strict run ends at the error before the program reads it.
  if (rep.npu_errors.empty())
    for (const auto& [seq, e] : latched) npu_error(seq, e.code, e.word);

  double t_stream = -1, t_idle = -1;
  for (std::size_t i = 0; i < r.markers.size(); ++i) {
    if (r.markers[i] == "replay: stream") t_stream = r.marker_times_ns[i];
    if (r.markers[i] == "replay: idle") t_idle = r.marker_times_ns[i];
  }
  rep.idle = t_stream >= 0 && t_idle >= t_stream;
  if (rep.idle) rep.stream_ns = t_idle - t_stream;

  rep.ok = r.state == vp::run_control::state::finished && r.exit_code == 0;
  if (!rep.npu_errors.empty()) {
    const replay_npu_error& e = rep.npu_errors.front();
    rep.error = in.file + ":" + std::to_string(e.line) + ": " + e.name +
                (e.detail.empty() ? "" : ": " + e.detail) + " (word " + std::to_string(e.seq) +
                ", " + hex_word(e.word) + ")";
    if (rep.npu_errors.size() > 1)
      rep.error += " and " + std::to_string(rep.npu_errors.size() - 1) + " more NPU error" +
                   (rep.npu_errors.size() > 2 ? "s" : "");
  } else if (!rep.dma_errors.empty()) {
    const replay_dma_problem& p = rep.dma_errors.front();
    std::string why;
    for (const auto& s : p.reasons) why += (why.empty() ? "" : ", ") + s;
    rep.error = in.dma_file + ": " + p.pointer + ": " + p.channel + " descriptor: " + why;
  } else if (not_idle) {
    rep.error =
        "the NPU did not go idle before the simulated-time limit (simulation.max_time_ms = " +
        std::to_string(cfg.simulation.max_time_ms) +
        "): " + std::to_string(r.instructions_retired) + " of " + std::to_string(in.words.size()) +
        " instructions retired";
  } else if (!bad_block.empty()) {
    rep.error = "the replay program refused its block: " + bad_block;
  } else if (r.state != vp::run_control::state::finished) {
    rep.error = r.message;
  } else if (r.exit_code != 0) {
    rep.error = "the replay program ended with exit code " + std::to_string(r.exit_code);
  }
  rep.ok = rep.ok && rep.error.empty();
  // A run that did not finish its stream: the first word that neither
  // completed nor faulted is where it hung.
  if (!rep.ok && rep.npu_errors.empty())
    for (std::size_t k = 0; k < rep.words_sent && k < completed.size(); ++k)
      if (!completed[k]) {
        rep.first_pending_line = in.words[k].line;
        rep.first_pending = isa::disassemble(in.words[k].word, limits);
        rep.error += "; the first word that did not complete: " + in.file + ":" +
                     std::to_string(rep.first_pending_line) + " (" + rep.first_pending + ")";
        break;
      }

  // Per-instruction timing: the instruction trace's records with the line.
  if (!cfg.trace.instructions.empty()) {
    std::ifstream trace(cfg.trace.instructions);
    std::string line;
    while (std::getline(trace, line)) {
      nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object() || !j.contains("seq") || !j["seq"].is_number())
        continue;
      nlohmann::json rec = {{"line", line_of(in, j["seq"].get<uint64_t>())}};
      rec.update(j);
      rep.instructions.push_back(std::move(rec));
    }
  }
  return rep;
}

std::string replay_report::text() const {
  std::ostringstream o;
  o << "replay " << file << ": " << words << " word" << (words == 1 ? "" : "s") << ", "
    << descriptors << " DMA descriptor" << (descriptors == 1 ? "" : "s") << ", " << preloads
    << " preload" << (preloads == 1 ? "" : "s");
  if (!dma_file.empty()) o << " (" << dma_file << ")";
  o << "\n  instructions retired: " << instructions_retired << " of " << words << "\n";
  o << "  simulated time: " << fixed(sim_time_ns / 1e3, 3) << " us ";
  if (idle)
    o << "(the stream, from its start to idle: " << fixed(stream_ns / 1e3, 3) << " us)\n";
  else if (stopped)
    o << "(the stream stopped before its end)\n";
  else
    o << "(the NPU did not go idle after the stream)\n";
  if (run.state != vp::run_control::state::finished)
    o << "  the run failed: " << run.message << "\n";
  if (first_pending_line != 0)
    o << "  the first word that did not complete: " << file << ":" << first_pending_line << " ("
      << first_pending << ")\n";
  if (npu_errors.empty()) o << "  NPU errors: none\n";
  for (const auto& e : npu_errors) {
    o << "  NPU error at " << file << ":" << e.line << " (word " << e.seq << "): " << e.name;
    if (!e.detail.empty()) o << ": " << e.detail;
    o << "\n    " << hex_word(e.word).substr(2) << "  " << e.disasm << "\n";
  }
  if (stopped && !npu_errors.empty())
    o << "  issue stops while an error is latched, so the stream stopped there: " << words_sent
      << " of " << words << " words were written to CMD_IN (--keep-going clears each error and "
      << "goes on)\n";
  else if (stopped)
    o << "  the stream stopped at a DMA descriptor: " << words_sent << " of " << words
      << " words were written to CMD_IN\n";
  if (dma_errors.empty())
    o << "  DMA: " << (descriptors == 0 ? "no descriptors" : "every descriptor completed") << "\n";
  for (const auto& p : dma_errors) {
    o << "  DMA descriptor " << dma_file << ": " << p.pointer << " (" << p.channel << "):";
    for (const auto& s : p.reasons) o << ' ' << s;
    o << "\n";
  }
  if (!instructions.empty()) {
    o << "\n  line    seq     queued_ns      issue_ns      start_ns     retire_ns  status  "
         "instruction\n";
    for (const auto& j : instructions) {
      auto ns = [&](const char* k) {
        return j.contains(k) && j[k].is_number() ? fixed(j[k].get<double>(), 1) : std::string("-");
      };
      char head[96];
      std::snprintf(head, sizeof head, "  %4zu %6" PRIu64 " %13s %13s %13s %13s  ",
                    j.value("line", std::size_t{0}), j.value("seq", uint64_t{0}),
                    ns("queued_ns").c_str(),
                    ns(j.contains("fault_ns") ? "fault_ns" : "issue_ns").c_str(),
                    ns("start_ns").c_str(), ns("retire_ns").c_str());
      o << head << j.value("status", std::string("?")) << "  " << j.value("disasm", std::string())
        << "\n";
    }
  }
  return o.str();
}

nlohmann::json replay_document(const std::string& file, const std::string& dma_file,
                               const replay_report* report, const std::string& status,
                               const std::string& error) {
  nlohmann::json j = {{"status", status}, {"file", file}, {"dma_file", dma_file}};
  if (status != "ok") j["error"] = error;
  if (!report) return j;
  const replay_report& r = *report;
  j["words"] = r.words;
  j["descriptors"] = r.descriptors;
  j["preloads"] = r.preloads;
  j["instructions_retired"] = r.instructions_retired;
  j["words_sent"] = r.words_sent;
  j["stopped"] = r.stopped;
  j["sim_time_ns"] = r.sim_time_ns;
  j["idle"] = r.idle;
  if (r.first_pending_line != 0)
    j["first_pending"] = {{"line", r.first_pending_line}, {"disasm", r.first_pending}};
  j["stream_ns"] = r.stream_ns;
  j["npu_errors"] = nlohmann::json::array();
  for (const auto& e : r.npu_errors)
    j["npu_errors"].push_back({{"line", e.line},
                               {"seq", e.seq},
                               {"word", hex_word(e.word)},
                               {"code", e.code},
                               {"name", e.name},
                               {"detail", e.detail},
                               {"disasm", e.disasm}});
  j["dma_errors"] = nlohmann::json::array();
  for (const auto& p : r.dma_errors)
    j["dma_errors"].push_back({{"descriptor", p.descriptor},
                               {"pointer", p.pointer},
                               {"channel", p.channel},
                               {"errors", p.errors},
                               {"reasons", p.reasons}});
  if (!r.instructions.empty()) j["instructions"] = r.instructions;
  j["run"] = run_json(r.run);
  return j;
}

}  // namespace pccx::workload
