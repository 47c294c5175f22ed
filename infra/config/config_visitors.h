// The three visitors that a config struct's visit() drives:
//   json_writer   struct -> JSON (defaults layer, dump)
//   json_reader   JSON -> struct, with type, range and unknown-key checks
//   key_describer struct -> key_info rows (documentation)
// Because all three walk the same visit(), the schema cannot disagree with
// the parser or the docs.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "infra/config/config_error.h"
#include "infra/config/config_schema.h"

namespace pccx::config {

namespace detail {

// Compact JSON text of a found value, shortened for error messages.
std::string json_text(const nlohmann::json& j);
// "; did you mean "x"?" when one candidate is close, else "; valid keys: ..."
// (empty when there are no candidates).
std::string did_you_mean(const std::string& key, const std::vector<std::string>& candidates);
// Closest candidate within a small edit distance, or empty.
std::string closest(const std::string& key, const std::vector<std::string>& candidates);
// Accepts exactly "0x"/"0X" followed by 1..16 hex digits.
bool parse_hex(const std::string& text, std::uint64_t& out);
std::string hex_text(std::uint64_t v);  // "0xA0000000"
std::string quoted_list(const std::vector<std::string>& names, const char* quote);

template <class L>
std::string number_text(L v, bool hex) {
  if constexpr (is_unsigned_field_v<L>) {
    if (hex) return hex_text(v);
  }
  (void)hex;
  if constexpr (std::is_floating_point_v<L>)
    return nlohmann::json(v).dump();  // shortest round-trip form, "1.0"
  else
    return std::to_string(v);
}

// Effective bounds of an integer leaf: narrower types are bounded by their
// own limits even without range(), so out-of-range input is never
// truncated silently.
template <class L>
std::pair<std::optional<L>, std::optional<L>> effective_bounds(const field_spec<L>& s) {
  auto lo = s.lo;
  auto hi = s.hi;
  if constexpr (std::is_integral_v<L>) {
    if (std::numeric_limits<L>::digits < 63) {
      if (!lo) lo = std::numeric_limits<L>::min();
      if (!hi) hi = std::numeric_limits<L>::max();
    }
  }
  return {lo, hi};
}

template <class L>
std::string bounds_text(const field_spec<L>& s) {
  if constexpr (is_number_field_v<L>) {
    auto [lo, hi] = effective_bounds(s);
    if (lo && hi)
      return "[" + number_text(*lo, s.hex_out) + ", " + number_text(*hi, s.hex_out) + "]";
    if (lo) return ">= " + number_text(*lo, s.hex_out);
    if (hi) return "<= " + number_text(*hi, s.hex_out);
  }
  (void)s;
  return "";
}

// "an unsigned integer in [1, 1024]", "one of "a", "b"", ...
template <class L>
std::string expectation(const field_spec<L>& s) {
  std::string kind;
  if constexpr (std::is_same_v<L, bool>)
    kind = "a boolean";
  else if constexpr (is_unsigned_field_v<L>)
    kind = s.hex_in ? "an unsigned integer or a \"0x...\" hex string" : "an unsigned integer";
  else if constexpr (is_signed_field_v<L>)
    kind = "an integer";
  else if constexpr (std::is_floating_point_v<L>)
    kind = "a number";
  else if constexpr (std::is_same_v<L, std::string> || std::is_enum_v<L>)
    kind = s.choices.empty() ? "a string" : "one of " + quoted_list(s.choices, "\"");
  else
    kind = "an object";
  std::string b = bounds_text(s);
  if (b.empty()) return kind;
  return kind + (b[0] == '[' ? " in " : " ") + b;
}

template <class T>
std::string type_name() {
  if constexpr (std::is_same_v<T, bool>)
    return "boolean";
  else if constexpr (is_unsigned_field_v<T>)
    return "uint" + std::to_string(std::numeric_limits<T>::digits);
  else if constexpr (is_signed_field_v<T>)
    return "int" + std::to_string(std::numeric_limits<T>::digits + 1);
  else if constexpr (std::is_floating_point_v<T>)
    return "number";
  else if constexpr (std::is_same_v<T, std::string> || std::is_enum_v<T>)
    return "string";
  else if constexpr (is_vector<T>::value)
    return "array of " + type_name<typename T::value_type>();
  else if constexpr (is_string_map<T>::value)
    return "map of string";
  else
    return "object";
}

template <class T>
std::string constraint_text(const field_spec<leaf_t<T>>& s) {
  std::vector<std::string> parts;
  if (!bounds_text(s).empty()) parts.push_back(bounds_text(s));
  if (s.hex_in) parts.push_back("\"0x...\" accepted");
  if (!s.choices.empty())
    parts.push_back(std::string(is_string_map<T>::value ? "values: " : "") + "one of " +
                    quoted_list(s.choices, ""));
  if (s.count) {
    if (s.count->min == s.count->max)
      parts.push_back("exactly " + std::to_string(s.count->min) + " entries");
    else
      parts.push_back(std::to_string(s.count->min) + " to " + std::to_string(s.count->max) +
                      " entries");
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

}  // namespace detail

// ---- struct -> JSON --------------------------------------------------------

template <class Json, class T>
Json encode_struct(const T& value);

template <class Json, class T>
Json encode(const T& value, const field_spec<leaf_t<T>>& s) {
  if constexpr (is_vector<T>::value) {
    Json a = Json::array();
    for (const auto& e : value) a.push_back(encode<Json>(e, s));
    return a;
  } else if constexpr (is_string_map<T>::value) {
    Json o = Json::object();
    for (const auto& [k, v] : value) o[k] = v;
    return o;
  } else if constexpr (is_struct_field_v<T>) {
    return encode_struct<Json>(value);
  } else if constexpr (std::is_enum_v<T>) {
    return Json(enum_name(value));
  } else {
    if constexpr (is_unsigned_field_v<T>) {
      if (s.hex_out) return Json(detail::hex_text(value));
    }
    return Json(value);
  }
}

// Json is nlohmann::json or nlohmann::ordered_json (keeps declaration order
// for files people read).
template <class Json>
class json_writer {
 public:
  template <class T, class... Opts>
  void field(const char* name, T& value, const char* /*doc*/, const Opts&... opts) {
    out[name] = encode<Json>(value, make_spec<T>(opts...));
  }
  Json out = Json::object();
};

template <class Json, class T>
Json encode_struct(const T& value) {
  T copy(value);  // visit() is non-const; configs are small
  json_writer<Json> w;
  copy.visit(w);
  return std::move(w.out);
}

// ---- JSON -> struct --------------------------------------------------------

template <class T>
void decode_struct(const nlohmann::json& j, T& out, const std::string& ptr, diagnostics& diag);

// Decodes one value; on error reports it and leaves `out` unchanged.
template <class T>
void decode(const nlohmann::json& j, T& out, const field_spec<leaf_t<T>>& s, const std::string& ptr,
            diagnostics& diag) {
  auto fail = [&](const std::string& expected) {
    diag.report(ptr, "expected " + expected + ", found " + detail::json_text(j));
  };
  // A number outside its bounds also hears why the bounds are there.
  auto fail_range = [&]() {
    diag.report(ptr, "expected " + detail::expectation(s) + ", found " + detail::json_text(j) +
                         (s.range_reason.empty() ? "" : " (" + s.range_reason + ")"));
  };
  if constexpr (is_struct_field_v<T>) {
    decode_struct(j, out, ptr, diag);
  } else if constexpr (is_vector<T>::value) {
    using E = typename T::value_type;
    std::string each = is_struct_field_v<E> ? "objects" : detail::type_name<E>() + " values";
    if (!j.is_array()) return fail("an array of " + each);
    if (s.count && (j.size() < s.count->min || j.size() > s.count->max)) {
      std::string n = s.count->min == s.count->max
                          ? "exactly " + std::to_string(s.count->min)
                          : std::to_string(s.count->min) + " to " + std::to_string(s.count->max);
      diag.report(ptr, "expected " + n + " entries, found " + std::to_string(j.size()));
      return;
    }
    std::size_t before = diag.count();
    T tmp;
    for (std::size_t i = 0; i < j.size(); ++i) {
      E e{};  // fields missing from an element keep the element type's defaults
      decode(j[i], e, s, append_pointer(ptr, std::to_string(i)), diag);
      tmp.push_back(std::move(e));
    }
    if (diag.count() == before) out = std::move(tmp);
  } else if constexpr (is_string_map<T>::value) {
    if (!j.is_object()) return fail("an object mapping names to strings");
    std::size_t before = diag.count();
    T tmp;
    for (const auto& [k, v] : j.items()) {
      std::string value;
      decode(v, value, s, append_pointer(ptr, k), diag);
      tmp[k] = value;
    }
    if (diag.count() == before) out = std::move(tmp);
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!j.is_boolean()) return fail(detail::expectation(s));
    out = j.get<bool>();
  } else if constexpr (std::is_enum_v<T>) {
    if (!j.is_string()) return fail(detail::expectation(s));
    const auto& text = j.get_ref<const std::string&>();
    if (!enum_from_name(text, out)) {
      std::string near = detail::closest(text, s.choices);
      diag.report(ptr, "expected " + detail::expectation(s) + ", found " + detail::json_text(j) +
                           (near.empty() ? "" : "; did you mean \"" + near + "\"?"));
    }
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!j.is_string()) return fail(detail::expectation(s));
    const auto& text = j.get_ref<const std::string&>();
    if (!s.choices.empty()) {
      bool known = false;
      for (const auto& c : s.choices) known = known || c == text;
      if (!known) {
        std::string near = detail::closest(text, s.choices);
        diag.report(ptr, "expected " + detail::expectation(s) + ", found " + detail::json_text(j) +
                             (near.empty() ? "" : "; did you mean \"" + near + "\"?"));
        return;
      }
    }
    out = text;
  } else if constexpr (is_unsigned_field_v<T>) {
    std::uint64_t v = 0;
    bool ok = false;
    if (j.is_number_unsigned()) {
      v = j.get<std::uint64_t>();
      ok = true;
    } else if (j.is_number_integer() && j.get<std::int64_t>() >= 0) {
      v = static_cast<std::uint64_t>(j.get<std::int64_t>());
      ok = true;
    } else if (s.hex_in && j.is_string()) {
      ok = detail::parse_hex(j.get_ref<const std::string&>(), v);
    }
    T lo = s.lo.value_or(0);
    T hi = s.hi.value_or(std::numeric_limits<T>::max());
    if (!ok) return fail(detail::expectation(s));
    if (v < lo || v > hi) return fail_range();
    out = static_cast<T>(v);
  } else if constexpr (is_signed_field_v<T>) {
    std::int64_t v = 0;
    bool ok = false;
    if (j.is_number_unsigned()) {
      ok = j.get<std::uint64_t>() <=
           static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
      if (ok) v = static_cast<std::int64_t>(j.get<std::uint64_t>());
    } else if (j.is_number_integer()) {
      v = j.get<std::int64_t>();
      ok = true;
    }
    T lo = s.lo.value_or(std::numeric_limits<T>::min());
    T hi = s.hi.value_or(std::numeric_limits<T>::max());
    if (!ok) return fail(detail::expectation(s));
    if (v < lo || v > hi) return fail_range();
    out = static_cast<T>(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!j.is_number()) return fail(detail::expectation(s));
    T v = j.get<T>();
    if ((s.lo && v < *s.lo) || (s.hi && v > *s.hi)) return fail_range();
    out = v;
  } else {
    static_assert(sizeof(T) == 0, "unsupported config field type");
  }
}

// Reads the fields of one JSON object; afterwards check_unknown() reports
// keys that no field claimed.
class json_reader {
 public:
  json_reader(const nlohmann::json& obj, std::string base, diagnostics& diag)
      : obj_(obj), base_(std::move(base)), diag_(diag) {}

  template <class T, class... Opts>
  void field(const char* name, T& value, const char* /*doc*/, const Opts&... opts) {
    known_.emplace_back(name);
    auto it = obj_.find(name);
    if (it == obj_.end()) return;  // keep the struct's default
    decode(*it, value, make_spec<T>(opts...), append_pointer(base_, name), diag_);
  }

  void check_unknown();

 private:
  const nlohmann::json& obj_;
  std::string base_;
  diagnostics& diag_;
  std::vector<std::string> known_;
};

template <class T>
void decode_struct(const nlohmann::json& j, T& out, const std::string& ptr, diagnostics& diag) {
  if (!j.is_object()) {
    diag.report(ptr, "expected an object, found " + detail::json_text(j));
    return;
  }
  std::size_t before = diag.count();
  json_reader r(j, ptr, diag);
  out.visit(r);
  r.check_unknown();
  if constexpr (has_validate<T>::value) {
    // Cross-field checks on half-parsed values would only add noise.
    if (diag.count() == before) {
      validator v(diag, ptr);
      out.validate(v);
    }
  }
}

// ---- struct -> key_info rows ----------------------------------------------

class key_describer {
 public:
  key_describer(std::vector<key_info>& rows, std::string base)
      : rows_(rows), base_(std::move(base)) {}

  template <class T, class... Opts>
  void field(const char* name, T& value, const char* doc, const Opts&... opts) {
    auto s = make_spec<T>(opts...);
    std::string ptr = append_pointer(base_, name);
    key_info k;
    k.pointer = ptr;
    k.type = detail::type_name<T>();
    if constexpr (!is_struct_field_v<T>)
      k.default_value = encode<nlohmann::ordered_json>(value, s).dump();  // declaration order
    k.constraint = detail::constraint_text<T>(s);
    k.range_reason = s.range_reason;
    k.doc = doc;
    rows_.push_back(std::move(k));
    if constexpr (is_struct_field_v<T>) {
      key_describer sub(rows_, ptr);
      value.visit(sub);
    } else if constexpr (is_vector<T>::value) {
      using E = typename T::value_type;
      if constexpr (is_struct_field_v<E>) {
        E element{};  // element rows show the element type's defaults
        key_describer sub(rows_, ptr + "/*");
        element.visit(sub);
      }
    }
  }

 private:
  std::vector<key_info>& rows_;
  std::string base_;
};

template <class Root>
std::vector<key_info> describe_struct() {
  std::vector<key_info> rows;
  Root root{};
  key_describer d(rows, "");
  root.visit(d);
  return rows;
}

}  // namespace pccx::config
