// The configuration section of the L2 scratchpad (`npu.l2`), owned by the
// model: its keys, defaults and ranges. l2_params holds it as it is, so each
// default is written here only.
#pragma once

#include <cstdint>

#include "infra/config/config_schema.h"

namespace pccx::config {

struct l2_config {
  std::uint32_t words = 114688;
  std::uint32_t ports = 2;
  std::uint32_t read_latency_cycles = 3;

  template <class V>
  void visit(V& v) {
    v.field(
        "words", words, "L2 capacity in 128-bit words",
        range(1, 131072, "at least one word; the ISA's 17-bit L2 address reaches 131,072 words"));
    v.field(
        "ports", ports, "L2 access ports",
        range(1, 2, "1 = both sides share a port; 2 = the URAM's true dual port (ACP, compute)"));
    v.field("read_latency_cycles", read_latency_cycles, "URAM read latency, core cycles",
            range(0, 100, "0 = combinational (URAM: 3 clocks); 100 is a modelling cap"));
  }
};

}  // namespace pccx::config
