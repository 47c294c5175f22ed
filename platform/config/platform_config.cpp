#include "platform/config/platform_config.h"

#include <limits>
#include <tuple>

#include "infra/config/config_visitors.h"

namespace pccx::config {

const std::vector<std::string>& log_level_names() {
  // Same names as pccx::log::parse_level; kept here so this library does not
  // depend on the SystemC-based support library.
  static const std::vector<std::string> names = {"trace",   "debug", "info",
                                                 "warning", "error", "off"};
  return names;
}

namespace {

struct window {
  std::string name;
  std::uint64_t base, size;
  // Sizes are >= 1 by schema, so size - 1 cannot wrap.
  bool overflows() const { return size - 1 > std::numeric_limits<std::uint64_t>::max() - base; }
  std::uint64_t last() const { return base + (size - 1); }
  std::string text() const {
    return name + " window [" + detail::hex_text(base) + ", " + detail::hex_text(last()) + "]";
  }
};

}  // namespace

void memory_map_config::validate(validator& check) const {
  const window npu{"npu", npu_base, npu_size};
  const window ddr{"ddr", ddr_base, ddr_size};

  for (const window* w : {&npu, &ddr}) {
    if (w->overflows())
      check.fail({w->name + "_base", w->name + "_size"},
                 w->name + " window starting at " + detail::hex_text(w->base) + " with size " +
                     detail::hex_text(w->size) + " runs past the end of the 64-bit address space");
  }
  if (npu_base % 0x1000 != 0)
    check.fail("npu_base", "must be 4 KiB (0x1000) aligned, found " + detail::hex_text(npu_base));
  // DDR is deliberately not checked against the NPU window: it is the NPU
  // DMA's view of memory, and the default 4 GiB at 0x0 spans 0xA0000000.
}

kv::kv_format to_kv_format(const kv_format_config& c, uint32_t head_dim) {
  kv::kv_format f;
  f.kind = c.kind == "int8"      ? kv::kv_kind::int8
           : c.kind == "int4"    ? kv::kv_kind::int4
           : c.kind == "rotated" ? kv::kv_kind::rotated
                                 : kv::kv_kind::fp16;
  f.head_dim = head_dim;
  f.group = c.group;
  f.bits = c.bits;
  f.residual_sketch = c.residual_sketch;
  return f;
}

void kv_datapath_config::validate(validator& check) const {
  for (const auto& [name, fc] : {std::pair{"key", &key}, std::pair{"value", &value}}) {
    const std::string problem = to_kv_format(*fc, head_dim).check();
    if (!problem.empty()) check.fail({std::string(name), "head_dim"}, problem);
  }
}

void constant_cache_config::validate(validator& check) const {
  for (std::size_t i = 0; i < banks.size(); ++i) {
    const std::string field = "banks/" + std::to_string(i) + "/name";
    if (banks[i].name.empty()) {
      check.fail(field, "bank name must not be empty");
      continue;
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (banks[j].name == banks[i].name) {
        check.fail({field}, "duplicate bank name \"" + banks[i].name + "\" (also used by " +
                                check.pointer("banks/" + std::to_string(j) + "/name") + ")");
        break;
      }
    }
  }
  // The firmware addresses these two banks by position.
  const char* required[] = {"fmap_shape", "weight_shape"};
  for (std::size_t i = 0; i < 2 && i < banks.size(); ++i) {
    const std::string at = "banks/" + std::to_string(i);
    if (banks[i].name != required[i])
      check.fail(at + "/name", std::string("bank ") + std::to_string(i) + " must be \"" +
                                   required[i] + "\", found \"" + banks[i].name + "\"");
    else if (!banks[i].enabled)
      check.fail(at + "/enabled", std::string("bank \"") + required[i] + "\" must be enabled");
  }
}

void output_config::validate(validator& check) const {
  if (!dir.empty()) return;
  for (const auto& [key, on, file] :
       {std::tuple{"perfetto", perfetto, "trace.perfetto.json"},
        std::tuple{"vcd", vcd, "signals.vcd"}, std::tuple{"pccx", pccx, "session.pccx"},
        std::tuple{"plots", plots, "ddr_bandwidth.svg"}})
    if (on)
      check.fail({key, "dir"}, std::string("output.") + key + " is on but output.dir is empty: " +
                                   "set output.dir (--out DIR) to the folder for " + file);
}

void logging_config::validate(validator& check) const {
  if (modules.count("") != 0) check.fail("modules/", "module name must not be empty");
}

}  // namespace pccx::config
