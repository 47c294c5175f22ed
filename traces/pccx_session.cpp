#include "traces/pccx_session.h"

#include <array>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "infra/text/hex.h"

namespace pccx::trace {

namespace {

constexpr char kMagic[4] = {'P', 'C', 'C', 'X'};
constexpr uint8_t kMajor = 1;
constexpr uint8_t kMinor = 1;

std::string hex64(uint64_t v) {
  return text::hex_word(v);
}

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

void put_string(std::string& out, const std::string& s) {
  put_u64(out, s.size());
  out += s;
}

// Little-endian reader over the payload; every read checks the bounds.
class payload_reader {
 public:
  payload_reader(const std::string& bytes) : b_(bytes) {}
  uint64_t u64(const char* what) { return take(8, what); }
  uint32_t u32(const char* what) { return static_cast<uint32_t>(take(4, what)); }
  uint8_t u8(const char* what) { return static_cast<uint8_t>(take(1, what)); }
  std::string string(const char* what) {
    const uint64_t n = u64(what);
    if (n > b_.size() - at_)
      throw std::runtime_error(std::string(what) + ": length " + std::to_string(n) +
                               " runs past the payload's end at byte " + std::to_string(at_));
    std::string s = b_.substr(at_, n);
    at_ += n;
    return s;
  }
  size_t at() const { return at_; }
  size_t left() const { return b_.size() - at_; }

 private:
  uint64_t take(size_t n, const char* what) {
    if (n > b_.size() - at_)
      throw std::runtime_error(std::string(what) + " runs past the payload's end at byte " +
                               std::to_string(at_));
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i)
      v |= static_cast<uint64_t>(static_cast<uint8_t>(b_[at_ + i])) << (8 * i);
    at_ += n;
    return v;
  }
  const std::string& b_;
  size_t at_ = 0;
};

// pccx-lab reads clock_mhz as a number; a whole number of MHz is written
// without a fraction so an integer field accepts it too.
nlohmann::ordered_json mhz_json(double mhz) {
  if (mhz == std::floor(mhz) && mhz >= 0 && mhz < 4e9) return static_cast<uint64_t>(mhz);
  return mhz;
}

}  // namespace

uint64_t fnv1a64(const void* data, size_t n, uint64_t hash) {
  const auto* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < n; ++i) {
    hash ^= p[i];
    hash *= kFnv64Prime;
  }
  return hash;
}

// ---------------------------------------------------------------- writer

pccx_session_writer::pccx_session_writer(const std::string& path)
    : path_(path),
      part_path_(path + ".part"),
      part_(part_path_, std::ios::trunc | std::ios::binary) {
  if (!part_)
    throw std::runtime_error("cannot open session file '" + part_path_ +
                             "' for writing: " + std::strerror(errno));
}

pccx_session_writer::~pccx_session_writer() {
  if (finished_) return;
  // A run that never finished leaves no half-written session behind.
  part_.close();
  std::error_code ec;
  std::filesystem::remove(part_path_, ec);
}

void pccx_session_writer::add(uint32_t core_id, uint64_t start_cycle, uint64_t duration,
                              const char* event_type, const std::string* api_name) {
  std::string rec;
  rec.reserve(64);
  put_u32(rec, core_id);
  put_u64(rec, start_cycle);
  put_u64(rec, duration);
  put_string(rec, event_type);
  if (api_name) {
    rec.push_back('\1');
    put_string(rec, *api_name);
  } else {
    rec.push_back('\0');
  }
  part_.write(rec.data(), static_cast<std::streamsize>(rec.size()));
  part_bytes_ += rec.size();
  ++events_;
}

void pccx_session_writer::finish(const pccx_session_info& info, uint64_t total_cycles) {
  if (finished_) return;
  part_.close();
  if (!part_) throw std::runtime_error("cannot write session file '" + part_path_ + "'");

  // The payload starts with total_cycles and the event count, known only
  // now: hash them, then the events from the part file.
  std::string prefix;
  put_u64(prefix, total_cycles);
  put_u64(prefix, events_);
  uint64_t hash = fnv1a64(prefix.data(), prefix.size());
  std::array<char, 1 << 16> buf;
  {
    std::ifstream in(part_path_, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read session file '" + part_path_ + "'");
    while (in) {
      in.read(buf.data(), buf.size());
      hash = fnv1a64(buf.data(), static_cast<size_t>(in.gcount()), hash);
    }
  }

  nlohmann::ordered_json header = {
      {"pccx_lab_version", info.producer},
      {"arch",
       {{"mac_dims", {info.mac_rows, info.mac_cols}},
        {"isa_version", info.isa_version},
        {"peak_tops", info.peak_tops}}},
      {"trace",
       {{"cycles", total_cycles}, {"cores", info.cores}, {"clock_mhz", mhz_json(info.clock_mhz)}}},
      {"payload",
       {{"encoding", "bincode"},
        {"byte_length", prefix.size() + part_bytes_},
        {"checksum_fnv64", hash}}},
      {"format_minor", kMinor}};
  const std::string header_text = header.dump();

  std::ofstream out(path_, std::ios::trunc | std::ios::binary);
  if (!out)
    throw std::runtime_error("cannot open session file '" + path_ +
                             "' for writing: " + std::strerror(errno));
  std::string preamble(kMagic, sizeof kMagic);
  preamble.push_back(static_cast<char>(kMajor));
  preamble.push_back(static_cast<char>(kMinor));
  preamble.push_back('\0');
  preamble.push_back('\0');
  put_u64(preamble, header_text.size());
  out << preamble << header_text << prefix;
  {
    std::ifstream in(part_path_, std::ios::binary);
    while (in) {
      in.read(buf.data(), buf.size());
      out.write(buf.data(), in.gcount());
    }
  }
  out.close();
  if (!out) throw std::runtime_error("cannot write session file '" + path_ + "'");
  std::error_code ec;
  std::filesystem::remove(part_path_, ec);
  finished_ = true;
}

// ---------------------------------------------------------------- reader

pccx_session read_pccx_session(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open session file '" + path + "'");
  auto fail = [&](const std::string& why) {
    return std::runtime_error("session file '" + path + "': " + why);
  };
  std::string pre(16, '\0');
  in.read(pre.data(), 16);
  if (in.gcount() != 16) throw fail("shorter than the 16-byte preamble");
  if (pre.compare(0, 4, kMagic, 4) != 0) throw fail("no \"PCCX\" magic");
  pccx_session s;
  s.major = static_cast<uint8_t>(pre[4]);
  s.minor = static_cast<uint8_t>(pre[5]);
  if (s.major != kMajor)
    throw fail("format version " + std::to_string(s.major) + "." + std::to_string(s.minor) +
               ", this reader knows major version 1");
  uint64_t header_len = 0;
  for (int i = 0; i < 8; ++i)
    header_len |= static_cast<uint64_t>(static_cast<uint8_t>(pre[8 + i])) << (8 * i);

  const auto file_bytes = std::filesystem::file_size(path);
  if (header_len > file_bytes - 16)
    throw fail("header length " + std::to_string(header_len) + " runs past the end of the file");
  std::string header_text(header_len, '\0');
  in.read(header_text.data(), static_cast<std::streamsize>(header_len));
  try {
    s.header = nlohmann::json::parse(header_text);
  } catch (const nlohmann::json::exception& e) {
    throw fail(std::string("header is not JSON: ") + e.what());
  }
  const nlohmann::json payload = s.header.value("payload", nlohmann::json::object());
  const std::string encoding = payload.value("encoding", "");
  if (encoding != "bincode") throw fail("payload encoding \"" + encoding + "\", expected bincode");
  if (!payload.contains("byte_length") || !payload["byte_length"].is_number_unsigned())
    throw fail("header has no payload.byte_length");
  s.payload_bytes = payload["byte_length"].get<uint64_t>();
  if (s.payload_bytes > file_bytes - 16 - header_len)
    throw fail("payload of " + std::to_string(s.payload_bytes) + " bytes, the file holds " +
               std::to_string(file_bytes - 16 - header_len));
  if (s.payload_bytes < file_bytes - 16 - header_len)
    s.warnings.push_back(std::to_string(file_bytes - 16 - header_len - s.payload_bytes) +
                         " bytes after the payload");
  std::string bytes(s.payload_bytes, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(s.payload_bytes));

  s.checksum_computed = fnv1a64(bytes.data(), bytes.size());
  if (payload.contains("checksum_fnv64")) {
    if (!payload["checksum_fnv64"].is_number_unsigned())
      throw fail("payload.checksum_fnv64 is not an unsigned integer");
    s.checksum_stored = payload["checksum_fnv64"].get<uint64_t>();
    if (!s.checksum_ok())
      s.warnings.push_back("checksum mismatch: header says " + hex64(*s.checksum_stored) +
                           ", the payload hashes to " + hex64(s.checksum_computed));
  }

  try {
    payload_reader r(bytes);
    s.total_cycles = r.u64("total_cycles");
    const uint64_t n = r.u64("event count");
    // Each event takes at least 29 bytes: no huge allocation from a bad count.
    if (n > r.left() / 29)
      throw std::runtime_error("event count " + std::to_string(n) + " does not fit the payload");
    s.events.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
      pccx_event e;
      e.core_id = r.u32("core_id");
      e.start_cycle = r.u64("start_cycle");
      e.duration = r.u64("duration");
      e.event_type = r.string("event_type");
      const uint8_t tag = r.u8("api_name tag");
      if (tag == 1)
        e.api_name = r.string("api_name");
      else if (tag != 0)
        throw std::runtime_error("event " + std::to_string(i) + ": Option tag " +
                                 std::to_string(tag) + " (0 or 1 expected)");
      s.events.push_back(std::move(e));
    }
    if (r.left() != 0)
      throw std::runtime_error(std::to_string(r.left()) + " bytes left after the last event");
  } catch (const std::runtime_error& e) {
    throw fail(std::string("payload does not decode: ") + e.what() +
               (s.checksum_ok() ? " (checksum matches)" : " (checksum mismatch)"));
  }
  return s;
}

}  // namespace pccx::trace
