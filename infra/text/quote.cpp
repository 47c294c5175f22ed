#include "infra/text/quote.h"

namespace pccx::text {

namespace {

// Length of the UTF-8 sequence at s[i], or 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  std::size_t n = 0;
  if (b >= 0xC2 && b <= 0xDF)
    n = 2;
  else if (b >= 0xE0 && b <= 0xEF)
    n = 3;
  else if (b >= 0xF0 && b <= 0xF4)
    n = 4;
  else
    return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  return n;
}

void put_hex_byte(std::string& out, unsigned char b) {
  static const char kDigits[] = "0123456789ABCDEF";
  out += "\\x";
  out += kDigits[b >> 4];
  out += kDigits[b & 15];
}

// Appends s (up to max bytes of it) escaped; keep_newlines for messages,
// quote escapes the double quote.
void append_escaped(std::string& out, std::string_view s, std::size_t max, bool keep_newlines,
                    bool quote) {
  std::size_t i = 0;
  while (i < s.size() && i < max) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b >= 0x80) {
      const std::size_t n = utf8_length(s, i);
      if (n == 0) {
        put_hex_byte(out, b);
        ++i;
      } else {
        out.append(s.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (b) {
      case '\n':
        if (keep_newlines)
          out += '\n';
        else
          out += "\\n";
        break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case 0x1B: out += "\\e"; break;
      case '\\': out += quote ? "\\\\" : "\\"; break;
      case '"': out += quote ? "\\\"" : "\""; break;
      default:
        if (b < 0x20 || b == 0x7F)
          put_hex_byte(out, b);
        else
          out += static_cast<char>(b);
    }
    ++i;
  }
  if (i < s.size()) out += "... (" + std::to_string(s.size() - i) + " more bytes)";
}

}  // namespace

std::string escaped(std::string_view input, std::size_t max_bytes) {
  std::string out;
  append_escaped(out, input, max_bytes, false, false);
  return out;
}

std::string quoted(std::string_view input, std::size_t max_bytes) {
  std::string out = "\"";
  append_escaped(out, input, max_bytes, false, true);
  return out + "\"";
}

std::string printable_message(std::string_view message, std::size_t max_line_bytes) {
  std::string out;
  std::size_t start = 0;
  while (start <= message.size()) {
    const std::size_t end = message.find('\n', start);
    const std::string_view line =
        message.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    append_escaped(out, line, max_line_bytes, false, false);
    if (end == std::string_view::npos) break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

std::string markup_escaped(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: {
        const bool control = static_cast<unsigned char>(c) < 0x20 && c != '\t' &&
                             !(keep_newlines && c == '\n');
        out += control ? ' ' : c;
      }
    }
  }
  return out;
}

}  // namespace pccx::text
