// The vocabulary a config struct uses to describe its fields.
//
// A config struct lists its fields once, in a visit() member:
//
//   struct clocks_config {
//     double core_mhz = 400.0;
//     template <class V> void visit(V& v) {
//       v.field("core_mhz", core_mhz, "NPU core clock",
//               range(1.0, 2000.0, "above 0 for a finite period; 2 GHz is a modelling cap"));
//     }
//   };
//
// The trailing options (range, hex, address, one_of, items) are
// plain tag values; every visitor turns them into a field_spec for the
// field's type, so a wrong option on a field type fails to compile.
// A struct may also define `void validate(validator&) const` for checks
// that involve several fields; it runs after the struct's own fields parsed
// cleanly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "infra/config/config_error.h"

namespace pccx::config {

// One row of the key reference (docs/reference/configuration.md, --help output).
struct key_info {
  std::string pointer;        // JSON pointer; "*" stands for any array index
  std::string type;           // "uint32", "number", "string", "object", ...
  std::string default_value;  // compact JSON; empty for objects
  std::string constraint;     // "[1, 1024]", "one of: ...", ...
  std::string range_reason;   // why a numeric key's bounds are what they are
  std::string doc;
};

// ---- field options ---------------------------------------------------------

template <class T>
struct range_opt {
  T lo, hi;
  const char* why;  // what the model needs from a value in range
};
struct hex_opt {
  bool dump_hex;  // false: accept "0x..." on input only
};
struct choices_opt {
  std::vector<std::string> names;
};
struct items_opt {
  std::size_t min, max;
};

// Inclusive numeric bounds, converted to the field's type, and the reason
// for them: the key reference and the out-of-range error both give it.
// Every numeric field states both bounds and why; there is no form without
// a reason.
template <class T>
range_opt<T> range(T lo, T hi, const char* why) {
  return {lo, hi, why};
}
// Unsigned field that also accepts "0x..." strings; dumped as a number.
inline hex_opt hex() {
  return {false};
}
// Unsigned field that accepts "0x..." strings and is dumped as one.
inline hex_opt address() {
  return {true};
}
// String (or string-map value) restricted to a fixed set.
inline choices_opt one_of(std::initializer_list<const char*> names) {
  choices_opt c;
  for (const char* n : names) c.names.emplace_back(n);
  return c;
}
inline choices_opt one_of(std::vector<std::string> names) {
  return {std::move(names)};
}
// Array length, exact or bounded.
inline items_opt items(std::size_t exactly) {
  return {exactly, exactly};
}
inline items_opt items(std::size_t min, std::size_t max) {
  return {min, max};
}

// ---- named enums -----------------------------------------------------------
//
// An enum field (a mode, a policy) names its values in one table, found by
// argument-dependent lookup in the enum's own namespace:
//
//   enum class sim_mode { functional, timing };
//   inline const enum_table<sim_mode>& names_of(sim_mode) {
//     static const enum_table<sim_mode> t = {{sim_mode::functional, "functional"},
//                                            {sim_mode::timing, "timing"}};
//     return t;
//   }
//
// The table drives parsing (an unknown name gets a did-you-mean error), the
// dump, the key reference and enum_name() in messages.
template <class E>
using enum_table = std::vector<std::pair<E, const char*>>;

template <class E>
const char* enum_name(E value) {
  for (const auto& [e, name] : names_of(E{}))
    if (e == value) return name;
  return "?";
}

template <class E>
std::vector<std::string> enum_names() {
  std::vector<std::string> out;
  for (const auto& entry : names_of(E{})) out.emplace_back(entry.second);
  return out;
}

template <class E>
bool enum_from_name(const std::string& name, E& out) {
  for (const auto& [e, n] : names_of(E{}))
    if (name == n) {
      out = e;
      return true;
    }
  return false;
}

// ---- type traits -----------------------------------------------------------

template <class T>
struct is_vector : std::false_type {};
template <class T, class A>
struct is_vector<std::vector<T, A>> : std::true_type {};

template <class T>
struct is_string_map : std::false_type {};
template <class C, class A>
struct is_string_map<std::map<std::string, std::string, C, A>> : std::true_type {};

template <class T>
inline constexpr bool is_unsigned_field_v =
    std::is_integral_v<T>&& std::is_unsigned_v<T> && !std::is_same_v<T, bool>;
template <class T>
inline constexpr bool is_signed_field_v = std::is_integral_v<T>&& std::is_signed_v<T>;
template <class T>
inline constexpr bool is_number_field_v = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;
// Anything else that is a class is taken to be a nested config struct.
template <class T>
inline constexpr bool is_struct_field_v = std::is_class_v<T> && !std::is_same_v<T, std::string> &&
                                          !is_vector<T>::value && !is_string_map<T>::value;

// The type the options constrain: the element of an array, the value of a
// string map, otherwise the field itself.
template <class T>
struct leaf_of {
  using type = T;
};
template <class T, class A>
struct leaf_of<std::vector<T, A>> {
  using type = T;
};
template <class C, class A>
struct leaf_of<std::map<std::string, std::string, C, A>> {
  using type = std::string;
};
template <class T>
using leaf_t = typename leaf_of<T>::type;

template <class T, class = void>
struct has_validate : std::false_type {};
template <class T>
struct has_validate<
    T, std::void_t<decltype(std::declval<const T&>().validate(std::declval<validator&>()))>>
    : std::true_type {};

// ---- field_spec: the options of one field, resolved ----------------------

template <class Leaf>
struct field_spec {
  std::optional<Leaf> lo, hi;  // numeric leaves only
  std::string range_reason;    // why lo and hi are what they are
  bool hex_in = false;         // unsigned leaves only
  bool hex_out = false;
  std::vector<std::string> choices;  // string leaves only
  std::optional<items_opt> count;    // arrays only
};

namespace detail {

template <class T, class L, class U>
void apply_option(field_spec<L>& s, const range_opt<U>& r) {
  static_assert(is_number_field_v<L>, "range() applies to numeric fields");
  s.lo = static_cast<L>(r.lo);
  s.hi = static_cast<L>(r.hi);
  if (r.why) s.range_reason = r.why;
}
template <class T, class L>
void apply_option(field_spec<L>& s, const hex_opt& h) {
  static_assert(is_unsigned_field_v<L>, "hex()/address() apply to unsigned fields");
  s.hex_in = true;
  s.hex_out = h.dump_hex;
}
template <class T, class L>
void apply_option(field_spec<L>& s, const choices_opt& c) {
  static_assert(std::is_same_v<L, std::string>, "one_of() applies to string fields");
  s.choices = c.names;
}
template <class T, class L>
void apply_option(field_spec<L>& s, const items_opt& n) {
  static_assert(is_vector<T>::value, "items() applies to array fields");
  s.count = n;
}

}  // namespace detail

template <class T, class... Opts>
field_spec<leaf_t<T>> make_spec(const Opts&... opts) {
  field_spec<leaf_t<T>> s;
  (detail::apply_option<T>(s, opts), ...);
  if constexpr (std::is_enum_v<leaf_t<T>>) s.choices = enum_names<leaf_t<T>>();
  return s;
}

}  // namespace pccx::config
