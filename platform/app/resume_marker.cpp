#include "platform/app/resume_marker.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>

#include "infra/io/output_file.h"
#include "platform/app/child_process.h"

namespace pccx::app {

std::string command_fingerprint(const std::vector<std::string>& args) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const auto& a : args) {
    for (unsigned char c : a) h = (h ^ c) * 0x100000001b3ull;
    h = (h ^ 0u) * 0x100000001b3ull;  // an argument's end, so "ab","c" != "a","bc"
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

void mark_complete(const std::string& path, const std::string& fingerprint,
                   const nlohmann::json& record) {
  const nlohmann::json marker = {{"fingerprint", fingerprint}, {"record", record}};
  io::write_output(path, marker.dump() + "\n", "resume marker");
}

std::optional<nlohmann::json> completed(const std::string& path, const std::string& fingerprint) {
  std::error_code ec;
  // Markers are a few hundred bytes; anything else is not one.
  if (!std::filesystem::is_regular_file(path, ec) ||
      std::filesystem::file_size(path, ec) > (1u << 20) || ec)
    return std::nullopt;
  const nlohmann::json marker = nlohmann::json::parse(read_text(path), nullptr, false);
  if (!marker.is_object() || marker.value("fingerprint", std::string()) != fingerprint ||
      !marker.contains("record"))
    return std::nullopt;
  return marker["record"];
}

}  // namespace pccx::app
