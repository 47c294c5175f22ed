#include "infra/config/layered_json.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <vector>

#include "infra/config/config_visitors.h"

namespace pccx::config {

namespace {

// No configuration nests anywhere near this deep. A deeper document would
// exhaust the stack in the recursive copies, merges and comparisons of
// nlohmann::json and the binder, so it is refused while parsing.
constexpr int kMaxDepth = 64;

// No input file of the platform comes near this size (the largest model or
// sweep file is a few kilobytes); a bigger one is a mistake (a device, a
// binary, a generated file gone wrong), refused before it is read.
constexpr std::uintmax_t kMaxJsonFileBytes = 16u << 20;

// Where each object key of `text` starts ("line:column"), in document
// order: the order of the parser's key events. A key is a string followed
// by ':' outside any other string.
std::vector<std::string> key_positions(const std::string& text) {
  std::vector<std::string> out;
  std::size_t line = 1, column = 1, i = 0;
  auto advance = [&](char c) {
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  };
  while (i < text.size()) {
    if (text[i] != '"') {
      advance(text[i++]);
      continue;
    }
    const std::string at = std::to_string(line) + ":" + std::to_string(column);
    advance(text[i++]);
    while (i < text.size() && text[i] != '"') {
      if (text[i] == '\\' && i + 1 < text.size()) advance(text[i++]);
      advance(text[i++]);
    }
    if (i < text.size()) advance(text[i++]);
    std::size_t j = i;
    while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' ||
                               text[j] == '\r'))
      ++j;
    if (j < text.size() && text[j] == ':') out.push_back(at);
  }
  return out;
}

// The keys of each open object while a document is parsed, to find the
// first key given twice in one object (nlohmann keeps the last of the two).
struct key_tracker {
  std::vector<std::map<std::string, std::size_t>> open;  // key -> its index among all keys
  std::size_t next = 0;
  std::string key;                  // the first repeated key, "" when none
  std::size_t first = 0, again = 0;  // the indexes of its two places

  void event(nlohmann::json::parse_event_t ev, const nlohmann::json& value) {
    using e = nlohmann::json::parse_event_t;
    if (ev == e::object_start) {
      open.emplace_back();
    } else if (ev == e::object_end && !open.empty()) {
      open.pop_back();
    } else if (ev == e::key && !open.empty()) {
      const auto [it, fresh] = open.back().emplace(value.get<std::string>(), next);
      if (!fresh && key.empty()) {
        key = it->first;
        first = it->second;
        again = next;
      }
      ++next;
    }
  }
};

// Parses text; values nested deeper than kMaxDepth are dropped (the parser
// itself does not recurse) and too_deep is set. `keys`, when given, sees
// every object and key on the way.
nlohmann::json parse_bounded(const std::string& text, bool allow_exceptions, bool& too_deep,
                             key_tracker* keys = nullptr) {
  too_deep = false;
  return nlohmann::json::parse(
      text,
      [&too_deep, keys](int depth, nlohmann::json::parse_event_t ev, nlohmann::json& value) {
        if (depth > kMaxDepth) {
          too_deep = true;
          return false;
        }
        if (keys) keys->event(ev, value);
        return true;
      },
      allow_exceptions);
}

std::string too_deep_message() {
  return "nested deeper than " + std::to_string(kMaxDepth) + " levels";
}

std::vector<std::string> split_path(const std::string& key) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

bool parse_index(const std::string& s, std::size_t& out) {
  if (s.empty() || s.size() > 9) return false;
  out = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    out = out * 10 + static_cast<std::size_t>(c - '0');
  }
  return true;
}

std::string parent_of(const std::string& ptr) {
  std::size_t slash = ptr.rfind('/');
  return slash == std::string::npos ? std::string() : ptr.substr(0, slash);
}

}  // namespace

layered_json::layered_json(nlohmann::json defaults, std::string defaults_name)
    : doc_(std::move(defaults)) {
  origins_[""] = source_ref{std::move(defaults_name), 0};
}

void layered_json::set_origin(const std::string& ptr, const source_ref& from) {
  // The value at ptr was replaced wholesale, so older records below it are
  // stale. Descendants sort contiguously right after ptr + "/".
  const std::string prefix = ptr + "/";
  auto it = origins_.lower_bound(prefix);
  while (it != origins_.end() && it->first.compare(0, prefix.size(), prefix) == 0)
    it = origins_.erase(it);
  origins_[ptr] = from;
}

void layered_json::merge_into(nlohmann::json& dst, const nlohmann::json& src,
                              const std::string& ptr, const source_ref& from) {
  if (dst.is_object() && src.is_object()) {
    for (const auto& item : src.items()) {
      std::string child = append_pointer(ptr, item.key());
      auto it = dst.find(item.key());
      if (it == dst.end()) {
        dst[item.key()] = item.value();
        set_origin(child, from);
      } else {
        merge_into(*it, item.value(), child, from);
      }
    }
    return;
  }
  dst = src;
  set_origin(ptr, from);
}

void layered_json::merge(const nlohmann::json& layer, const std::string& source) {
  merge_into(doc_, layer, "", source_ref{source, next_layer_++});
}

void layered_json::merge_file(const std::string& path, diagnostics& diag) {
  auto parsed = read_json_file(path, diag);
  if (!parsed) return;
  if (!parsed->is_object()) {
    diag.report(path, "",
                "expected a JSON object at the top level, found " + detail::json_text(*parsed));
    return;
  }
  merge(*parsed, path);
}

void layered_json::apply_set(const std::string& assignment, diagnostics& diag) {
  const std::string source = "--set " + assignment;
  std::size_t eq = assignment.find('=');
  if (eq == std::string::npos) {
    diag.report(source, "",
                "missing '='; expected --set KEY=VALUE, e.g. --set npu.cmd_fifo_depth=16");
    return;
  }
  const std::string key = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  if (key.empty()) {
    diag.report(source, "", "missing key before '='; expected --set KEY=VALUE");
    return;
  }
  std::vector<std::string> segments = split_path(key);
  for (const auto& seg : segments) {
    if (seg.empty()) {
      diag.report(source, "",
                  "empty segment in key \"" + key + "\"; segments are separated by single dots");
      return;
    }
  }

  // JSON when it parses (numbers, true, "quoted", [..], {..}), else the raw text.
  bool too_deep = false;
  nlohmann::json value = parse_bounded(text, /*allow_exceptions=*/false, too_deep);
  if (too_deep) {
    diag.report(source, "", "value " + too_deep_message());
    return;
  }
  if (value.is_discarded()) value = text;

  const source_ref from{source, next_layer_++};
  nlohmann::json* node = &doc_;
  std::string ptr;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const std::string& seg = segments[i];
    const bool last = i + 1 == segments.size();
    std::string child = append_pointer(ptr, seg);
    if (node->is_object()) {
      auto it = node->find(seg);
      if (it == node->end()) {
        (*node)[seg] = last ? value : nlohmann::json::object();
        set_origin(child, from);
        if (last) return;
        node = &(*node)[seg];
      } else if (last) {
        merge_into(*it, value, child, from);
        return;
      } else {
        node = &*it;
      }
    } else if (node->is_array()) {
      std::size_t index = 0;
      if (!parse_index(seg, index)) {
        diag.report(source, ptr, "is an array; expected an index, found \"" + seg + "\"");
        return;
      }
      if (index >= node->size()) {
        diag.report(source, ptr,
                    "has no entry " + seg + " (the array has " + std::to_string(node->size()) +
                        " entries)");
        return;
      }
      if (last) {
        merge_into((*node)[index], value, child, from);
        return;
      }
      node = &(*node)[index];
    } else {
      diag.report(source, ptr,
                  std::string("is a ") + node->type_name() + ", so it has no key \"" + seg + "\"");
      return;
    }
    ptr = child;
  }
}

source_ref layered_json::origin_of(const std::string& pointer) const {
  std::string p = pointer;
  while (true) {
    auto it = origins_.find(p);
    if (it != origins_.end()) return it->second;
    if (p.empty()) return source_ref{"config", 0};  // unreachable: "" is always recorded
    p = parent_of(p);
  }
}

source_ref layered_json::blame_of(const std::string& pointer) const {
  source_ref found = origin_of(pointer);
  // A later layer may have set fields below the pointer (a problem found
  // on a whole section): that layer is the one to name.
  const std::string prefix = pointer + "/";
  for (auto it = origins_.lower_bound(prefix);
       it != origins_.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it)
    if (it->second.layer > found.layer) found = it->second;
  return found;
}

diagnostics::locator layered_json::locator() const {
  return [this](const std::string& pointer) { return blame_of(pointer); };
}

std::optional<nlohmann::json> read_json_file(const std::string& path, diagnostics& diag) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    diag.report(path, "", "is a directory, not a JSON file");
    return std::nullopt;
  }
  // A device, a pipe or a socket could be read forever.
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
    diag.report(path, "", "is not a regular file (a device, a pipe or a socket), not a JSON file");
    return std::nullopt;
  }
  if (const auto size = std::filesystem::file_size(path, ec); !ec && size > kMaxJsonFileBytes) {
    diag.report(path, "",
                "is " + std::to_string(size) + " bytes, above the " +
                    std::to_string(kMaxJsonFileBytes >> 20) +
                    " MiB a JSON input of the platform may have");
    return std::nullopt;
  }
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    diag.report(path, "", std::string("cannot open file: ") + std::strerror(errno));
    return std::nullopt;
  }
  std::string text;
  char buf[8192];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  bool read_failed = std::ferror(f) != 0;
  std::fclose(f);
  if (read_failed) {
    diag.report(path, "", "cannot read file");
    return std::nullopt;
  }
  // The parser would stop at a NUL and ignore what follows.
  if (const auto nul = text.find('\0'); nul != std::string::npos) {
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < nul; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    diag.report(path + ":" + std::to_string(line) + ":" + std::to_string(column), "",
                "a NUL byte: a JSON file is text");
    return std::nullopt;
  }

  try {
    bool too_deep = false;
    key_tracker keys;
    nlohmann::json doc = parse_bounded(text, /*allow_exceptions=*/true, too_deep, &keys);
    if (too_deep) {
      diag.report(path, "", too_deep_message());
      return std::nullopt;
    }
    // nlohmann keeps the last of two equal keys; a file that says two
    // things of one key is a mistake.
    if (!keys.key.empty()) {
      const auto positions = key_positions(text);
      auto at = [&](std::size_t k) { return k < positions.size() ? positions[k] : std::string("?"); };
      diag.report(path, "",
                  "key \"" + keys.key + "\" at " + at(keys.first) + " and " + at(keys.again) +
                      ": a key may appear once in an object");
      return std::nullopt;
    }
    return doc;
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond the range of double: "[json.exception.out_of_range.406]
    // number overflow parsing '1E400'", without a position.
    const std::string what = e.what();
    const std::size_t end = what.find("] ");
    diag.report(path, "", end == std::string::npos ? what : what.substr(end + 2));
    return std::nullopt;
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann's message reads "[json.exception.parse_error.101] parse error
    // at line L, column C: REASON"; keep its line/column and reason.
    std::string what = e.what();
    std::size_t line = 0, column = 0;
    std::size_t at = what.find("at line ");
    std::string reason = what;
    if (at != std::string::npos &&
        std::sscanf(what.c_str() + at, "at line %zu, column %zu", &line, &column) == 2) {
      std::size_t colon = what.find(": ", at);
      if (colon != std::string::npos) reason = what.substr(colon + 2);
    } else {
      // Fallback: derive the position from the byte offset.
      line = 1;
      column = 0;
      for (std::size_t i = 0; i < e.byte && i < text.size(); ++i) {
        if (text[i] == '\n') {
          ++line;
          column = 0;
        } else {
          ++column;
        }
      }
    }
    diag.report(path + ":" + std::to_string(line) + ":" + std::to_string(column), "", reason);
    return std::nullopt;
  }
}

void write_text_file(const std::string& text, const std::string& path) {
  if (path == "-") {
    std::cout << text << std::flush;
    return;
  }
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw config_error({path + ": cannot write: " + std::strerror(errno)});
  out << text;
  out.flush();
  if (!out) throw config_error({path + ": write failed: " + std::strerror(errno)});
}

}  // namespace pccx::config
