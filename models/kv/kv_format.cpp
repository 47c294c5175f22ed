#include "models/kv/kv_format.h"

#include <sstream>
#include <string>
#include <vector>

namespace pccx::kv {

namespace {

constexpr uint32_t kBeat = 16;           // bytes per AXI beat
constexpr uint32_t kMaxHeadDim = 65535;  // largest head_dim a format accepts
constexpr uint32_t kBf16Bytes = 2;       // one stored scale, norm or magnitude

bool is_integer_kind(kv_kind k) {
  return k == kv_kind::int8 || k == kv_kind::int4;
}

bool is_known_kind(kv_kind k) {
  return k == kv_kind::fp16 || k == kv_kind::int8 || k == kv_kind::int4 || k == kv_kind::rotated;
}

bool is_power_of_two(uint32_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

uint32_t ceil_div(uint32_t a, uint32_t b) {
  return (a + b - 1) / b;
}

// Stored scales of an int8/int4 record: one per group, rounded up when the
// group does not divide head_dim (check() refuses that case).
uint32_t scale_count(const kv_format& f) {
  if (!is_integer_kind(f.kind) || f.group == 0) return 0;
  return ceil_div(f.head_dim, f.group);
}

}  // namespace

const char* kind_name(kv_kind k) {
  switch (k) {
    case kv_kind::fp16: return "fp16";
    case kv_kind::int8: return "int8";
    case kv_kind::int4: return "int4";
    case kv_kind::rotated: return "rotated";
  }
  return "unknown";
}

uint32_t kv_format::metadata_bytes() const {
  switch (kind) {
    case kv_kind::fp16: return 0;
    case kv_kind::int8:
    case kv_kind::int4: return kBf16Bytes * scale_count(*this);
    case kv_kind::rotated: return kBf16Bytes * (residual_sketch ? 2 : 1);
  }
  return 0;
}

uint32_t kv_format::payload_bytes() const {
  // head_dim <= 65535 and bits <= 4 keep every product inside 32 bits; the
  // 64-bit intermediate only guards descriptors that check() refuses.
  const uint64_t d = head_dim;
  uint64_t data = 0;
  switch (kind) {
    case kv_kind::fp16: data = 2 * d; break;
    case kv_kind::int8: data = d; break;
    case kv_kind::int4: data = (d + 1) / 2; break;
    case kv_kind::rotated:
      data = (d * bits + 7) / 8;
      if (residual_sketch) data += (d + 7) / 8;
      break;
  }
  return static_cast<uint32_t>(data + metadata_bytes());
}

uint32_t kv_format::record_bytes() const {
  return ceil_div(payload_bytes(), kBeat) * kBeat;
}

double kv_format::bits_per_element() const {
  if (head_dim == 0) return 0.0;
  return 8.0 * record_bytes() / head_dim;
}

std::string kv_format::check() const {
  std::vector<std::string> errors;
  auto say = [&errors](const std::string& s) { errors.push_back(s); };
  if (!is_known_kind(kind)) {
    say("unknown kind " + std::to_string(static_cast<unsigned>(kind)) +
        " (expected fp16, int8, int4 or rotated)");
  }
  const std::string k = kind_name(kind);
  if (head_dim == 0) {
    say("head_dim 0: a record holds at least one element");
  } else if (head_dim > kMaxHeadDim) {
    say("head_dim " + std::to_string(head_dim) + " exceeds " + std::to_string(kMaxHeadDim));
  }
  if (is_integer_kind(kind)) {
    if (group != 0 && head_dim != 0 && head_dim % group != 0) {
      say(k + " group " + std::to_string(group) + " does not divide head_dim " +
          std::to_string(head_dim));
    }
  } else if (group != 0 && is_known_kind(kind)) {
    say(k + " has no scale group (group " + std::to_string(group) +
        "); group applies to int8 and int4 only");
  }
  if (kind == kv_kind::rotated) {
    if (head_dim != 0 && head_dim <= kMaxHeadDim && !is_power_of_two(head_dim)) {
      say("rotated head_dim " + std::to_string(head_dim) +
          " is not a power of two (the Walsh-Hadamard rotation needs one)");
    }
    if (bits < 2 || bits > 4) {
      say("rotated bits " + std::to_string(bits) + " is outside 2..4");
    }
  } else if (residual_sketch && is_known_kind(kind)) {
    say("residual_sketch needs the rotated kind, not " + k);
  }
  std::ostringstream out;
  for (size_t i = 0; i < errors.size(); ++i) out << (i ? "; " : "") << errors[i];
  return out.str();
}

std::string kv_format::name() const {
  switch (kind) {
    case kv_kind::fp16: return "fp16";
    case kv_kind::int8:
    case kv_kind::int4:
      return std::string(kind_name(kind)) +
             (group == 0 ? std::string("/static") : "/g" + std::to_string(group));
    case kv_kind::rotated: return "rot" + std::to_string(bits) + (residual_sketch ? "+sketch" : "");
  }
  return "unknown";
}

}  // namespace pccx::kv
