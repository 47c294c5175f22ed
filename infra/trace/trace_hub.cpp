#include "infra/trace/trace_hub.h"

#include <cmath>

namespace pccx::trace {

double ticks_per_ns() {
  return std::round(1e-9 / sc_core::sc_get_time_resolution().to_seconds());
}

void trace_hub::open(const std::string& name, const std::string& path) {
  if (path.empty()) {
    channels_.erase(name);
    return;
  }
  channels_[name] = std::make_unique<jsonl_trace>(path);
}

jsonl_trace* trace_hub::channel(const std::string& name) const {
  auto it = channels_.find(name);
  return it == channels_.end() ? nullptr : it->second.get();
}

void trace_hub::marker(const std::string& text, const sc_core::sc_time& when) {
  for (auto& [name, ch] : channels_) ch->write({{"t_ns", to_ns(when)}, {"marker", text}});
}

void trace_hub::close_all() {
  std::string first_error;
  for (auto& [name, ch] : channels_) {
    try {
      ch->close();
    } catch (const io::output_error& e) {
      if (first_error.empty()) first_error = e.what();
    }
  }
  channels_.clear();
  if (!first_error.empty()) throw io::output_error(first_error);
}

}  // namespace pccx::trace
