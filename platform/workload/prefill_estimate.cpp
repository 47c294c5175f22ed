#include "platform/workload/prefill_estimate.h"

#include <algorithm>
#include <stdexcept>

namespace pccx::workload {

std::vector<prefill_point> prefill_samples(uint32_t prompt, uint32_t chunk, uint32_t window) {
  if (prompt == 0 || chunk == 0) throw std::invalid_argument("a prompt and a chunk of 0");
  const uint32_t whole = prompt / chunk, rest = prompt % chunk;
  std::vector<prefill_point> out;
  if (whole >= 1) out.push_back({0, chunk});
  // The first chunk whose first row sees a full window (p0 >= window - 1).
  const uint32_t first_full = window > 1 ? (window - 1 + chunk - 1) / chunk : 0;
  if (first_full > 0 && first_full + 1 < whole) out.push_back({first_full * chunk, chunk});
  if (whole >= 2) out.push_back({(whole - 1) * chunk, chunk});
  if (rest != 0) out.push_back({whole * chunk, rest});
  return out;
}

namespace {

// The body of a chunk: its figures without the exit.
struct body {
  double ns = 0;
  std::map<std::string, double> q;
};

body body_of(const prefill_measure& m) {
  body b{m.ns - m.exit_ns, m.q};
  for (const auto& [k, v] : m.exit_q) b.q[k] -= v;
  return b;
}

}  // namespace

prefill_totals estimate_prefill(uint32_t prompt, uint32_t chunk,
                                const std::vector<prefill_point>& samples,
                                const std::vector<prefill_measure>& measures) {
  if (samples.size() != measures.size() || samples.empty())
    throw std::invalid_argument("prefill estimate: one measure per sample needed");
  // The whole-chunk samples, by chunk index.
  std::vector<std::pair<uint32_t, body>> whole;
  for (size_t i = 0; i < samples.size(); ++i)
    if (samples[i].rows == chunk) whole.push_back({samples[i].p0 / chunk, body_of(measures[i])});
  prefill_totals t;
  auto add = [&](const body& b, double w) {
    t.ttft_ns += w * b.ns;
    for (const auto& [k, v] : b.q) t.q[k] += w * v;
  };
  const uint32_t chunks = (prompt + chunk - 1) / chunk;
  for (uint32_t k = 0; k < chunks; ++k) {
    const prefill_point at{k * chunk, std::min(chunk, prompt - k * chunk)};
    const auto exact = std::find(samples.begin(), samples.end(), at);
    if (exact != samples.end()) {
      add(body_of(measures[size_t(exact - samples.begin())]), 1.0);
      continue;
    }
    if (at.rows != chunk || whole.empty())
      throw std::invalid_argument("prefill estimate: chunk at " + std::to_string(at.p0) +
                                  " of " + std::to_string(at.rows) + " rows was not sampled");
    // Between the whole-chunk samples a <= k <= b.
    size_t hi = 0;
    while (hi < whole.size() && whole[hi].first < k) ++hi;
    if (hi == whole.size() || hi == 0)
      throw std::invalid_argument("prefill estimate: chunk " + std::to_string(k) +
                                  " lies outside the samples");
    const auto& [a, ba] = whole[hi - 1];
    const auto& [b, bb] = whole[hi];
    const double f = double(k - a) / double(b - a);
    add(ba, 1.0 - f);
    add(bb, f);
  }
  // The exit once: the last chunk's.
  const prefill_measure& last = measures.back();
  t.ttft_ns += last.exit_ns;
  for (const auto& [k, v] : last.exit_q) t.q[k] += v;
  return t;
}

}  // namespace pccx::workload
