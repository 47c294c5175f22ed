#include "infra/config/config_visitors.h"

#include <algorithm>
#include <cctype>

namespace pccx::config {

namespace detail {

namespace {

constexpr std::size_t kMaxFoundText = 60;

std::string lower(const std::string& s) {
  std::string out = s;
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Optimal-string-alignment distance: Levenshtein plus adjacent
// transpositions, the usual typo model ("dpeth" vs "depth").
std::size_t edit_distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

}  // namespace

std::string json_text(const nlohmann::json& j) {
  // replace: a --set string may hold bytes that are not UTF-8.
  std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > kMaxFoundText) text = text.substr(0, kMaxFoundText - 3) + "...";
  return text;
}

std::string closest(const std::string& key, const std::vector<std::string>& candidates) {
  const std::string k = lower(key);
  std::string best;
  std::size_t best_d = std::string::npos;
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(k, lower(c));
    // About one typo per three characters; short names allow one.
    std::size_t limit = std::max<std::size_t>(1, std::min(k.size(), c.size()) / 3);
    if (d <= limit && d < best_d) {
      best = c;
      best_d = d;
    }
  }
  return best;
}

std::string did_you_mean(const std::string& key, const std::vector<std::string>& candidates) {
  if (candidates.empty()) return "";
  std::string near = closest(key, candidates);
  if (!near.empty()) return "; did you mean \"" + near + "\"?";
  return "; valid keys: " + quoted_list(candidates, "\"");
}

bool parse_hex(const std::string& text, std::uint64_t& out) {
  if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) return false;
  std::uint64_t v = 0;
  std::size_t significant = 0;
  for (std::size_t i = 2; i < text.size(); ++i) {
    char c = text[i];
    int digit;
    if (c >= '0' && c <= '9')
      digit = c - '0';
    else if (c >= 'a' && c <= 'f')
      digit = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      digit = c - 'A' + 10;
    else
      return false;
    if (v != 0 || digit != 0) ++significant;
    if (significant > 16) return false;  // does not fit in 64 bits
    v = (v << 4) | static_cast<std::uint64_t>(digit);
  }
  out = v;
  return true;
}

std::string hex_text(std::uint64_t v) {
  static const char kDigits[] = "0123456789ABCDEF";
  std::string digits;
  do {
    digits.insert(digits.begin(), kDigits[v & 0xF]);
    v >>= 4;
  } while (v != 0);
  return "0x" + digits;
}

std::string quoted_list(const std::vector<std::string>& names, const char* quote) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    out += quote + n + quote;
  }
  return out;
}

}  // namespace detail

void json_reader::check_unknown() {
  for (const auto& item : obj_.items()) {
    if (std::find(known_.begin(), known_.end(), item.key()) != known_.end()) continue;
    diag_.report(append_pointer(base_, item.key()),
                 "unknown key" + detail::did_you_mean(item.key(), known_));
  }
}

}  // namespace pccx::config
