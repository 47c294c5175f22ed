// The configuration section of the SFU (`npu.sfu`), owned by the model: its
// keys, defaults and ranges, the GELU form and the pipeline latency of every
// function. The unit's parameters hold it as it is (sfu_unit_params::section),
// so each default is written here only.
#pragma once

#include <cstdint>

#include "infra/config/config_schema.h"

namespace pccx::config {

// npu.sfu.gelu: the GELU approximation of the SFU.
enum class gelu_form {
  tanh,     // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))  (the model's GELU)
  sigmoid,  // x * sigmoid(1.702 x)                              (the RTL's)
};
inline const enum_table<gelu_form>& names_of(gelu_form) {
  static const enum_table<gelu_form> t = {{gelu_form::tanh, "tanh"},
                                          {gelu_form::sigmoid, "sigmoid"}};
  return t;
}

// Shared by every function's pipeline latency.
constexpr const char* kSfuLatencyRange =
    "0 = result at once; 1,000 is a modelling cap, far above the RTL's 1 to 16 clocks";

struct sfu_latency_config {
  std::uint32_t exp = 4, sqrt = 3, gelu = 12, sin = 16, cos = 16, reduce_sum = 1, scale = 3,
                recip = 4, tanh = 12, mul = 3, add = 3, max = 1, output_register = 1;

  template <class V>
  void visit(V& v) {
    v.field("exp", exp, "EXP pipeline", range(0, 1000, kSfuLatencyRange));
    v.field("sqrt", sqrt, "SQRT pipeline", range(0, 1000, kSfuLatencyRange));
    v.field("gelu", gelu, "GELU pipeline", range(0, 1000, kSfuLatencyRange));
    v.field("sin", sin, "SIN pipeline (CORDIC)", range(0, 1000, kSfuLatencyRange));
    v.field("cos", cos, "COS pipeline (CORDIC)", range(0, 1000, kSfuLatencyRange));
    v.field("reduce_sum", reduce_sum, "REDUCE_SUM: cycles after the last element",
            range(0, 1000, kSfuLatencyRange));
    v.field("scale", scale, "SCALE pipeline", range(0, 1000, kSfuLatencyRange));
    v.field("recip", recip, "RECIP pipeline (one Newton step)", range(0, 1000, kSfuLatencyRange));
    v.field("tanh", tanh, "TANH pipeline (extension)", range(0, 1000, kSfuLatencyRange));
    v.field("mul", mul, "MUL pipeline (extension)", range(0, 1000, kSfuLatencyRange));
    v.field("add", add, "ADD pipeline (extension)", range(0, 1000, kSfuLatencyRange));
    v.field("max", max, "MAX pipeline (extension)", range(0, 1000, kSfuLatencyRange));
    v.field("output_register", output_register, "Output register of CVO_top",
            range(0, 1000, kSfuLatencyRange));
  }
};

struct sfu_config {
  std::uint32_t max_length = 2048;
  bool extensions = true;
  bool gemv_chaining = true;
  gelu_form gelu = gelu_form::tanh;
  sfu_latency_config latency_cycles;

  template <class V>
  void visit(V& v) {
    v.field("max_length", max_length,
            "Elements per CVO instruction (the RTL stream bridge buffers 2048)",
            range(1, 65535, "at least one element; the CVO length field is 16 bits (65,535)"));
    v.field("extensions", extensions, "Accept the platform-defined CVO codes 0x8..0xB");
    v.field("gemv_chaining", gemv_chaining,
            "Direct GEMV -> SFU path: a CVO whose source is an in-flight GEMV's result "
            "consumes it as it is produced instead of waiting for the GEMV to retire");
    v.field("gelu", gelu,
            "GELU form: tanh (the model's) or sigmoid (the RTL's x * sigmoid(1.702 x))");
    v.field("latency_cycles", latency_cycles, "Pipeline latency per function, core cycles");
  }
};

}  // namespace pccx::config
