// .pccx session files, the trace format of pccx-lab:
//
//   "PCCX", u8 major 1, u8 minor 1, 2 reserved zero bytes,
//   u64 LE length of the JSON header, the JSON header, the payload.
//
// The header is {pccx_lab_version, arch {mac_dims, isa_version, peak_tops},
// trace {cycles, cores, clock_mhz}, payload {encoding "bincode",
// byte_length, checksum_fnv64}, format_minor}. The payload is bincode v1
// (little endian, u64 lengths, Option as a u8 tag then the value) of
// NpuTrace {total_cycles u64, events [NpuEvent {core_id u32, start_cycle
// u64, duration u64, event_type String, api_name Option<String>}]}.
// checksum_fnv64 is the FNV-1a-64 of the payload bytes, written as a JSON
// number (an unsigned 64-bit integer, as pccx-lab reads it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace pccx::trace {

constexpr uint64_t kFnv64Basis = 0xcbf29ce484222325ull;
constexpr uint64_t kFnv64Prime = 0x100000001b3ull;
// FNV-1a-64 of n bytes, continuing from `hash`.
uint64_t fnv1a64(const void* data, size_t n, uint64_t hash = kFnv64Basis);

struct pccx_event {
  uint32_t core_id = 0;
  uint64_t start_cycle = 0;
  uint64_t duration = 0;
  std::string
      event_type;  // MAC_COMPUTE, DMA_READ, DMA_WRITE, SYSTOLIC_STALL, BARRIER_SYNC, API_CALL
  std::optional<std::string> api_name;
};

// What the header says about the machine and the trace.
struct pccx_session_info {
  std::string producer;  // pccx_lab_version: the tool and version that wrote the file
  uint32_t mac_rows = 32, mac_cols = 32;
  std::string isa_version;
  double peak_tops = 0;
  uint32_t cores = 0;
  double clock_mhz = 0;
};

// Writes a session while the run goes: events are appended to `path`.part
// as they come, and finish() writes `path` (header, then the payload with
// its checksum) and removes the part file.
class pccx_session_writer {
 public:
  explicit pccx_session_writer(const std::string& path);  // throws std::runtime_error
  ~pccx_session_writer();
  pccx_session_writer(const pccx_session_writer&) = delete;
  pccx_session_writer& operator=(const pccx_session_writer&) = delete;

  void add(uint32_t core_id, uint64_t start_cycle, uint64_t duration, const char* event_type,
           const std::string* api_name);
  // Throws std::runtime_error when a file cannot be written.
  void finish(const pccx_session_info& info, uint64_t total_cycles);

  uint64_t events() const { return events_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_, part_path_;
  std::ofstream part_;
  uint64_t events_ = 0;
  uint64_t part_bytes_ = 0;
  bool finished_ = false;
};

struct pccx_session {
  uint8_t major = 0, minor = 0;
  nlohmann::json header;
  uint64_t total_cycles = 0;
  std::vector<pccx_event> events;
  uint64_t payload_bytes = 0;
  std::optional<uint64_t> checksum_stored;  // absent when the header has none
  uint64_t checksum_computed = 0;
  // Problems that do not stop reading, such as a checksum mismatch (what
  // pccx-lab also only warns about).
  std::vector<std::string> warnings;

  bool checksum_ok() const { return !checksum_stored || *checksum_stored == checksum_computed; }
};

// Reads a session file. Throws std::runtime_error naming the problem when
// it is not one: wrong magic, major version other than 1, a truncated file,
// a header that is not JSON, an encoding other than bincode, a payload that
// does not decode (the message also says whether the checksum matched).
// A checksum mismatch alone is a warning.
pccx_session read_pccx_session(const std::string& path);

}  // namespace pccx::trace
