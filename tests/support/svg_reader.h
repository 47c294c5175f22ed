// Reading the platform's SVG plots back in tests: a small XML parser that
// rejects what is not well-formed (one root, matched and properly nested
// tags, quoted and unique attributes, known entities, no '<' or stray '&'
// in text), element lookup by id and class, and the area of SVG path data.
// Header-only, standard library only.
#pragma once

#include <cmath>
#include <cstddef>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace pccx::test::xml {

struct element {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::vector<element> children;
  std::string text;  // the character data directly inside, entities decoded

  bool has(const std::string& a) const { return attrs.count(a) != 0; }
  std::string attr(const std::string& a) const {
    auto it = attrs.find(a);
    if (it == attrs.end()) throw std::runtime_error("<" + name + "> has no attribute " + a);
    return it->second;
  }
  double number(const std::string& a) const { return std::stod(attr(a)); }
  // Whether the space-separated class attribute lists `c`.
  bool has_class(const std::string& c) const {
    auto it = attrs.find("class");
    if (it == attrs.end()) return false;
    const std::string& s = it->second;
    for (size_t at = 0; at < s.size();) {
      size_t end = s.find(' ', at);
      if (end == std::string::npos) end = s.size();
      if (s.compare(at, end - at, c) == 0 && end - at == c.size()) return true;
      at = end + 1;
    }
    return false;
  }
  // Every element below this one (not itself) accepted by `pred`, in document order.
  std::vector<const element*> find_all(const std::function<bool(const element&)>& pred) const {
    std::vector<const element*> out;
    collect(pred, out);
    return out;
  }
  std::vector<const element*> by_class(const std::string& tag, const std::string& c) const {
    return find_all([&](const element& e) { return e.name == tag && e.has_class(c); });
  }
  const element* by_id(const std::string& id) const {
    auto v = find_all([&](const element& e) {
      auto it = e.attrs.find("id");
      return it != e.attrs.end() && it->second == id;
    });
    return v.empty() ? nullptr : v.front();
  }
  // The text of the first <title> child, "" when there is none.
  std::string title() const {
    for (const auto& c : children)
      if (c.name == "title") return c.text;
    return "";
  }

 private:
  void collect(const std::function<bool(const element&)>& pred,
               std::vector<const element*>& out) const {
    for (const auto& c : children) {
      if (pred(c)) out.push_back(&c);
      c.collect(pred, out);
    }
  }
};

class parser {
 public:
  explicit parser(const std::string& s) : s_(s) {}

  element document() {
    if (s_.compare(0, 5, "<?xml") == 0) skip_past("?>");
    misc();
    if (!peek('<')) fail("no root element");
    element root = parse_element();
    misc();
    if (pos_ != s_.size()) fail("content after the root element");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("not well-formed XML at offset " + std::to_string(pos_) + ": " + what);
  }
  bool peek(char c) const { return pos_ < s_.size() && s_[pos_] == c; }
  bool starts(const char* t) const {
    return s_.compare(pos_, std::char_traits<char>::length(t), t) == 0;
  }
  void skip_ws() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r'))
      ++pos_;
  }
  void skip_past(const char* end) {
    const size_t at = s_.find(end, pos_);
    if (at == std::string::npos) fail(std::string("no ") + end);
    pos_ = at + std::char_traits<char>::length(end);
  }
  void comment() {
    pos_ += 4;
    const size_t at = s_.find("--", pos_);
    if (at == std::string::npos || s_.compare(at, 3, "-->") != 0) fail("bad comment");
    pos_ = at + 3;
  }
  // Whitespace, comments and processing instructions around the root.
  void misc() {
    for (;;) {
      skip_ws();
      if (starts("<!--"))
        comment();
      else if (starts("<?"))
        skip_past("?>");
      else
        return;
    }
  }
  static bool name_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
           static_cast<unsigned char>(c) >= 0x80;
  }
  static bool name_char(char c) {
    return name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
  }
  std::string name() {
    if (pos_ >= s_.size() || !name_start(s_[pos_])) fail("expected a name");
    const size_t b = pos_;
    while (pos_ < s_.size() && name_char(s_[pos_])) ++pos_;
    return s_.substr(b, pos_ - b);
  }
  // An entity reference at pos_ ('&'), decoded.
  std::string entity() {
    const size_t semi = s_.find(';', pos_);
    if (semi == std::string::npos || semi - pos_ > 10) fail("unterminated entity");
    const std::string e = s_.substr(pos_ + 1, semi - pos_ - 1);
    pos_ = semi + 1;
    if (e == "amp") return "&";
    if (e == "lt") return "<";
    if (e == "gt") return ">";
    if (e == "quot") return "\"";
    if (e == "apos") return "'";
    if (e.size() > 1 && e[0] == '#') {
      const bool hex = e[1] == 'x';
      const std::string digits = e.substr(hex ? 2 : 1);
      if (digits.empty() || digits.find_first_not_of(hex ? "0123456789abcdefABCDEF"
                                                         : "0123456789") != std::string::npos)
        fail("bad character reference &" + e + ";");
      const unsigned long cp = std::stoul(digits, nullptr, hex ? 16 : 10);
      return cp < 0x80 ? std::string(1, static_cast<char>(cp)) : std::string("?");
    }
    fail("unknown entity &" + e + ";");
  }
  element parse_element() {
    ++pos_;  // '<'
    element e;
    e.name = name();
    for (;;) {
      const size_t before = pos_;
      skip_ws();
      if (starts("/>")) {
        pos_ += 2;
        return e;
      }
      if (peek('>')) {
        ++pos_;
        break;
      }
      if (pos_ == before) fail("expected whitespace before an attribute");
      const std::string a = name();
      skip_ws();
      if (!peek('=')) fail("attribute " + a + " without '='");
      ++pos_;
      skip_ws();
      if (!peek('"') && !peek('\'')) fail("attribute " + a + " is not quoted");
      const char q = s_[pos_++];
      std::string v;
      while (pos_ < s_.size() && s_[pos_] != q) {
        if (s_[pos_] == '<') fail("'<' in the value of " + a);
        if (s_[pos_] == '&')
          v += entity();
        else
          v += s_[pos_++];
      }
      if (pos_ >= s_.size()) fail("unterminated value of " + a);
      ++pos_;
      if (!e.attrs.emplace(a, v).second) fail("attribute " + a + " given twice");
    }
    // Content up to the matching end tag.
    for (;;) {
      if (pos_ >= s_.size()) fail("<" + e.name + "> is not closed");
      if (starts("</")) {
        pos_ += 2;
        if (name() != e.name) fail("end tag does not match <" + e.name + ">");
        skip_ws();
        if (!peek('>')) fail("bad end tag");
        ++pos_;
        return e;
      }
      if (starts("<!--")) {
        comment();
      } else if (starts("<![CDATA[")) {
        pos_ += 9;
        const size_t at = s_.find("]]>", pos_);
        if (at == std::string::npos) fail("unterminated CDATA");
        e.text += s_.substr(pos_, at - pos_);
        pos_ = at + 3;
      } else if (peek('<')) {
        e.children.push_back(parse_element());
      } else if (peek('&')) {
        e.text += entity();
      } else {
        e.text += s_[pos_++];
      }
    }
  }

  const std::string& s_;
  size_t pos_ = 0;
};

// Throws std::runtime_error naming the offset of the first problem.
inline element parse(const std::string& doc) {
  return parser(doc).document();
}

// The area enclosed by SVG path data made of M/m, L/l, H/h, V/v and Z/z:
// the sum over its subpaths of the absolute shoelace area, in the path's
// own units.
inline double path_area(const std::string& d) {
  double area = 0, sub = 0, x = 0, y = 0, x0 = 0, y0 = 0;
  bool open = false;
  size_t i = 0;
  char cmd = 0;
  auto number = [&]() {
    while (i < d.size() && (d[i] == ' ' || d[i] == ',')) ++i;
    size_t used = 0;
    const double v = std::stod(d.substr(i), &used);
    i += used;
    return v;
  };
  auto to = [&](double nx, double ny) {
    sub += x * ny - nx * y;
    x = nx;
    y = ny;
  };
  auto close = [&]() {
    if (!open) return;
    to(x0, y0);
    area += std::fabs(sub) / 2;
    sub = 0;
    open = false;
  };
  while (i < d.size()) {
    const char c = d[i];
    if (c == ' ' || c == ',') {
      ++i;
      continue;
    }
    if (std::string("MmLlHhVvZz").find(c) != std::string::npos) {
      cmd = c;
      ++i;
      if (c == 'Z' || c == 'z') close();
      continue;
    }
    switch (cmd) {
      case 'M':
      case 'm': {
        const double nx = number(), ny = number();
        close();
        x = cmd == 'm' ? x + nx : nx;
        y = cmd == 'm' ? y + ny : ny;
        x0 = x;
        y0 = y;
        open = true;
        cmd = cmd == 'm' ? 'l' : 'L';  // further pairs are line-tos
        break;
      }
      case 'L': {
        const double nx = number(), ny = number();
        to(nx, ny);
        break;
      }
      case 'l': {
        const double nx = number(), ny = number();
        to(x + nx, y + ny);
        break;
      }
      case 'H': to(number(), y); break;
      case 'h': to(x + number(), y); break;
      case 'V': to(x, number()); break;
      case 'v': to(x, y + number()); break;
      default: throw std::runtime_error("path data: unexpected '" + std::string(1, c) + "'");
    }
  }
  close();
  return area;
}

}  // namespace pccx::test::xml
