#include "platform/workload/table_format.h"

#include <cstdint>
#include <cstdio>

namespace pccx::workload {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string count_text(double v) {
  return v == static_cast<double>(static_cast<uint64_t>(v)) ? std::to_string(uint64_t(v))
                                                            : fixed(v, 1);
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace pccx::workload
