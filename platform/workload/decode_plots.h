// The per-token latency breakdown of a decode as an SVG (docs/reference/plots.md):
// one stacked bar per token, its segments the entry, each layer and the
// exit.
#pragma once

#include <string>

#include "platform/vp/report/latency_svg.h"
#include "platform/workload/decode_runner.h"

namespace pccx::workload {

// One bar per token. With decode_report::parts (--per-layer) and a single
// token, the token's bar is the parts: entry, layer 0 .., exit, sync, each
// up to the completion of its last instruction. Otherwise a token's bar is
// the time between its markers (entry up to "layer 0", layer l up to the
// next layer's marker or "exit", exit up to "end"), and parts, which are
// means over the tokens, add one bar "mean". Each token's segments add up
// to decode_report::latency_ns.
report::latency_chart latency_breakdown(const decode_report& rep);
std::string latency_breakdown_svg(const decode_report& rep);
// Throws std::runtime_error when `path` cannot be written.
void write_latency_breakdown_svg(const decode_report& rep, const std::string& path);

}  // namespace pccx::workload
