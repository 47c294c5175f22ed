// .memh reader and listing formatter (memh_reader.h).
#include "models/npu/isa/memh_reader.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace pccx::isa {

namespace {

constexpr size_t kDigits = 16;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// Text before the first "//" or "#".
std::string strip_comment(const std::string& s) {
  size_t cut = s.size();
  const size_t slash = s.find("//");
  if (slash != std::string::npos) cut = slash;
  const size_t hash = s.find('#');
  if (hash != std::string::npos && hash < cut) cut = hash;
  return s.substr(0, cut);
}

[[noreturn]] void fail_line(const std::string& name, size_t line, const std::string& reason,
                            const std::string& text) {
  throw memh_error(name + ":" + std::to_string(line) + ": " + reason + ": '" + text + "'");
}

}  // namespace

std::vector<memh_word> parse_memh_lines(std::istream& in, const std::string& name) {
  std::vector<memh_word> words;
  std::string raw;
  size_t line = 0;
  while (std::getline(in, raw)) {
    ++line;
    const std::string text = trim(strip_comment(raw));
    if (text.empty()) continue;
    if (text[0] == '@')
      fail_line(name, line, "address records are not supported (one word per line from 0)", text);
    for (char c : text) {
      if (is_space(c)) fail_line(name, line, "expected one word per line", text);
    }
    for (char c : text) {
      if (hex_value(c) < 0) {
        const std::string bad(1, c);
        fail_line(name, line, "non-hex character '" + bad + "'", text);
      }
    }
    if (text.size() != kDigits)
      fail_line(name, line, "expected 16 hex digits, got " + std::to_string(text.size()), text);
    uint64_t w = 0;
    for (char c : text) w = (w << 4) | static_cast<uint64_t>(hex_value(c));
    words.push_back({w, line});
  }
  if (in.bad()) throw memh_error(name + ": read error after line " + std::to_string(line));
  return words;
}

std::vector<memh_word> read_memh_lines(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw memh_error(path + ": cannot open file: is a directory");
  errno = 0;
  std::ifstream in(path, std::ios::in | std::ios::binary);
  if (!in) {
    const int e = errno;
    throw memh_error(path + ": cannot open file" +
                     (e != 0 ? std::string(": ") + std::strerror(e) : std::string()));
  }
  return parse_memh_lines(in, path);
}

namespace {

std::vector<uint64_t> words_of(const std::vector<memh_word>& lines) {
  std::vector<uint64_t> out;
  out.reserve(lines.size());
  for (const auto& w : lines) out.push_back(w.word);
  return out;
}

}  // namespace

std::vector<uint64_t> parse_memh(std::istream& in, const std::string& name) {
  return words_of(parse_memh_lines(in, name));
}

std::vector<uint64_t> read_memh(const std::string& path) {
  return words_of(read_memh_lines(path));
}

std::string format_listing(const std::vector<uint64_t>& words, const decode_limits& limits) {
  std::string out;
  char head[48];
  for (size_t i = 0; i < words.size(); ++i) {
    std::snprintf(head, sizeof head, "%04zx: %016" PRIx64 "  ", i, words[i]);
    out += head;
    out += disassemble(words[i], limits);
    out += '\n';
  }
  return out;
}

}  // namespace pccx::isa
