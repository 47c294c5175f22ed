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
  // The ZynqMP's physical addresses are 40 bits; sizes are >= 1 and both
  // fields below 2^41 by schema, so neither sum wraps.
  static constexpr std::uint64_t kAddressSpace = std::uint64_t{1} << 40;
  bool overflows() const { return base + size > kAddressSpace; }
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
                     detail::hex_text(w->size) + " runs past the end of the 40-bit physical address space");
  }
  if (npu_base % 0x1000 != 0)
    check.fail("npu_base", "must be 4 KiB (0x1000) aligned, found " + detail::hex_text(npu_base));
  // DDR is deliberately not checked against the NPU window: it is the NPU
  // DMA's view of memory, and the default 4 GiB at 0x0 spans 0xA0000000.
}

void platform_config::validate(validator& check) const {
  if (ddr.model == dram_model::banks && ddr.bus_bits % 8 == 0 &&
      memory_map.ddr_size > ddr.capacity_bytes())
    check.fail({"memory_map/ddr_size", "ddr/organisation/rows"},
               "memory_map.ddr_size " + detail::hex_text(memory_map.ddr_size) +
                   " is larger than the rank ddr.organisation describes: " +
                   std::to_string(ddr.organisation.bank_groups) + " bank groups x " +
                   std::to_string(ddr.organisation.banks_per_group) + " banks x " +
                   std::to_string(ddr.organisation.rows) + " rows x " +
                   std::to_string(ddr.organisation.columns) + " columns x " +
                   std::to_string(ddr.bus_bits / 8) + " bytes = " +
                   detail::hex_text(ddr.capacity_bytes()));
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
